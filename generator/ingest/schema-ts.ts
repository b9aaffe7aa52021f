/**
 * The schema.ts half of ingest: its exported declarations (interfaces, type aliases, constants)
 * with their JSDoc tags, union members, primitive keywords and string literals, read with the
 * TypeScript parser; a file that does not parse is refused naming the line.
 */
import ts from 'typescript';
import { IngestError } from '../ingest-error.js';

/** An exported declaration of schema.ts. */
export interface TsDecl {
  name: string;
  kind: 'interface' | 'type' | 'const';
  category?: string;
  deprecated?: string;
  internal: boolean;
  /** Type alias that is a union of type references: the referenced names. */
  unionRefs?: string[];
  /** Type alias union: its primitive keywords (string, number, boolean, null). */
  primitives?: Set<string>;
  /** Type alias union: string literal members. */
  literals?: string[];
  value?: string | number;
  /** Interface: its own property signatures (name → type). */
  members?: Array<{ name: string; type: ts.TypeNode }>;
  /** Interface `extends` / type alias intersection: the named types it takes members from. */
  bases?: string[];
}

/** Reads exported declarations, their JSDoc tags, unions and constant values from schema.ts. */
export function readSchemaTs(text: string, file: string): Map<string, TsDecl> {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const out = new Map<string, TsDecl>();
  const exported = (n: ts.Node) =>
    ts.canHaveModifiers(n) && (ts.getModifiers(n) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
  const tagsOf = (n: ts.Node) => {
    let category: string | undefined;
    let deprecated: string | undefined;
    let internal = false;
    for (const tag of ts.getJSDocTags(n)) {
      const name = tag.tagName.text;
      const comment = (ts.getTextOfJSDocComment(tag.comment) ?? '').trim();
      if (name === 'category') category = comment.replace(/`/g, '').trim();
      else if (name === 'deprecated') deprecated = comment;
      else if (name === 'internal') internal = true;
    }
    return { category, deprecated, internal };
  };
  for (const st of sf.statements) {
    if (!exported(st)) continue;
    if (ts.isInterfaceDeclaration(st)) {
      const members: Array<{ name: string; type: ts.TypeNode }> = [];
      for (const m of st.members) {
        if (ts.isPropertySignature(m) && m.type && (ts.isIdentifier(m.name) || ts.isStringLiteral(m.name)))
          members.push({ name: m.name.text, type: m.type });
      }
      const bases = (st.heritageClauses ?? [])
        .flatMap((h) => h.types.map((t) => t.expression))
        .filter(ts.isIdentifier)
        .map((i) => i.text);
      out.set(st.name.text, { name: st.name.text, kind: 'interface', ...tagsOf(st), members, bases });
    } else if (ts.isTypeAliasDeclaration(st)) {
      const d: TsDecl = { name: st.name.text, kind: 'type', ...tagsOf(st) };
      const members = ts.isUnionTypeNode(st.type) ? st.type.types : [st.type];
      const refs: string[] = [];
      const prims = new Set<string>();
      const lits: string[] = [];
      for (const m of members) {
        if (ts.isTypeReferenceNode(m) && ts.isIdentifier(m.typeName)) refs.push(m.typeName.text);
        else if (m.kind === ts.SyntaxKind.StringKeyword) prims.add('string');
        else if (m.kind === ts.SyntaxKind.NumberKeyword) prims.add('number');
        else if (m.kind === ts.SyntaxKind.BooleanKeyword) prims.add('boolean');
        else if (ts.isLiteralTypeNode(m) && m.literal.kind === ts.SyntaxKind.NullKeyword) prims.add('null');
        else if (ts.isLiteralTypeNode(m) && ts.isStringLiteral(m.literal)) lits.push(m.literal.text);
      }
      if (refs.length === members.length) d.unionRefs = refs;
      if (ts.isIntersectionTypeNode(st.type)) {
        d.bases = st.type.types
          .filter(ts.isTypeReferenceNode)
          .map((r) => r.typeName)
          .filter(ts.isIdentifier)
          .map((i) => i.text);
      }
      if (prims.size) d.primitives = prims;
      if (lits.length) d.literals = lits;
      out.set(d.name, d);
    } else if (ts.isVariableStatement(st)) {
      for (const v of st.declarationList.declarations) {
        if (!ts.isIdentifier(v.name) || !v.initializer) continue;
        let value: string | number | undefined;
        const init = v.initializer;
        if (ts.isStringLiteral(init)) value = init.text;
        else if (ts.isNumericLiteral(init)) value = Number(init.text);
        else if (
          ts.isPrefixUnaryExpression(init) &&
          init.operator === ts.SyntaxKind.MinusToken &&
          ts.isNumericLiteral(init.operand)
        )
          value = -Number(init.operand.text);
        out.set(v.name.text, { name: v.name.text, kind: 'const', ...tagsOf(st), value });
      }
    }
  }
  return out;
}

/** Refuses a schema.ts that is not valid TypeScript, naming the line and column of the first error. */
export function checkTsSyntax(text: string, file: string): void {
  const syntax = ts.transpileModule(text, { reportDiagnostics: true, fileName: file }).diagnostics ?? [];
  if (!syntax.length) return;
  const d = syntax[0];
  const where = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start) : undefined;
  throw new IngestError(
    file,
    where ? `line ${where.line + 1}:${where.character + 1}` : '(syntax)',
    `not valid TypeScript: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`,
  );
}

/** The primitive keywords of a schema.ts type (through unions and parentheses), and what it nests. */
export function tsShape(node: ts.TypeNode): { prims: Set<string>; map?: ts.TypeNode; array?: ts.TypeNode } {
  const prims = new Set<string>();
  let map: ts.TypeNode | undefined;
  let array: ts.TypeNode | undefined;
  const visit = (n: ts.TypeNode): void => {
    if (ts.isParenthesizedTypeNode(n)) return visit(n.type);
    if (ts.isUnionTypeNode(n)) return n.types.forEach(visit);
    if (n.kind === ts.SyntaxKind.NumberKeyword) prims.add('number');
    else if (n.kind === ts.SyntaxKind.StringKeyword) prims.add('string');
    else if (n.kind === ts.SyntaxKind.BooleanKeyword) prims.add('boolean');
    else if (ts.isLiteralTypeNode(n) && n.literal.kind === ts.SyntaxKind.NullKeyword) prims.add('null');
    else if (ts.isArrayTypeNode(n)) array = n.elementType;
    else if (
      ts.isTypeLiteralNode(n) &&
      n.members.length === 1 &&
      ts.isIndexSignatureDeclaration(n.members[0]) &&
      n.members[0].type
    )
      map = n.members[0].type;
  };
  visit(node);
  return { prims, map, array };
}
