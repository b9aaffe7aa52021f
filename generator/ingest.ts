// size: ingest and its normalisation passes; split pending (#36)
/**
 * ingest: schema.json + schema.ts of one revision → ProtocolModel.
 *
 * Everything is derived from the two inputs: methods from each request's `method.const`,
 * directions from the Client… and Server… unions (and InputRequest, 2026-07-28+), request ↔ result
 * pairing from the `*ResultResponse` types, then the `@category` JSDoc tag, then the name; the
 * few exceptions live in ./overrides.ts. Throws IngestError naming the file and field on input
 * it cannot read.
 */
import ts from 'typescript';
import type { Direction, HttpFacts, JsonSchema, NotificationDef, ProtocolModel, RequestDef, TypeDef } from './model.js';
import {
  CAPABILITY_OVERRIDES,
  HTTP_FACTS,
  INPUT_REQUIRED_RESULT_TYPE,
  KEEP_SCHEMA_JSON_NUMBERS,
  RESULT_OVERRIDES,
  TASK_RESULT_TYPE,
} from './overrides.js';
import { byCodeUnit, sortKeysDeep } from './util.js';
import { IngestError } from './ingest-error.js';
import { checkMetaSchema } from './meta-schema.js';
import { errorCodesOfErrorTypes } from './runtime-facts.js';
import type { ResolvedRevision } from '../schema/resolve.js';

export { IngestError };

export interface IngestInput {
  revision: string;
  schemaJson: { path: string; text: string; sha256: string; size: number };
  schemaTs: { path: string; text: string; sha256: string; size: number };
  pinned: boolean;
  commit: string | null;
}

interface TsDecl {
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

/** Rewrites draft-07 `definitions` to 2020-12 `$defs` (and every `#/definitions/` reference). */
function normaliseDefs(root: JsonSchema, file: string): Record<string, JsonSchema> {
  const defs = (root.$defs ?? root.definitions) as Record<string, JsonSchema> | undefined;
  if (!defs || typeof defs !== 'object') throw new IngestError(file, '$defs', 'no $defs (or definitions) object');
  const fix = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(fix);
    if (v && typeof v === 'object') {
      const o: JsonSchema = {};
      for (const [k, x] of Object.entries(v)) {
        o[k] = k === '$ref' && typeof x === 'string' ? x.replace(/^#\/definitions\//, '#/$defs/') : fix(x);
      }
      return o;
    }
    return v;
  };
  return fix(defs) as Record<string, JsonSchema>;
}

const refName = (s: unknown): string | undefined => {
  const r = (s as JsonSchema | undefined)?.$ref;
  return typeof r === 'string' && r.startsWith('#/$defs/') ? r.slice('#/$defs/'.length) : undefined;
};

/** Follows `$ref`s (and single-member allOf) to the schema object they name. */
function deref(defs: Record<string, JsonSchema>, s: unknown): JsonSchema | undefined {
  let cur = s as JsonSchema | undefined;
  for (let i = 0; cur && i < 16; i++) {
    const n = refName(cur);
    if (n) cur = defs[n];
    else if (Array.isArray(cur.allOf) && cur.allOf.length === 1) cur = cur.allOf[0] as JsonSchema;
    else return cur;
  }
  return cur;
}

/** The schema at a property path below a named type, following references. */
function propertyAt(
  defs: Record<string, JsonSchema>,
  typeName: string,
  path: readonly string[],
): JsonSchema | undefined {
  let cur = deref(defs, defs[typeName]);
  for (const p of path) {
    const props = cur?.properties as Record<string, JsonSchema> | undefined;
    cur = props && Object.hasOwn(props, p) ? deref(defs, props[p]) : undefined;
  }
  return cur;
}

/** Capability gate of a method: the receiver's capability named by the method's first segment. */
function capabilityOf(defs: Record<string, JsonSchema>, method: string, receiverCaps: string): string[] | null {
  if (Object.hasOwn(CAPABILITY_OVERRIDES, method)) return [...CAPABILITY_OVERRIDES[method]];
  const segs = method.replace(/^notifications\//, '').split('/');
  const caps = deref(defs, defs[receiverCaps]);
  const props = (caps?.properties ?? {}) as Record<string, JsonSchema>;
  const key = [segs[0], `${segs[0]}s`].find((k) => k && Object.hasOwn(props, k));
  if (!key) return null;
  const sub = deref(defs, props[key]);
  const subProps = (sub?.properties ?? {}) as Record<string, JsonSchema>;
  const second = segs[1] === 'list_changed' ? 'listChanged' : segs[1];
  if (second && Object.hasOwn(subProps, second) && second !== 'requests') return [key, second];
  return [key];
}

/**
 * The types one file defines and the other does not (interfaces and type aliases of schema.ts vs
 * `$defs` of schema.json), as `only in schema.json: A, B; only in schema.ts: C`, or undefined
 * when both define the same set. Two files of one upstream revision agree; a difference means
 * mixed revisions or a stale schema.json.
 */
function typeSetMismatch(defs: Record<string, JsonSchema>, decls: Map<string, TsDecl>): string | undefined {
  const tsTypes = [...decls.values()].filter((d) => d.kind !== 'const').map((d) => d.name);
  const onlyJson = Object.keys(defs)
    .filter((n) => !decls.has(n) || decls.get(n)!.kind === 'const')
    .sort(byCodeUnit);
  const onlyTs = tsTypes.filter((n) => !Object.hasOwn(defs, n)).sort(byCodeUnit);
  const few = (names: string[]) =>
    `${names.slice(0, 5).join(', ')}${names.length > 5 ? ` and ${names.length - 5} more` : ''}`;
  const parts = [
    onlyJson.length ? `only in schema.json: ${few(onlyJson)}` : '',
    onlyTs.length ? `only in schema.ts: ${few(onlyTs)}` : '',
  ].filter(Boolean);
  return parts.length ? parts.join('; ') : undefined;
}

/** Ingests the resolved inputs of a revision (./schema/resolve.ts) into a model. */
export function ingestResolved(r: ResolvedRevision): ProtocolModel {
  const f = r.files;
  return ingest({
    revision: r.revision,
    schemaJson: f['schema.json'],
    schemaTs: f['schema.ts'],
    pinned: r.pinned,
    commit: r.commit,
  });
}

// size: ingest of a revision, step by step; split pending (#36)
export function ingest(input: IngestInput): ProtocolModel {
  const jf = input.schemaJson.path;
  const tf = input.schemaTs.path;
  let root: JsonSchema;
  try {
    root = JSON.parse(input.schemaJson.text) as JsonSchema;
  } catch (e) {
    throw new IngestError(jf, '(whole file)', `not valid JSON: ${(e as Error).message}`);
  }
  if (!root || typeof root !== 'object' || Array.isArray(root))
    throw new IngestError(jf, '(root)', 'not a JSON object');
  checkMetaSchema(root, jf);
  const dialect = typeof root.$schema === 'string' ? root.$schema : 'https://json-schema.org/draft/2020-12/schema';
  checkRefs(root, jf);
  const defs = normaliseDefs(root, jf);
  const syntax = ts.transpileModule(input.schemaTs.text, { reportDiagnostics: true, fileName: tf }).diagnostics ?? [];
  if (syntax.length) {
    const d = syntax[0];
    const where = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start) : undefined;
    throw new IngestError(
      tf,
      where ? `line ${where.line + 1}:${where.character + 1}` : '(syntax)',
      `not valid TypeScript: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`,
    );
  }
  const decls = readSchemaTs(input.schemaTs.text, tf);
  const warnings: string[] = [];
  const mismatch = typeSetMismatch(defs, decls);
  if (mismatch) warnings.push(`${jf} and ${tf} define different types (${mismatch}): are they from the same revision?`);
  const repaired = repairLinks(defs, new Set([...Object.keys(defs), ...decls.keys()]));
  if (repaired)
    warnings.push(
      `${jf}: ${repaired} {@link Name | text} references lost their " | " separator; restored as schema.ts writes them`,
    );

  // Where schema.json loses what schema.ts says: follow schema.ts, report it.
  for (const [name, d] of decls) {
    const def = defs[name];
    if (!def || !d.primitives) continue;
    const keep = KEEP_SCHEMA_JSON_NUMBERS.includes(name);
    const prims = new Set([...d.primitives].filter((p) => !(keep && p === 'number')));
    const patched = patchPrimitives(def, prims);
    if (patched.length)
      warnings.push(`${jf}: $defs.${name}: schema.ts allows ${patched.join(', ')}; following schema.ts`);
  }
  for (const name of Object.keys(defs)) {
    for (const { member, at, added } of widenMembers(name, defs[name], decls)) {
      warnings.push(
        `${jf}: $defs.${name}.properties.${member}${at}: schema.ts allows ${added.join(', ')}; following schema.ts`,
      );
    }
  }
  for (const [name, d] of decls) {
    if (d.kind === 'type' && d.literals && d.primitives?.has('string') && d.literals.length) {
      warnings.push(
        `${tf}: ${name}: known values ${d.literals.map((l) => JSON.stringify(l)).join(', ')} widen to string in schema.json; kept as documented values`,
      );
    }
  }

  const union = (name: string): string[] => {
    const d = decls.get(name);
    if (!d) return [];
    if (!d.unionRefs) {
      // a one-member union is written as a plain alias: `type ClientNotification = CancelledNotification`
      const def = defs[name];
      const one = refName(def);
      if (one) return [one];
      const any = (def?.anyOf ?? def?.oneOf) as unknown[] | undefined;
      return any ? any.map(refName).filter((x): x is string => !!x) : [];
    }
    return d.unionRefs;
  };

  const constOf = (typeName: string, field: string): string => {
    const s = propertyAt(defs, typeName, [field]);
    const c = s?.const ?? (Array.isArray(s?.enum) && s.enum.length === 1 ? s.enum[0] : undefined);
    if (typeof c !== 'string')
      throw new IngestError(jf, `$defs.${typeName}.properties.${field}.const`, 'missing: cannot tell the method');
    return c;
  };
  const paramsOf = (typeName: string) => {
    const def = deref(defs, defs[typeName]);
    if (!def)
      throw new IngestError(jf, `$defs.${typeName}`, 'named in a schema.ts union but not defined in schema.json');
    const p = (def.properties as Record<string, JsonSchema> | undefined)?.params;
    const required = Array.isArray(def.required) && def.required.includes('params');
    return { hasParams: !!p, paramsRequired: required, paramsType: (p && refName(p)) ?? null };
  };

  const results = new Set([...union('ServerResult'), ...union('ClientResult')]);
  const requests: RequestDef[] = [];
  const seen = new Map<string, RequestDef>();
  const addRequests = (unionName: string, direction: Direction, embedded: boolean) => {
    for (const t of union(unionName)) {
      if (!defs[t]) {
        warnings.push(`${tf}: ${unionName} member ${t} has no schema.json definition; left out of the model`);
        continue;
      }
      const method = constOf(t, 'method');
      const key = `${direction} ${method}`;
      if (seen.has(key)) continue;
      const receiverCaps = direction === 'clientToServer' ? 'ServerCapabilities' : 'ClientCapabilities';
      const r: RequestDef = {
        method,
        direction,
        requestType: t,
        ...paramsOf(t),
        ...pairResult(t, method),
        capability: method === 'initialize' || method === 'ping' ? null : capabilityOf(defs, method, receiverCaps),
        taskAugmentable: !!propertyAt(defs, receiverCaps, ['tasks', 'requests', ...method.split('/')]),
        embedded,
      };
      if (r.taskAugmentable && defs[TASK_RESULT_TYPE] && !r.altResultTypes.includes(TASK_RESULT_TYPE))
        r.altResultTypes.push(TASK_RESULT_TYPE);
      r.altResultTypes.sort(byCodeUnit);
      seen.set(key, r);
      requests.push(r);
    }
  };

  function pairResult(requestType: string, method: string) {
    const base = requestType.replace(/Request$/, '');
    const over = RESULT_OVERRIDES.find(
      (o) => o.method === method && (!o.revisions || o.revisions.includes(input.revision)),
    );
    const alts: string[] = [];
    let resultType: string | undefined;
    let pairedBy: RequestDef['pairedBy'] = 'override';
    const rr = `${base}ResultResponse`;
    const resultResponseType = defs[rr] ? rr : null;
    if (over && defs[over.result]) {
      resultType = over.result;
    } else if (resultResponseType) {
      const res = propertyAt(defs, rr, []) && (defs[rr].properties as Record<string, JsonSchema> | undefined)?.result;
      const names = [refName(res), ...((res?.anyOf as unknown[] | undefined) ?? []).map(refName)].filter(
        (x): x is string => !!x,
      );
      const main = names.filter((n) => n !== INPUT_REQUIRED_RESULT_TYPE);
      if (main.length === 1) {
        resultType = main[0];
        pairedBy = 'resultResponse';
        alts.push(...names.filter((n) => n === INPUT_REQUIRED_RESULT_TYPE));
      }
    }
    if (!resultType) {
      const cat = decls.get(requestType)?.category;
      const byCat = cat
        ? [...decls.values()].filter(
            (d) =>
              d.category === cat &&
              /Result$/.test(d.name) &&
              defs[d.name] &&
              (results.size === 0 || results.has(d.name)),
          )
        : [];
      if (byCat.length === 1) {
        resultType = byCat[0].name;
        pairedBy = 'category';
      } else if (defs[`${base}Result`]) {
        resultType = `${base}Result`;
        pairedBy = 'name';
      }
    }
    if (!resultType) {
      // A revision nobody has seen yet must still generate: type the result as the base Result.
      const fallback = ['EmptyResult', 'Result'].find((n) => defs[n]);
      if (!fallback)
        throw new IngestError(
          tf,
          requestType,
          `cannot pair request ${method} with a result and the schema has no Result type`,
        );
      warnings.push(
        `${tf}: ${requestType}: no result type for ${method} (no ${rr}, no single @category result, no ${base}Result); typed as ${fallback} — add an entry to generator/overrides.ts if that is wrong`,
      );
      resultType = fallback;
      pairedBy = 'override';
    }
    return {
      resultType,
      altResultTypes: alts,
      resultResponseType,
      inputRequired: alts.includes(INPUT_REQUIRED_RESULT_TYPE),
      resultOfOriginalRequest: !!over?.resultOfOriginalRequest && pairedBy === 'override',
      pairedBy,
    };
  }

  addRequests('ClientRequest', 'clientToServer', false);
  addRequests('ServerRequest', 'serverToClient', false);
  addRequests('InputRequest', 'serverToClient', true);
  if (requests.length === 0)
    throw new IngestError(tf, 'ClientRequest', 'no request union found: is this an MCP schema.ts?');

  const notifications: NotificationDef[] = [];
  for (const [unionName, direction] of [
    ['ClientNotification', 'clientToServer'],
    ['ServerNotification', 'serverToClient'],
  ] as const) {
    for (const t of union(unionName)) {
      if (!defs[t]) {
        warnings.push(`${tf}: ${unionName} member ${t} has no schema.json definition; left out of the model`);
        continue;
      }
      const method = constOf(t, 'method');
      const receiverCaps = direction === 'clientToServer' ? 'ClientCapabilities' : 'ServerCapabilities';
      const senderGated =
        direction === 'serverToClient' && /list_changed$|^notifications\/(message|resources\/updated)$/.test(method);
      notifications.push({
        method,
        direction,
        notificationType: t,
        ...paramsOf(t),
        capability:
          senderGated || (direction === 'clientToServer' && /list_changed$/.test(method))
            ? capabilityOf(defs, method, receiverCaps)
            : null,
      });
    }
  }
  const order = (a: { direction: string; method: string }, b: { direction: string; method: string }) =>
    byCodeUnit(a.direction, b.direction) || byCodeUnit(a.method, b.method);
  requests.sort(order);
  notifications.sort(order);

  const types: Record<string, TypeDef> = {};
  for (const name of Object.keys(defs).sort(byCodeUnit)) {
    const d = decls.get(name);
    const schema = defs[name];
    const t: TypeDef = { name, schema: sortKeysDeep(schema) as JsonSchema };
    if (typeof schema.description === 'string') t.description = schema.description;
    if (d?.deprecated !== undefined) t.deprecated = d.deprecated;
    else if (schema.deprecated === true) t.deprecated = '';
    if (d?.category) t.category = d.category;
    if (d?.internal) t.internal = true;
    types[name] = t;
  }

  const errorCodes: Record<string, number> = {};
  const constants: Record<string, string | number> = {};
  for (const d of [...decls.values()].sort((a, b) => byCodeUnit(a.name, b.name))) {
    if (d.kind !== 'const' || d.value === undefined) continue;
    if (typeof d.value === 'number' && Number.isInteger(d.value) && d.value < 0) errorCodes[d.name] = d.value;
    else constants[d.name] = d.value;
  }
  // codes given by an error type and no constant (UnsupportedProtocolVersionError of the 2026-05-14 draft)
  Object.assign(errorCodes, errorCodesOfErrorTypes(defs, errorCodes));
  const protocolVersion = constants.LATEST_PROTOCOL_VERSION;
  if (typeof protocolVersion !== 'string')
    throw new IngestError(tf, 'LATEST_PROTOCOL_VERSION', 'missing exported string constant');

  const lifecycle = requests.some((r) => r.method === 'initialize') ? 'handshake' : 'stateless';
  const http = httpFacts(protocolVersion, lifecycle, warnings, tf);

  return {
    revision: input.revision,
    protocolVersion,
    lifecycle,
    http,
    dialect,
    inputs: {
      schemaJson: { path: jf, sha256: input.schemaJson.sha256, size: input.schemaJson.size },
      schemaTs: { path: tf, sha256: input.schemaTs.sha256, size: input.schemaTs.size },
      pinned: input.pinned,
      commit: input.commit,
    },
    types,
    requests,
    notifications,
    errorCodes,
    constants,
    loggingLevels: loggingLevelsOf(decls, defs, tf),
    warnings,
  };
}

/**
 * The `LoggingLevel` union of schema.ts in declaration order (the severity order the logging page
 * describes, least severe first). @throws IngestError when schema.ts and schema.json disagree on
 * the members.
 */
function loggingLevelsOf(decls: Map<string, TsDecl>, defs: Record<string, JsonSchema>, tf: string): string[] {
  const levels = decls.get('LoggingLevel')?.literals ?? [];
  const listed = defs.LoggingLevel?.enum;
  if (Array.isArray(listed) && [...listed].sort(byCodeUnit).join('\n') !== [...levels].sort(byCodeUnit).join('\n')) {
    throw new IngestError(
      tf,
      'LoggingLevel',
      `members ${JSON.stringify(levels)} differ from schema.json's enum ${JSON.stringify(listed)}`,
    );
  }
  return [...levels];
}

/** The HTTP facts of `protocolVersion` (overrides.ts); an unlisted version takes the newest listed of its lifecycle, with a warning. */
function httpFacts(
  protocolVersion: string,
  lifecycle: 'handshake' | 'stateless',
  warnings: string[],
  tf: string,
): HttpFacts {
  const known = Object.hasOwn(HTTP_FACTS, protocolVersion) ? HTTP_FACTS[protocolVersion] : undefined;
  if (known && known.lifecycle === lifecycle)
    return { transport: known.transport, primesStreams: known.primesStreams, assumedVersion: known.assumedVersion };
  const same = Object.keys(HTTP_FACTS).filter((v) => HTTP_FACTS[v].lifecycle === lifecycle);
  const from = same[same.length - 1];
  const f = HTTP_FACTS[from];
  warnings.push(
    `${tf}: no HTTP transport facts for protocol version ${protocolVersion} (${lifecycle}); using those of ${from} (generator/overrides.ts HTTP_FACTS)`,
  );
  return { transport: f.transport, primesStreams: f.primesStreams, assumedVersion: f.assumedVersion };
}

/**
 * Adds to `def` (in place) the primitive types schema.ts allows but schema.json lost:
 * `null`, and `number` where schema.json narrowed it to `integer`. Returns what it added.
 */
function patchPrimitives(def: JsonSchema, tsPrims: Set<string>): string[] {
  const holders: JsonSchema[] = [];
  const visit = (s: JsonSchema) => {
    if (s.type !== undefined) holders.push(s);
    for (const k of ['anyOf', 'oneOf'] as const)
      for (const x of (s[k] as JsonSchema[] | undefined) ?? []) if (!x.$ref) visit(x);
  };
  visit(def);
  if (holders.length === 0) return [];
  const present = new Set(holders.flatMap((h) => (Array.isArray(h.type) ? h.type : [h.type]) as string[]));
  const added: string[] = [];
  const target = holders[holders.length - 1];
  if (tsPrims.has('number') && !present.has('number') && present.has('integer')) {
    for (const h of holders) {
      if (Array.isArray(h.type)) h.type = (h.type as string[]).map((x) => (x === 'integer' ? 'number' : x));
      else if (h.type === 'integer') h.type = 'number';
    }
    added.push('non-integer numbers');
  }
  if (tsPrims.has('null') && !present.has('null')) {
    const now = (Array.isArray(target.type) ? target.type : [target.type]) as string[];
    target.type = [...now, 'null'];
    added.push('null');
  }
  return added;
}

/**
 * schema.json of some revisions writes `{@link CallToolRequest | tools/call}` as
 * `{@link CallToolRequesttools/call}`. Restores the separator (in place) where the link starts
 * with a known type name followed by more text; returns how many links it repaired.
 */
export function repairLinks(defs: Record<string, JsonSchema>, names: Set<string>): number {
  const sorted = [...names].sort((a, b) => b.length - a.length);
  let count = 0;
  const fix = (text: string) =>
    text.replace(/\{@link ([^}|]+)\}/g, (whole, body: string) => {
      if (names.has(body.trim())) return whole;
      // the lost text is a method name or code span: it starts with a lower-case letter or a backtick
      const name = sorted.find((n) => body.startsWith(n) && /^[a-z`]/.test(body.slice(n.length)));
      if (!name) return whole;
      count++;
      return `{@link ${name} | ${body.slice(name.length)}}`;
    });
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') {
      const o = v as JsonSchema;
      for (const [k, x] of Object.entries(o)) {
        if (k === 'description' && typeof x === 'string') o[k] = fix(x);
        else walk(x);
      }
    }
  };
  walk(defs);
  return count;
}

/** The primitive keywords of a schema.ts type (through unions and parentheses), and what it nests. */
function tsShape(node: ts.TypeNode): { prims: Set<string>; map?: ts.TypeNode; array?: ts.TypeNode } {
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

/**
 * Where a property of a schema.ts interface (own or inherited) allows `null`, or is a value
 * union allowing any number, and schema.json's definition of it lost that, widens the
 * definition in place, at any depth of maps and arrays. Named types (`$ref`) are left to their
 * own definition.
 */
function widenMembers(
  name: string,
  def: JsonSchema,
  decls: Map<string, TsDecl>,
): Array<{ member: string; at: string; added: string[] }> {
  const found: Array<{ member: string; at: string; added: string[] }> = [];
  const props = def.properties as Record<string, JsonSchema> | undefined;
  if (!props) return found;
  const seen = new Set<string>();
  const members: Array<{ name: string; type: ts.TypeNode }> = [];
  const collect = (n: string) => {
    if (seen.has(n)) return;
    seen.add(n);
    const d = decls.get(n);
    members.push(...(d?.members ?? []));
    for (const b of d?.bases ?? []) collect(b);
  };
  collect(name);
  const done = new Set<string>();
  for (const m of members) {
    if (done.has(m.name) || !Object.hasOwn(props, m.name)) continue;
    done.add(m.name);
    const walk = (type: ts.TypeNode, s: JsonSchema, at: string) => {
      if (!s || typeof s !== 'object' || s.$ref) return;
      const shape = tsShape(type);
      // schema.ts has no integer type: a lone `number` that schema.json makes `integer` (sizes,
      // counts, codes, ms) is a deliberate narrowing. A value union (`string | number | boolean`)
      // holds user data, and there `integer` loses numbers the user may give (95.5).
      const prims = new Set(shape.prims);
      if (!prims.has('string') && !prims.has('boolean')) prims.delete('number');
      const added = patchPrimitives(s, prims);
      if (added.length) found.push({ member: m.name, at, added });
      if (shape.map && s.additionalProperties && typeof s.additionalProperties === 'object')
        walk(shape.map, s.additionalProperties as JsonSchema, `${at}.additionalProperties`);
      if (shape.array && s.items && typeof s.items === 'object')
        walk(shape.array, s.items as JsonSchema, `${at}.items`);
    };
    walk(m.type, props[m.name], '');
  }
  return found;
}

/**
 * Every `$ref` of the definitions must name one of them (`#/$defs/Name`, or `#/definitions/Name`
 * in a draft-07 file): a dangling one is refused naming where it stands and the reference as the
 * file writes them (`definitions.X.anyOf[2].$ref: "#/definitions/Y"` in a draft-07 file).
 */
function checkRefs(root: JsonSchema, file: string): void {
  const key = root.$defs !== undefined ? '$defs' : 'definitions';
  const defs = root[key];
  if (!defs || typeof defs !== 'object') return; // normaliseDefs names what is missing
  const walk = (v: unknown, path: string): void => {
    if (Array.isArray(v))
      v.forEach((x, i) => {
        walk(x, `${path}[${i}]`);
      });
    else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        if (k === '$ref' && typeof x === 'string') {
          const target = /^#\/(\$defs|definitions)\//.test(x) ? x.slice(x.indexOf('/', 2) + 1) : undefined;
          if (!target || !Object.hasOwn(defs, target))
            throw new IngestError(file, `${path}.$ref`, `"${x}" names no definition in ${key}`);
        } else walk(x, `${path}.${k}`);
      }
    }
  };
  for (const [name, def] of Object.entries(defs)) walk(def, `${key}.${name}`);
}
