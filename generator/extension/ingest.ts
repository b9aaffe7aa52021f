/**
 * ingest for extensions: an extension's `schema.json` + `spec.types.d.ts` (see
 * ../../schema/extensions.ts) → ExtensionModel.
 *
 * Derived from the inputs:
 * - types: every `$defs` entry. Each entry of MCP Apps' schema.json is a standalone schema (its
 *   own `$schema`, and `$defs` of its own that its `$ref`s are relative to); those local
 *   definitions are hoisted into the model under `<Entry>_<local>` (identical ones once, under
 *   the first such name) and the references rewritten, with a warning naming each.
 * - messages: every definition whose `method` member is a string `const`. A `…Request` is a
 *   request, paired with the `…Result` of the same base name; one without such a type gets
 *   `Result` (any result object, added to the model when absent, with a warning). A
 *   `…Notification` is a notification.
 * - directions: from each message's declaration in spec.types.d.ts: `(View -> Host)`,
 *   `from View to Host`, or a `{@link app!App.x}` / `{@link app-bridge!AppBridge.x}` reference
 *   naming the class that sends it, the client side being the party that sends the initialize
 *   request; else ./overrides.ts; else both directions, with a warning.
 * - capability gates: a request is gated by the receiver's capability named after the method's
 *   last segment in camelCase (`ui/open-link` → `openLinks` or `openLink`), when its
 *   capabilities type has one.
 * - what rides on MCP: the `…ToolMeta`, `…ResourceMeta` and `…ClientCapabilities` types.
 * Throws IngestError naming the file and field on input it cannot read.
 */
import ts from 'typescript';
import type { ResolvedExtension } from '../../schema/extensions.js';
import { IngestError } from '../ingest-error.js';
import type { Direction, JsonSchema, NotificationDef, RequestDef, TypeDef } from '../model.js';
import { byCodeUnit, sortKeysDeep } from '../util.js';
import type { ExtensionModel } from './model.js';
import { EXTENSION_PROFILES } from './overrides.js';

interface Decl {
  /** The declaration's doc: its comment and every tag's text, joined. */
  doc: string;
  /** The `@description` tag's text, else the comment. */
  description: string;
  deprecated?: string;
  internal: boolean;
  value?: string | number;
}

/** Exported declarations of the `.d.ts` with their docs, and constants with literal values. */
function readDeclarations(text: string, file: string): Map<string, Decl> {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const out = new Map<string, Decl>();
  const docOf = (n: ts.Node): Decl => {
    const parts: string[] = [];
    let description = '';
    let deprecated: string | undefined;
    let internal = false;
    for (const d of ts.getJSDocCommentsAndTags(n)) {
      if (!ts.isJSDoc(d)) continue;
      // the raw text: `@see {@link app!App.openLink} for the method that sends this` keeps its link
      parts.push(d.getText(sf));
      description ||= (ts.getTextOfJSDocComment(d.comment) ?? '').trim();
      for (const tag of d.tags ?? []) {
        const t = (ts.getTextOfJSDocComment(tag.comment) ?? '').trim();
        if (tag.tagName.text === 'description') description = t;
        else if (tag.tagName.text === 'deprecated') deprecated = t;
        else if (tag.tagName.text === 'internal') internal = true;
      }
    }
    return { doc: parts.join('\n'), description, deprecated, internal };
  };
  for (const st of sf.statements) {
    const exported =
      ts.canHaveModifiers(st) && (ts.getModifiers(st) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
    if (!exported) continue;
    if (ts.isInterfaceDeclaration(st) || ts.isTypeAliasDeclaration(st)) out.set(st.name.text, docOf(st));
    else if (ts.isVariableStatement(st)) {
      for (const v of st.declarationList.declarations) {
        if (!ts.isIdentifier(v.name) || !v.initializer) continue;
        const init = v.initializer;
        const value = ts.isStringLiteral(init) ? init.text : ts.isNumericLiteral(init) ? Number(init.text) : undefined;
        if (value !== undefined) out.set(v.name.text, { ...docOf(st), value });
      }
    }
  }
  return out;
}

const LOCAL_REF = /^#\/\$defs\/([^/]+)$/;

/**
 * The definitions with each entry's own `$defs` hoisted (see the module comment) and `$schema`
 * keywords dropped; `warnings` gets one line per hoisted definition.
 */
function hoistLocalDefs(
  defs: Record<string, JsonSchema>,
  file: string,
  warnings: string[],
): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {};
  const byContent = new Map<string, string>();
  const hoisted: Array<[string, string, JsonSchema]> = [];
  for (const name of Object.keys(defs).sort(byCodeUnit)) {
    const def = defs[name];
    if (!def || typeof def !== 'object' || Array.isArray(def))
      throw new IngestError(file, `$defs.${name}`, 'not a schema object');
    const locals = (def.$defs ?? {}) as Record<string, JsonSchema>;
    const rename = new Map<string, string>();
    for (const local of Object.keys(locals).sort(byCodeUnit)) {
      // the content with its own references written relative to the entry (as they are)
      const key = JSON.stringify(sortKeysDeep(locals[local]));
      const known = byContent.get(key);
      const target = known ?? `${name}_${local.replace(/^_+/, '')}`;
      if (!known) {
        byContent.set(key, target);
        hoisted.push([name, local, locals[local]]);
      }
      rename.set(local, target);
      warnings.push(
        `${file}: $defs.${name}.$defs.${local}: a definition local to ${name} (its $refs are relative to ${name}); hoisted as ${target}`,
      );
    }
    const fix = (v: unknown, at: string): unknown => {
      if (Array.isArray(v)) return v.map((x, i) => fix(x, `${at}[${i}]`));
      if (!v || typeof v !== 'object') return v;
      const o: JsonSchema = {};
      for (const [k, x] of Object.entries(v)) {
        if (k === '$schema' || k === '$defs') continue;
        if (k === '$ref' && typeof x === 'string') {
          const m = LOCAL_REF.exec(x);
          const local = m?.[1];
          if (local !== undefined && rename.has(local)) o[k] = `#/$defs/${rename.get(local)}`;
          else if (local !== undefined && Object.hasOwn(defs, local)) o[k] = x;
          else throw new IngestError(file, `${at}.$ref`, `"${x}" names no definition of ${name} or of the file`);
        } else o[k] = fix(x, `${at}.${k}`);
      }
      return o;
    };
    out[name] = fix(def, `$defs.${name}`) as JsonSchema;
    for (const [owner, local, schema] of hoisted.splice(0)) {
      const target = rename.get(local)!;
      if (owner === name) out[target] = fix(schema, `$defs.${name}.$defs.${local}`) as JsonSchema;
    }
  }
  return out;
}

const memberConst = (def: JsonSchema, member: string): string | undefined => {
  const p = (def.properties as Record<string, JsonSchema> | undefined)?.[member];
  return typeof p?.const === 'string' ? p.const : undefined;
};

/** `ui/open-link` → `openLink`. */
const camelTail = (method: string): string =>
  (method.split('/').pop() ?? '').replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());

/** The direction a message's declaration states, or undefined. `client`: the side that sends the initialize request. */
function statedDirection(doc: string, parties: { client: string; server: string }): Direction | undefined {
  const norm = (s: string) => s.toLowerCase();
  const client = norm(parties.client);
  const server = norm(parties.server);
  const from = (a: string): Direction | undefined =>
    norm(a) === client ? 'clientToServer' : norm(a) === server ? 'serverToClient' : undefined;
  const arrow =
    /\(\s*([A-Za-z]+)\s*->\s*([A-Za-z]+)\s*\)/.exec(doc) ??
    /\bfrom (?:the )?([A-Za-z]+) to (?:the )?([A-Za-z]+)\b/i.exec(doc);
  if (arrow && from(arrow[1]) && from(arrow[2]) && from(arrow[1]) !== from(arrow[2])) return from(arrow[1]);
  // `@see {@link app!App.openLink} for the method that sends this`: the class that sends it
  const link = /\{@link\s+([a-z-]+)!([A-Za-z]+)\.[A-Za-z]+/.exec(doc);
  if (link && /\bsends?\b/.test(doc)) {
    if (link[2] === 'App') return 'clientToServer';
    if (link[2] === 'AppBridge') return 'serverToClient';
  }
  return undefined;
}

/** Ingests the resolved inputs of an extension (../../schema/extensions.ts) into its model. */
// size: an extension's ingest, step by step
export function ingestExtension(r: ResolvedExtension): ExtensionModel {
  const jf = r.files['schema.json'].path;
  const tf = r.files['spec.types.d.ts'].path;
  let root: JsonSchema;
  try {
    root = JSON.parse(r.files['schema.json'].text) as JsonSchema;
  } catch (e) {
    throw new IngestError(jf, '(whole file)', `not valid JSON: ${(e as Error).message}`);
  }
  if (!root || typeof root !== 'object' || Array.isArray(root))
    throw new IngestError(jf, '(root)', 'not a JSON object');
  const rawDefs = (root.$defs ?? root.definitions) as Record<string, JsonSchema> | undefined;
  if (!rawDefs || typeof rawDefs !== 'object' || Array.isArray(rawDefs))
    throw new IngestError(jf, '$defs', 'no $defs (or definitions) object');
  const warnings: string[] = [];
  const defs = hoistLocalDefs(rawDefs, jf, warnings);
  const decls = readDeclarations(r.files['spec.types.d.ts'].text, tf);
  const profile = Object.hasOwn(EXTENSION_PROFILES, r.identifier) ? EXTENSION_PROFILES[r.identifier] : undefined;
  if (!profile)
    warnings.push(
      `${r.identifier}: no profile in generator/extension/overrides.ts: parties named client and server, no _meta member`,
    );
  const parties = profile?.parties ?? { client: 'client', server: 'server' };

  const types: Record<string, TypeDef> = {};
  for (const name of Object.keys(defs).sort(byCodeUnit)) {
    const schema = defs[name];
    const d = decls.get(name);
    const description = d?.description || (typeof schema.description === 'string' ? schema.description : '');
    const t: TypeDef = { name, schema, ...(description ? { description } : {}) };
    if (d?.deprecated !== undefined) t.deprecated = d.deprecated;
    if (d?.internal) t.internal = true;
    types[name] = t;
  }

  const capsOf = (side: 'client' | 'server'): string | null => {
    const n = profile?.capabilityTypes[side];
    return n && Object.hasOwn(types, n) ? n : null;
  };
  const capabilityTypes = { client: capsOf('client'), server: capsOf('server') };
  const gate = (method: string, receiver: string | null): string[] | null => {
    if (!receiver) return null;
    const props = (types[receiver].schema.properties ?? {}) as Record<string, unknown>;
    const tail = camelTail(method);
    const key = [`${tail}s`, tail].find((k) => k && Object.hasOwn(props, k));
    return key ? [key] : null;
  };

  const requests: RequestDef[] = [];
  const notifications: NotificationDef[] = [];
  for (const name of Object.keys(types)) {
    const def = types[name].schema;
    const method = memberConst(def, 'method');
    if (method === undefined) continue;
    const kind = /Request$/.test(name) ? 'request' : /Notification$/.test(name) ? 'notification' : undefined;
    if (!kind) {
      warnings.push(
        `${jf}: $defs.${name}: has a method (${method}) but is named neither …Request nor …Notification; left out`,
      );
      continue;
    }
    const over = profile && Object.hasOwn(profile.directions, method) ? profile.directions[method] : undefined;
    const stated = statedDirection(decls.get(name)?.doc ?? '', parties);
    let directions: Direction[];
    if (stated) directions = [stated];
    else if (over) {
      directions = [over.direction];
      warnings.push(`${tf}: ${name}: no direction stated; ${over.why} (generator/extension/overrides.ts)`);
    } else {
      directions = ['clientToServer', 'serverToClient'];
      warnings.push(
        `${tf}: ${name}: no direction stated (neither "(A -> B)" nor a link to the sending class); taken as both`,
      );
    }
    const params = (def.properties as Record<string, JsonSchema>).params;
    const hasParams = params !== undefined;
    const paramsRequired = Array.isArray(def.required) && def.required.includes('params');
    for (const direction of directions) {
      const receiverCaps = direction === 'clientToServer' ? capabilityTypes.server : capabilityTypes.client;
      if (kind === 'notification') {
        notifications.push({
          method,
          direction,
          notificationType: name,
          paramsType: null,
          hasParams,
          paramsRequired,
          capability: null,
        });
        continue;
      }
      const base = name.replace(/Request$/, '');
      let resultType = `${base}Result`;
      if (!Object.hasOwn(types, resultType)) {
        resultType = 'Result';
        warnings.push(`${jf}: $defs.${name}: no ${base}Result; its result is typed as Result (any result object)`);
      }
      requests.push({
        method,
        direction,
        requestType: name,
        paramsType: null,
        hasParams,
        paramsRequired,
        resultType,
        altResultTypes: [],
        resultResponseType: null,
        capability: /initialize$/.test(method) ? null : gate(method, receiverCaps),
        taskAugmentable: false,
        inputRequired: false,
        embedded: false,
        resultOfOriginalRequest: false,
        pairedBy: resultType === 'Result' ? 'override' : 'name',
      });
    }
  }
  if (requests.some((q) => q.resultType === 'Result') && !Object.hasOwn(types, 'Result')) {
    types.Result = {
      name: 'Result',
      schema: { type: 'object', additionalProperties: {} },
      description: 'A result object whose members the extension does not define (JSON-RPC `result`).',
    };
  }
  const order = (a: { direction: string; method: string }, b: { direction: string; method: string }) =>
    byCodeUnit(a.direction, b.direction) || byCodeUnit(a.method, b.method);
  requests.sort(order);
  notifications.sort(order);

  const suffixed = (suffix: string): string | null => {
    const found = Object.keys(types).filter((n) => n.endsWith(suffix));
    return found.length === 1 ? found[0] : null;
  };
  const constants: Record<string, string | number> = {};
  for (const [n, d] of decls) if (d.value !== undefined) constants[n] = d.value;
  const protocolVersion =
    typeof constants.LATEST_PROTOCOL_VERSION === 'string' ? constants.LATEST_PROTOCOL_VERSION : r.version;
  const sortedTypes: Record<string, TypeDef> = {};
  for (const n of Object.keys(types).sort(byCodeUnit)) sortedTypes[n] = types[n];
  const file = (f: ResolvedExtension['files']['schema.json']) => ({ path: f.path, sha256: f.sha256, size: f.size });
  return {
    extension: {
      name: r.name,
      identifier: r.identifier,
      package: r.package,
      version: r.version,
      parties,
      capabilityTypes,
    },
    revision: `${r.name}@${r.version}`,
    protocolVersion,
    lifecycle: 'handshake',
    dialect: typeof root.$schema === 'string' ? root.$schema : 'https://json-schema.org/draft/2020-12/schema',
    inputs: { schemaJson: file(r.files['schema.json']), typesTs: file(r.files['spec.types.d.ts']), pinned: r.pinned },
    types: sortedTypes,
    requests,
    notifications,
    errorCodes: {},
    constants,
    mcp: {
      metaKey: profile?.metaKey ?? '',
      toolMeta: profile ? suffixed('ToolMeta') : null,
      resourceMeta: profile ? suffixed('ResourceMeta') : null,
      clientCapabilities: suffixed('ClientCapabilities'),
    },
    warnings,
  };
}
