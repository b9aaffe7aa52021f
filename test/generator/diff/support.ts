/**
 * Shared pieces of the diff tests: where the upstream spec lives, models of pinned revisions and
 * draft snapshots (cached per run), the CLI in-process and as a real process, and small inline
 * models for rule tests.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { main } from '../../../cli/main.js';
import { ingestResolved } from '../../../generator/ingest.js';
import type { JsonSchema, NotificationDef, ProtocolModel, RequestDef } from '../../../generator/model.js';
import { resolvePinned, resolveUnpinned } from '../../../schema/resolve.js';

export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/** The upstream spec checkout (`MCP_SPEC_DIR`, else ../shared/mcp-spec beside the project). */
export const SPEC_DIR = resolve(ROOT, process.env.MCP_SPEC_DIR ?? '../shared/mcp-spec');
export const HISTORY_DIR = join(SPEC_DIR, 'history', 'draft');

/** Draft snapshot folders, oldest first (their names start with the date). */
export function draftSnapshots(): string[] {
  return readdirSync(HISTORY_DIR)
    .filter((n) => statSync(join(HISTORY_DIR, n)).isDirectory())
    .sort();
}

const cache = new Map<string, ProtocolModel>();
/** The model of a pinned revision id, or of a folder holding schema.json + schema.ts. */
export function modelFor(revOrDir: string): ProtocolModel {
  let m = cache.get(revOrDir);
  if (!m) {
    m = ingestResolved(
      revOrDir.includes('/') ? resolveUnpinned(revOrDir) : resolvePinned(revOrDir, { specDir: SPEC_DIR }),
    );
    cache.set(revOrDir, m);
  }
  return m;
}

export interface Run {
  code: number;
  out: string;
  err: string;
}

/** Runs `mcpgen <args>` in this process (the CLI's `main` with captured output). */
export async function run(args: string[]): Promise<Run> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/** Runs `bin/mcpgen.js <args>` as a child process; returns its exit code and output. */
export function spawnCli(args: string[]): Run {
  const r = spawnSync(process.execPath, [join(ROOT, 'bin', 'mcpgen.js'), ...args], {
    cwd: ROOT,
    env: { ...process.env, MCP_SPEC_DIR: SPEC_DIR },
    encoding: 'utf8',
  });
  return { code: r.status ?? -1, out: r.stdout, err: r.stderr };
}

// ---------------------------------------------------------------------------------------------
// Inline models

const ref = (name: string): JsonSchema => ({ $ref: `#/$defs/${name}` });
export { ref };

/** An object schema; `required` lists the required property names. */
export const obj = (
  properties: Record<string, JsonSchema>,
  required: string[] = [],
  extra: JsonSchema = {},
): JsonSchema => ({
  type: 'object',
  properties,
  ...(required.length ? { required } : {}),
  ...extra,
});

export interface MethodSpec {
  method: string;
  direction?: RequestDef['direction'];
  params?: JsonSchema;
  paramsRequired?: boolean;
  result?: JsonSchema;
  capability?: string[] | null;
  altResultTypes?: string[];
  embedded?: boolean;
}

/**
 * A small ProtocolModel: each request gets `<Name>Request`, `<Name>Params` and `<Name>Result`
 * types from `params` / `result`; `types` adds or replaces named types.
 */
export function tinyModel(spec: {
  revision?: string;
  requests?: MethodSpec[];
  notifications?: Array<{
    method: string;
    direction?: NotificationDef['direction'];
    params?: JsonSchema;
    capability?: string[] | null;
  }>;
  types?: Record<string, JsonSchema>;
  errorCodes?: Record<string, number>;
  lifecycle?: ProtocolModel['lifecycle'];
  protocolVersion?: string;
}): ProtocolModel {
  const types: ProtocolModel['types'] = {};
  const addType = (name: string, schema: JsonSchema) => (types[name] = { name, schema });
  const base = (method: string) =>
    method
      .split(/[/_]/)
      .map((s) => s.charAt(0).toUpperCase() + s.slice(1))
      .join('');
  const requests: RequestDef[] = (spec.requests ?? []).map((r) => {
    const n = base(r.method);
    const direction = r.direction ?? 'clientToServer';
    addType(`${n}Params`, r.params ?? obj({}));
    addType(`${n}Result`, r.result ?? obj({}));
    addType(
      `${n}Request`,
      obj(
        { method: { type: 'string', const: r.method }, params: ref(`${n}Params`) },
        r.paramsRequired === false ? ['method'] : ['method', 'params'],
      ),
    );
    return {
      method: r.method,
      direction,
      requestType: `${n}Request`,
      paramsType: `${n}Params`,
      hasParams: true,
      paramsRequired: r.paramsRequired !== false,
      resultType: `${n}Result`,
      altResultTypes: [...(r.altResultTypes ?? [])].sort(),
      resultResponseType: null,
      capability: r.capability ?? null,
      taskAugmentable: false,
      inputRequired: (r.altResultTypes ?? []).includes('InputRequiredResult'),
      embedded: r.embedded ?? false,
      resultOfOriginalRequest: false,
      pairedBy: 'name',
    };
  });
  const notifications: NotificationDef[] = (spec.notifications ?? []).map((x) => {
    const n = `${base(x.method)}Notification`;
    addType(`${n}Params`, x.params ?? obj({}));
    addType(n, obj({ method: { type: 'string', const: x.method }, params: ref(`${n}Params`) }, ['method']));
    return {
      method: x.method,
      direction: x.direction ?? 'serverToClient',
      notificationType: n,
      paramsType: `${n}Params`,
      hasParams: true,
      paramsRequired: false,
      capability: x.capability ?? null,
    };
  });
  for (const [k, v] of Object.entries(spec.types ?? {})) addType(k, v);
  const sorted: ProtocolModel['types'] = {};
  for (const k of Object.keys(types).sort()) sorted[k] = types[k];
  const order = (a: { direction: string; method: string }, b: { direction: string; method: string }) =>
    a.direction < b.direction
      ? -1
      : a.direction > b.direction
        ? 1
        : a.method < b.method
          ? -1
          : a.method > b.method
            ? 1
            : 0;
  const file = { path: 'inline', sha256: '', size: 0 };
  return {
    revision: spec.revision ?? 'inline',
    protocolVersion: spec.protocolVersion ?? '2099-01-01',
    lifecycle: spec.lifecycle ?? 'stateless',
    http: { transport: 'streamable-http', primesStreams: false, assumedVersion: null },
    dialect: 'https://json-schema.org/draft/2020-12/schema',
    inputs: { schemaJson: file, schemaTs: file, pinned: false, commit: null },
    types: sorted,
    requests: requests.sort(order),
    notifications: notifications.sort(order),
    errorCodes: spec.errorCodes ?? {},
    constants: {},
    warnings: [],
  };
}
