/**
 * The extension emitter: `(extension model, revision model, options) → files` under
 * `<name>/` of the revision's output folder (`generated/2025-11-25/apps/`), no I/O:
 * - `types.gen.ts`: the extension's types (as ../emit/types.ts writes a revision's);
 * - `validators.gen.js` (+ `.d.ts`): one validator per type and per message's params and result;
 * - `protocol.gen.ts`: the channel's method maps per direction and its runtime table
 *   (../emit/templates/extension-protocol.hbs), and the MCP types the extension rides on, typed for
 *   the revision (`AppTool`, `AppResource`, `AppClientCapabilities`, …);
 * - `index.ts`: the folder's public entry.
 * The MCP methods that travel on the channel come from ./overrides.ts `channel`, each taken only
 * when the revision has it, typed and validated as the revision says (their params validated on
 * the channel only where the revision does not require `_meta`: the host adds what its MCP client
 * sends).
 */
import { GENERATED_MARK, MCPGEN_VERSION, type EmitOptions, type Files, jsdoc, render } from '../emit/common.js';
import { emitTypes } from '../emit/types.js';
import { emitValidators, paramsValidatorName } from '../emit/validators.js';
import type { Direction, JsonSchema, NotificationDef, ProtocolModel, RequestDef } from '../model.js';
import { byCodeUnit, sha256, sortKeysDeep, stableJson } from '../util.js';
import { type ExtensionModel, asRevisionModel } from './model.js';
import { EXTENSION_PROFILES } from './overrides.js';

const q = (s: string) => `'${s}'`;
const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
type Def = RequestDef | NotificationDef;
const isRequest = (d: Def): d is RequestDef => 'requestType' in d;
const typeName = (d: Def) => (isRequest(d) ? d.requestType : d.notificationType);

const ANNOTATIONS = new Set(['description', 'title', '$comment', 'examples', 'deprecated', 'default']);
const NAME_MAPS = new Set(['properties', 'patternProperties', '$defs', 'dependentSchemas']);

/**
 * The model the validators are emitted from: each type's schema without annotations, every
 * object sub-schema that occurs more than once (MCP Apps' schema.json inlines the MCP types it
 * uses, ContentBlock and Tool among them, in every message) made one shared definition
 * `Shared_<8 hex of its sha256>` that the others reference, so it is compiled once; and
 * `format: "date-time"` dropped where a `pattern` beside it states the form (the runtime checks
 * no date-time format of its own; the pattern is what the schema's authors check).
 */
function validatorModel(ext: ExtensionModel): ProtocolModel {
  const strip = (v: unknown, inMap = false): unknown => {
    if (Array.isArray(v)) return v.map((x) => strip(x));
    if (!v || typeof v !== 'object') return v;
    const o: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      if (inMap) o[k] = strip(x);
      else if (!ANNOTATIONS.has(k)) o[k] = strip(x, NAME_MAPS.has(k));
    }
    if (!inMap && o.format === 'date-time' && typeof o.pattern === 'string') delete o.format;
    return o;
  };
  const stripped: Record<string, JsonSchema> = {};
  for (const [n, t] of Object.entries(ext.types)) stripped[n] = strip(t.schema) as JsonSchema;
  const key = (v: unknown) => JSON.stringify(sortKeysDeep(v));
  const counts = new Map<string, number>();
  const count = (v: unknown, inMap = false) => {
    if (Array.isArray(v)) {
      for (const x of v) count(x);
      return;
    }
    if (!v || typeof v !== 'object') return;
    if (!inMap) counts.set(key(v), (counts.get(key(v)) ?? 0) + 1);
    for (const [k, x] of Object.entries(v)) count(x, !inMap && NAME_MAPS.has(k));
  };
  for (const n of Object.keys(stripped).sort(byCodeUnit)) for (const x of Object.values(stripped[n])) count(x);
  const shared = new Map<string, { name: string; schema: JsonSchema }>();
  const share = (v: unknown, inMap = false): unknown => {
    if (Array.isArray(v)) return v.map((x) => share(x));
    if (!v || typeof v !== 'object') return v;
    const o: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) o[k] = share(x, !inMap && NAME_MAPS.has(k));
    if (inMap) return o;
    const k = key(v);
    if ((counts.get(k) ?? 0) < 2 || k.length < 80) return o;
    let s = shared.get(k);
    if (!s) {
      s = { name: `Shared_${sha256(k).slice(0, 8)}`, schema: o as JsonSchema };
      shared.set(k, s);
    }
    return { $ref: `#/$defs/${s.name}` };
  };
  const types: ProtocolModel['types'] = {};
  for (const n of Object.keys(stripped).sort(byCodeUnit)) {
    const top: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(stripped[n])) top[k] = share(x, NAME_MAPS.has(k));
    types[n] = { name: n, schema: top };
  }
  for (const s of shared.values()) types[s.name] = { name: s.name, schema: s.schema, internal: true };
  const sorted: ProtocolModel['types'] = {};
  for (const n of Object.keys(types).sort(byCodeUnit)) sorted[n] = types[n];
  return { ...asRevisionModel(ext), types: sorted };
}

/** 12 hex digits naming the inputs of both models. */
function combinedHash(ext: ExtensionModel, rev: ProtocolModel): string {
  return sha256(
    [rev.inputs.schemaJson.sha256, rev.inputs.schemaTs.sha256, ext.inputs.schemaJson.sha256, ext.inputs.typesTs.sha256]
      .map((h) => `${h}\n`)
      .join(''),
  ).slice(0, 12);
}

/** Whether the revision's params type of `r` requires `_meta` (stateless revisions). */
function requiresMeta(rev: ProtocolModel, r: RequestDef): boolean {
  let s: JsonSchema | undefined = rev.types[r.requestType]?.schema;
  s = (s?.properties as Record<string, JsonSchema> | undefined)?.params;
  for (let i = 0; typeof s?.$ref === 'string' && i < 16; i++) s = rev.types[s.$ref.replace('#/$defs/', '')]?.schema;
  return Array.isArray(s?.required) && s.required.includes('_meta');
}

/**
 * `<name>/model.json`: the extension model as stable JSON, its inputs named by sha256 and size
 * only, and its warnings naming them `schema.json` / `spec.types.d.ts` (where they were read from
 * is a fact of the machine, not of the inputs).
 */
export function extensionModelJson(ext: ExtensionModel): string {
  const { schemaJson, typesTs } = ext.inputs;
  const file = (f: typeof schemaJson) => ({ sha256: f.sha256, size: f.size });
  const unplaced = (w: string) =>
    w.split(schemaJson.path).join('schema.json').split(typesTs.path).join('spec.types.d.ts');
  return stableJson({
    ...ext,
    inputs: { ...ext.inputs, schemaJson: file(schemaJson), typesTs: file(typesTs) },
    warnings: ext.warnings.map(unplaced),
  });
}

/** The files of extension `ext` for revision `rev`, under `<ext.extension.name>/` (model.json: {@link extensionModelJson}). */
// size: an extension's emitted files, one part per file
export async function emitExtension(ext: ExtensionModel, rev: ProtocolModel, opts: EmitOptions): Promise<Files> {
  const name = ext.extension.name;
  const shim = asRevisionModel(ext);
  const out: Files = new Map();
  out.set(`${name}/model.json`, extensionModelJson(ext));
  const types = (await emitTypes(shim)).get('types.gen.ts')!;
  out.set(
    `${name}/types.gen.ts`,
    types.replace(
      /^(.*\n)\/\*\* Message and data types of MCP .*\*\/\n/,
      `$1/** Message and data types of the ${name} extension (${ext.extension.identifier}, ${ext.extension.package}@${ext.extension.version}). */\n`,
    ),
  );
  for (const [p, text] of emitValidators(validatorModel(ext), opts)) out.set(`${name}/${p}`, text);

  const profile = Object.hasOwn(EXTENSION_PROFILES, ext.extension.identifier)
    ? EXTENSION_PROFILES[ext.extension.identifier]
    : undefined;
  const { client, server } = ext.extension.parties;
  const short = (d: Direction) => (d === 'clientToServer' ? `${client} → ${server}` : `${server} → ${client}`);

  // the MCP methods of the revision that travel on the channel
  const mcpRequests: Array<{ d: Direction; r: RequestDef; capability: string[] | null }> = [];
  const mcpNotifications: Array<{ d: Direction; n: NotificationDef }> = [];
  const mcpNote: string[] = [];
  for (const d of ['clientToServer', 'serverToClient'] as const) {
    const wanted = profile?.channel.requests[d] ?? {};
    for (const method of Object.keys(wanted).sort(byCodeUnit)) {
      const r = rev.requests.find((x) => x.method === method);
      if (r) mcpRequests.push({ d, r, capability: wanted[method] });
    }
    for (const method of Object.keys(profile?.channel.notifications[d] ?? {}).sort(byCodeUnit)) {
      const n = rev.notifications.find((x) => x.method === method);
      if (n) mcpNotifications.push({ d, n });
    }
    const names = [
      ...mcpRequests.filter((x) => x.d === d).map((x) => x.r.method),
      ...mcpNotifications.filter((x) => x.d === d).map((x) => x.n.method),
    ];
    if (names.length) mcpNote.push(`${short(d)}: ${names.join(', ')}`);
  }
  const prefix = (side: 'client' | 'server') => cap(ext.extension.parties[side]);
  const mapName = (d: Direction, kind: 'Requests' | 'Notifications') =>
    `${prefix(d === 'clientToServer' ? 'client' : 'server')}${kind}`;

  const extEntry = (d: Def) => {
    const t = typeName(d);
    const doc: string[] = [];
    const desc = ext.types[t]?.description;
    if (desc) doc.push(desc, '');
    doc.push(`@see ${ext.revision} #/$defs/${t}`);
    if (ext.types[t]?.deprecated !== undefined) doc.push(`@deprecated ${ext.types[t].deprecated}`.trim());
    return {
      method: d.method,
      jsdoc: jsdoc(doc, '  '),
      params: d.hasParams ? `T.${t}['params']` : 'undefined',
      result: isRequest(d) ? `T.${d.resultType}` : '',
    };
  };
  const mcpEntry = (d: Def) => {
    const t = typeName(d);
    const doc: string[] = [];
    const desc = rev.types[t]?.description;
    if (desc) doc.push(desc, '');
    doc.push(`@see ${rev.revision} #/$defs/${t}`);
    return {
      method: d.method,
      jsdoc: jsdoc(doc, '  '),
      params: d.hasParams ? (isRequest(d) ? `OnChannel<R.${t}['params']>` : `R.${t}['params']`) : 'undefined',
      result: isRequest(d) ? `R.${d.resultType}` : '',
    };
  };
  const maps = (['clientToServer', 'serverToClient'] as const).flatMap((d) => [
    {
      name: mapName(d, 'Requests'),
      doc: `Requests the ${d === 'clientToServer' ? client : server} sends on the channel (${short(d)}).`,
      entries: [
        ...ext.requests.filter((r) => r.direction === d).map(extEntry),
        ...mcpRequests.filter((x) => x.d === d).map((x) => mcpEntry(x.r)),
      ].sort((a, b) => byCodeUnit(a.method, b.method)),
    },
    {
      name: mapName(d, 'Notifications'),
      doc: `Notifications the ${d === 'clientToServer' ? client : server} sends on the channel (${short(d)}).`,
      entries: [
        ...ext.notifications.filter((n) => n.direction === d).map(extEntry),
        ...mcpNotifications.filter((x) => x.d === d).map((x) => mcpEntry(x.n)),
      ].sort((a, b) => byCodeUnit(a.method, b.method)),
    },
  ]);

  const extTableEntry = (d: Def) => ({
    method: d.method,
    typeName: typeName(d),
    paramsType: 'null',
    resultTypes: isRequest(d) ? q(d.resultType) : '',
    paramsRequired: d.paramsRequired,
    params: d.hasParams ? `V.${paramsValidatorName(d)}` : '',
    result: isRequest(d) ? `V.${d.resultType}` : '',
    capability: d.capability ? d.capability.map(q).join(', ') : '',
  });
  const mcpTableEntry = (d: Def, capability: string[] | null) => {
    const p = paramsValidatorName(d);
    const checked = p && !(isRequest(d) && requiresMeta(rev, d));
    return {
      method: d.method,
      typeName: typeName(d),
      paramsType: d.paramsType ? q(d.paramsType) : 'null',
      resultTypes: isRequest(d) ? q(d.resultType) : '',
      paramsRequired: d.paramsRequired,
      params: checked ? `RV.${p}` : '',
      result: isRequest(d) ? `RV.${d.resultType}` : '',
      capability: capability ? capability.map(q).join(', ') : '',
    };
  };
  const groups = [
    {
      kind: 'requests',
      entryKind: 'request',
      directions: (['clientToServer', 'serverToClient'] as const).map((d) => ({
        direction: d,
        entries: [
          ...ext.requests.filter((r) => r.direction === d).map(extTableEntry),
          ...mcpRequests.filter((x) => x.d === d).map((x) => mcpTableEntry(x.r, x.capability)),
        ].sort((a, b) => byCodeUnit(a.method, b.method)),
      })),
    },
    {
      kind: 'notifications',
      entryKind: 'notification',
      directions: (['clientToServer', 'serverToClient'] as const).map((d) => ({
        direction: d,
        entries: [
          ...ext.notifications.filter((n) => n.direction === d).map(extTableEntry),
          ...mcpNotifications.filter((x) => x.d === d).map((x) => mcpTableEntry(x.n, null)),
        ].sort((a, b) => byCodeUnit(a.method, b.method)),
      })),
    },
  ];
  const head = `// ${GENERATED_MARK} ${MCPGEN_VERSION} from ${rev.revision} + ${ext.revision} (sha256 ${combinedHash(ext, rev)}) — do not edit`;
  const protocolName = `${cap(name)}Protocol`;
  const tableName = `${name}Table`;
  out.set(
    `${name}/protocol.gen.ts`,
    render('extension-protocol', {
      preamble: head,
      name,
      identifier: ext.extension.identifier,
      package: ext.extension.package,
      version: ext.extension.version,
      protocolVersion: ext.protocolVersion,
      revision: rev.revision,
      client,
      server,
      clientPrefix: prefix('client'),
      serverPrefix: prefix('server'),
      metaKey: ext.mcp.metaKey,
      mimeType: profile?.mimeType ?? '',
      runtimeImport: opts.runtimeImport,
      maps,
      protocolName,
      tableName,
      mcpNote,
      groups,
      errorCodes: Object.entries(rev.errorCodes)
        .sort(([a], [b]) => byCodeUnit(a, b))
        .map(([n, code]) => ({ name: n, code })),
      toolMeta: ext.mcp.toolMeta ?? '',
      resourceMeta: ext.mcp.resourceMeta ?? '',
      clientCapabilities: ext.mcp.clientCapabilities ?? '',
    }),
  );
  const exported = [
    ...maps.map((m) => `type ${m.name}`),
    `type ${protocolName}`,
    'type OnChannel',
    ...(ext.mcp.toolMeta ? ['type AppTool', 'type AppToolMeta'] : []),
    ...(ext.mcp.resourceMeta ? ['type AppResource', 'type AppResourceContents'] : []),
    ...(ext.mcp.clientCapabilities ? ['type AppClientCapabilities'] : []),
    'type AppServerCapabilities',
    'extension',
    tableName,
  ].sort((a, b) => byCodeUnit(a.replace(/^type /, ''), b.replace(/^type /, '')));
  out.set(
    `${name}/index.ts`,
    [
      head,
      `/** The ${name} extension (${ext.extension.identifier}) on MCP ${rev.revision}: types, validators, method maps, table. */`,
      "export type * from './types.gen.js';",
      "export * as validators from './validators.gen.js';",
      `export { ${exported.join(', ')} } from './protocol.gen.js';`,
      '',
    ].join('\n'),
  );
  return out;
}
