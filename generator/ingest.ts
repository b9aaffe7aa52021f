/**
 * ingest: schema.json + schema.ts of one revision → ProtocolModel.
 *
 * Everything is derived from the two inputs: methods from each request's `method.const`,
 * directions from the Client… and Server… unions (and InputRequest, 2026-07-28+), request ↔ result
 * pairing from the `*ResultResponse` types, then the `@category` JSDoc tag, then the name; the
 * few exceptions live in ./overrides.ts. Throws IngestError naming the file and field on input
 * it cannot read.
 *
 * The passes live in ./ingest/: schema-ts.ts reads schema.ts, defs.ts reads and reconciles
 * schema.json's definitions, methods.ts derives the requests and notifications; this file runs
 * them in order and assembles the model.
 */
import type { HttpFacts, JsonSchema, ProtocolModel, TypeDef } from './model.js';
import { HTTP_FACTS } from './overrides.js';
import { byCodeUnit, sortKeysDeep } from './util.js';
import { IngestError } from './ingest-error.js';
import { checkMetaSchema } from './meta-schema.js';
import { errorCodesOfErrorTypes } from './runtime-facts.js';
import type { ResolvedRevision } from '../schema/resolve.js';
import { checkTsSyntax, readSchemaTs, type TsDecl } from './ingest/schema-ts.js';
import { checkRefs, normaliseDefs, reconcile } from './ingest/defs.js';
import { notificationsOf, requestsOf } from './ingest/methods.js';

export { IngestError };
export { readSchemaTs } from './ingest/schema-ts.js';
export { repairLinks } from './ingest/defs.js';

export interface IngestInput {
  revision: string;
  schemaJson: { path: string; text: string; sha256: string; size: number };
  schemaTs: { path: string; text: string; sha256: string; size: number };
  pinned: boolean;
  commit: string | null;
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

/** Ingests one revision: reads both inputs, reconciles them, derives methods, types and constants. */
export function ingest(input: IngestInput): ProtocolModel {
  const jf = input.schemaJson.path;
  const tf = input.schemaTs.path;
  const root = parseSchemaJson(input.schemaJson.text, jf);
  const dialect = typeof root.$schema === 'string' ? root.$schema : 'https://json-schema.org/draft/2020-12/schema';
  checkRefs(root, jf);
  const defs = normaliseDefs(root, jf);
  checkTsSyntax(input.schemaTs.text, tf);
  const decls = readSchemaTs(input.schemaTs.text, tf);
  const warnings = reconcile(defs, decls, jf, tf);

  const ctx = { revision: input.revision, defs, decls, jf, tf, warnings };
  const requests = requestsOf(ctx);
  const notifications = notificationsOf(ctx);
  const types = typesOf(defs, decls);
  const { errorCodes, constants } = constantsOf(decls, defs);
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

/** schema.json parsed and checked against its meta-schema. @throws IngestError naming the file when it is not a JSON object. */
function parseSchemaJson(text: string, jf: string): JsonSchema {
  let root: JsonSchema;
  try {
    root = JSON.parse(text) as JsonSchema;
  } catch (e) {
    throw new IngestError(jf, '(whole file)', `not valid JSON: ${(e as Error).message}`);
  }
  if (!root || typeof root !== 'object' || Array.isArray(root))
    throw new IngestError(jf, '(root)', 'not a JSON object');
  checkMetaSchema(root, jf);
  return root;
}

/** Every definition as a model type (schema keys sorted), with its description, deprecation, category and internal flag. */
function typesOf(defs: Record<string, JsonSchema>, decls: Map<string, TsDecl>): Record<string, TypeDef> {
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
  return types;
}

/** schema.ts's exported constants: negative integers are error codes (with those only an error type gives), the rest constants. */
function constantsOf(decls: Map<string, TsDecl>, defs: Record<string, JsonSchema>) {
  const errorCodes: Record<string, number> = {};
  const constants: Record<string, string | number> = {};
  for (const d of [...decls.values()].sort((a, b) => byCodeUnit(a.name, b.name))) {
    if (d.kind !== 'const' || d.value === undefined) continue;
    if (typeof d.value === 'number' && Number.isInteger(d.value) && d.value < 0) errorCodes[d.name] = d.value;
    else constants[d.name] = d.value;
  }
  // codes given by an error type and no constant (UnsupportedProtocolVersionError of the 2026-05-14 draft)
  Object.assign(errorCodes, errorCodesOfErrorTypes(defs, errorCodes));
  return { errorCodes, constants };
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
