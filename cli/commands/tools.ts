/**
 * `mcpgen tools --stdio "<command>" | --url <url> --out <file> [--check] [--rev R]`: snapshots a
 * server's `tools/list` (every page) into a TypeScript module whose `typedTools(client)` has
 * `callTool(name, args)` typed per tool: the arguments by json-schema-to-ts' `FromSchema` of the
 * tool's `inputSchema`, `structuredContent` by its `outputSchema`, a property with a `default`
 * optional in both (the caller may leave it out; the server fills it in before its handler runs,
 * and nothing fills it in a result), type level only: the module holds the schemas `as const`. `--check` writes nothing: it compares a fresh snapshot with
 * `<file>` and exits 1 naming the tools added, removed or changed (0 when equal), for CI.
 *
 * The module is deterministic: tools sorted by name, object keys sorted, only what typing needs
 * (name, title, description, inputSchema, outputSchema); the server's name and version go in its
 * header comment. It imports nothing at run time (`import type` of json-schema-to-ts only).
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { StdioClientTransport } from '@mcpgen/runtime/stdio';
import { type Command, type Io, parseCommand } from '../command.js';
import { MCPGEN_VERSION } from '../../generator/emit/common.js';
import { connectFlags, describeFailure } from '../connect.js';
import { UsageError, prepareOutDir, writeOutFile } from '../inputs.js';
import { DEFAULT_REV, loadRevision } from '../revisions.js';
import { httpClientTransport } from '../serve/http.js';
import { isStateless, statelessClientTransport } from '../serve/stateless.js';

type Obj = Record<string, unknown>;

/** A tool as snapshotted: the members typing needs. */
export interface SnapshotTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Obj;
  outputSchema?: Obj;
}

/** Most pages of tools/list read before giving up (a server whose cursors never end). */
const MAX_PAGES = 1000;

/** `value` with object keys sorted at every level (arrays keep their order). */
function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (typeof value !== 'object' || value === null) return value;
  const out: Obj = {};
  for (const k of Object.keys(value).sort())
    Object.defineProperty(out, k, {
      value: sorted((value as Obj)[k]),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  return out;
}

/** The tools of a `tools/list` answer as snapshotted, sorted by name. */
export function snapshotTools(tools: readonly Obj[]): SnapshotTool[] {
  return tools
    .map((t) => {
      const s: SnapshotTool = { name: String(t.name), inputSchema: (t.inputSchema ?? { type: 'object' }) as Obj };
      if (typeof t.title === 'string') s.title = t.title;
      if (typeof t.description === 'string') s.description = t.description;
      if (t.outputSchema !== undefined) s.outputSchema = t.outputSchema as Obj;
      return s;
    })
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The snapshot module's text for `tools` of `server` (`serverInfo`). Pure and deterministic. */
export function snapshotModule(server: { name?: unknown; version?: unknown }, tools: readonly SnapshotTool[]): string {
  const byName: Obj = {};
  for (const t of tools)
    Object.defineProperty(byName, t.name, { value: sorted(t), enumerable: true, writable: true, configurable: true });
  return (
    `// Tools of ${String(server.name ?? '(unnamed server)')} ${String(server.version ?? '')}`.trimEnd() +
    `, snapshotted by \`mcpgen tools\`: do not edit.
// \`mcpgen tools … --out <this file> --check\` fails when the server's tools differ.
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';

/** The server's tools (\`tools/list\`), by name. */
export const tools = ${JSON.stringify(byName, null, 2)} as const;

type Tools = typeof tools;
/** What a schema describes, a property with a \`default\` optional: a caller may leave it out, and a result need not carry it. */
type Typed<S, Fallback> = S extends JSONSchema ? (unknown extends FromSchema<S> ? Fallback : FromSchema<S, { keepDefaultedPropertiesOptional: true }>) : Fallback;

/** The tool names. */
export type ToolName = keyof Tools & string;
/** Each tool's arguments, from its \`inputSchema\`. */
export type ToolArguments = { [N in ToolName]: Tools[N] extends { inputSchema: infer S } ? Typed<S, Record<string, unknown>> : Record<string, unknown> };
/** Each tool's \`structuredContent\`, from its \`outputSchema\` (\`unknown\` without one). */
export type ToolStructuredContent = { [N in ToolName]: Tools[N] extends { outputSchema: infer S } ? Typed<S, unknown> : unknown };

/** What \`typedTools\` needs of a client: a generated \`Client\`'s \`callTool\`. */
export interface ToolCaller {
  callTool(params: { name: string; arguments?: Record<string, unknown> }, options?: never): Promise<{ structuredContent?: unknown }>;
}
type Options<C extends ToolCaller> = Parameters<C['callTool']>[1];
type Result<C extends ToolCaller, N extends ToolName> = Omit<Awaited<ReturnType<C['callTool']>>, 'structuredContent'> & { structuredContent?: ToolStructuredContent[N] };

/** \`client\` with \`callTool(name, args, options?)\` typed per tool of this snapshot. */
export function typedTools<C extends ToolCaller>(client: C): {
  callTool<N extends ToolName>(name: N, args: ToolArguments[N], options?: Options<C>): Promise<Result<C, N>>;
} {
  return {
    callTool: (name, args, options) => client.callTool({ name, arguments: args as Record<string, unknown> }, options as never) as never,
  };
}
`
  );
}

/** Tool names added, removed and changed between two snapshots (`mcpgen tools --check`). */
export function snapshotDrift(
  before: readonly SnapshotTool[],
  after: readonly SnapshotTool[],
): { added: string[]; removed: string[]; changed: string[] } {
  const a = new Map(before.map((t) => [t.name, JSON.stringify(sorted(t))]));
  const b = new Map(after.map((t) => [t.name, JSON.stringify(sorted(t))]));
  return {
    added: [...b.keys()].filter((n) => !a.has(n)),
    removed: [...a.keys()].filter((n) => !b.has(n)),
    changed: [...b.keys()].filter((n) => a.has(n) && a.get(n) !== b.get(n)),
  };
}

/** The tools a snapshot module holds (its `tools` constant), or undefined when `text` is no snapshot. */
export function readSnapshot(text: string): SnapshotTool[] | undefined {
  const m = /export const tools = (\{[\s\S]*?\n\}) as const;/.exec(text);
  if (!m) return undefined;
  try {
    return Object.values(JSON.parse(m[1]) as Record<string, SnapshotTool>);
  } catch {
    return undefined;
  }
}

export const tools: Command = {
  name: 'tools',
  summary: "snapshots a server's tools into a TypeScript module typed per tool",
  usage: ['tools --stdio "<command>"|--url <url> --out <file> [--check] [--rev <id>] [--timeout MS]'],
  description: [
    'Connects like call (--stdio "<command>" or --url, --rev), reads every page of tools/list and',
    'writes --out <file>: a TypeScript module of the tools (sorted, schemas as const) whose',
    'typedTools(client).callTool(name, args) is typed per tool (arguments from inputSchema,',
    'structuredContent from outputSchema, through json-schema-to-ts). --check writes nothing: it',
    'exits 1 naming the tools added, removed or changed when the file differs from a fresh snapshot',
    '(0 when equal), for CI.',
  ],
  flags: [
    { name: 'stdio', value: '"<command>"', meaning: 'the server command line to spawn (quoted as one argument)' },
    { name: 'url', value: '<url>', meaning: 'the Streamable HTTP endpoint of a running server' },
    { name: 'out', value: '<file>', meaning: 'the snapshot module to write (with --check: to compare)' },
    { name: 'check', meaning: 'write nothing: compare a fresh snapshot with --out' },
    { name: 'rev', value: '<id>', default: DEFAULT_REV, meaning: 'the revision to speak' },
    { name: 'timeout', value: 'MS', default: '60000', meaning: 'bound on each request, the handshake included' },
  ],
  config: [],
  examples: [
    'tools --stdio "node server.js" --out src/tools.gen.ts',
    'tools --url http://127.0.0.1:8080/mcp --out src/tools.gen.ts --check',
  ],
  exitCodes: [
    [0, 'the snapshot was written, or (--check) matches'],
    [1, 'tools/list failed, or (--check) the snapshot is out of date or unreadable'],
    [2, 'usage error: neither or both of --stdio and --url, no --out'],
    [3, 'the --out file cannot be written'],
  ],
  run,
};

async function run(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommand(tools, args);
  if (positionals.length) throw new UsageError(`unexpected arguments: ${positionals.join(' ')}`);
  const { url, command, timeout } = connectFlags('tools', values);
  const out = values.out as string | undefined;
  if (!out) throw new UsageError('tools needs --out <file> (the snapshot module to write, or with --check to compare)');
  // before connecting: a folder the snapshot cannot be written into is said at once
  if (!values.check) prepareOutDir(`--out ${out}`, dirname(resolve(out)));
  const mod = await loadRevision((values.rev as string | undefined) ?? DEFAULT_REV);
  const client = new mod.Client({ clientInfo: { name: 'mcpgen-tools', version: MCPGEN_VERSION }, timeout });
  const transport = url
    ? isStateless(mod)
      ? statelessClientTransport(url)
      : httpClientTransport(url)
    : new StdioClientTransport({ command: command!.cmd, args: command!.args, stderr: 'inherit' });
  let listed: Obj[] = [];
  let server: { name?: unknown; version?: unknown } = {};
  try {
    const info = (await client.connect(transport)) as
      | { serverInfo?: { name?: unknown; version?: unknown } }
      | undefined;
    server = info?.serverInfo ?? {};
    let cursor: string | undefined;
    for (let page = 0; ; page++) {
      if (page === MAX_PAGES) throw new Error(`tools/list returned more than ${MAX_PAGES} pages`);
      const r = (await client.request('tools/list' as never, (cursor === undefined ? {} : { cursor }) as never)) as {
        tools: Obj[];
        nextCursor?: string;
      };
      listed = listed.concat(r.tools);
      if (typeof r.nextCursor !== 'string') break;
      cursor = r.nextCursor;
    }
  } catch (e) {
    io.err(`mcpgen tools: tools/list failed: ${describeFailure(e, url)}`);
    return 1;
  } finally {
    await client.close().catch(() => undefined);
  }
  const snapshot = snapshotTools(listed);
  const text = snapshotModule(server, snapshot);
  if (!values.check) {
    writeOutFile('--out', out, text);
    io.out(`mcpgen tools: ${snapshot.length} tool(s) of ${String(server.name ?? 'the server')} written to ${out}`);
    return 0;
  }
  let current: string;
  try {
    current = readFileSync(out, 'utf8');
  } catch (e) {
    io.err(`mcpgen tools --check: cannot read ${out}: ${(e as Error).message}`);
    return 1;
  }
  if (current === text) {
    io.out(`mcpgen tools --check: ${out} matches the server's ${snapshot.length} tool(s)`);
    return 0;
  }
  const before = readSnapshot(current);
  if (!before) {
    io.err(`mcpgen tools --check: ${out} is not a snapshot written by mcpgen tools`);
    return 1;
  }
  const d = snapshotDrift(before, snapshot);
  const parts = [
    d.added.length && `added ${d.added.join(', ')}`,
    d.removed.length && `removed ${d.removed.join(', ')}`,
    d.changed.length && `changed ${d.changed.join(', ')}`,
  ].filter(Boolean);
  io.err(
    `mcpgen tools --check: ${out} is out of date (${parts.length ? parts.join('; ') : 'the server name or version, or the file was edited'}); rerun without --check to refresh it`,
  );
  return 1;
}
