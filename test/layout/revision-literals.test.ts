/**
 * The runtime holds no revision literal: protocol versions, their order and the facts that
 * differ per revision come from the generated tables (runtime/protocol/versions.ts). Every
 * string and template literal in runtime/ (comments aside) is read with the TypeScript parser;
 * one that names a revision (`2024-…`, `2025-…`, `2026-…`) fails the test with its place.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const REVISION = /\b20(24|25|26)-\d/;
const LITERALS = new Set([
  ts.SyntaxKind.StringLiteral,
  ts.SyntaxKind.NoSubstitutionTemplateLiteral,
  ts.SyntaxKind.TemplateHead,
  ts.SyntaxKind.TemplateMiddle,
  ts.SyntaxKind.TemplateTail,
]);

function files(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const p = join(dir, name);
      return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
    });
}

/** `file:line: literal` for every literal of `text` that names a revision. */
function revisionLiterals(file: string, text: string): string[] {
  const found: string[] = [];
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const visit = (node: ts.Node): void => {
    if (LITERALS.has(node.kind) && REVISION.test((node as ts.LiteralLikeNode).text)) {
      const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
      found.push(`${file}:${line + 1}: ${node.getText(source)}`);
    }
    if (ts.isTemplateExpression(node)) {
      visit(node.head);
      for (const span of node.templateSpans) {
        visit(span.expression);
        visit(span.literal);
      }
      return;
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

test('the check sees literals, not comments', () => {
  const sample = [
    '// 2025-11-25 in a comment is fine',
    '/** so is 2026-07-28 in a doc comment */',
    "const a = '2025-11-25';",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: source text with a template literal, as the scanner reads it
    'const b = `x ${a} 2024-11-05`;',
    'const c = "2026-07-28" < a;',
    "const d = 'version 1.2025-x';",
  ].join('\n');
  assert.equal(
    revisionLiterals('sample.ts', sample).map((s) => s.replace(/: .*/, '')),
    ['sample.ts:3', 'sample.ts:4', 'sample.ts:5'],
  );
});

test('runtime/ names no revision outside comments', () => {
  const found = files(join(ROOT, 'runtime')).flatMap((f) =>
    revisionLiterals(relative(ROOT, f), readFileSync(f, 'utf8')),
  );
  assert.equal(found, []);
});

test.run();
