/**
 * The conformance client: a small program over the generated 2025-11-25 Client and the
 * Streamable HTTP client transport, run by `conformance client --command "<cmd>"`. The suite
 * passes the server URL as the last argument, the scenario in MCP_CONFORMANCE_SCENARIO and its
 * data in MCP_CONFORMANCE_CONTEXT. test/conformance/run.ts bundles it to one JavaScript file
 * first (the suite runs scenarios in parallel and checks timings).
 *
 * With `--rev 2026-07-28` (before the URL) it speaks that revision instead: the generated
 * 2026-07-28 Client over the stateless transport, which answers `input_required` rounds with
 * the same handlers (and roots/list); a scenario's `toolCalls` context names the calls to make.
 *
 * Every scenario: initialize, list the tools (when the server declares them), call each tool the scenario's server offers (with
 * arguments its input schema asks for; an object argument `schema` gets another listed tool's
 * input schema), end the session. Elicitation requests are accepted
 * with the defaults of the requested schema; sampling answers with a fixed text. Scenarios
 * under `auth/` go through ./oauth.ts (the runtime's OAuth client). With MCPGEN_CONFORMANCE_TRACE set, every HTTP exchange
 * is traced to stderr.
 */
import { Client, table as table2025 } from '../../generated/2025-11-25/index.js';
import { table as table0618 } from '../../generated/2025-06-18/index.js';
import { table as table0326 } from '../../generated/2025-03-26/index.js';
import { Client as Client2026 } from '../../generated/2026-07-28/index.js';
import { HttpClientTransport } from '../../runtime/transport/http/session/node-client.js';
import { StatelessHttpClientTransport } from '../../runtime/transport/http/stateless/node-client.js';

const url = process.argv[process.argv.length - 1];
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
/** `--rev 2026-07-28`: speak that revision (statelessly) instead of 2025-11-25. */
const revIndex = process.argv.indexOf('--rev');
const revision = revIndex > 1 ? process.argv[revIndex + 1] : undefined;
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}') as Record<string, unknown>;

type Schema = { type?: string; properties?: Record<string, Schema>; default?: unknown; required?: string[] };

/** Content for an elicitation form: each property's default. */
function defaults(schema: Schema | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, p] of Object.entries(schema?.properties ?? {})) if (p.default !== undefined) out[k] = p.default;
  return out;
}

/** Arguments satisfying a tool's input schema: numbers 1, 2, …; strings 'test'; booleans true. */
function argumentsFor(schema: Schema | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  let n = 0;
  for (const [k, p] of Object.entries(schema?.properties ?? {})) {
    if (p.type === 'number' || p.type === 'integer') out[k] = ++n;
    else if (p.type === 'boolean') out[k] = true;
    else if (p.type === 'string') out[k] = 'test';
  }
  return out;
}

/** The elicitation, sampling and roots handlers (also the answers to `input_required` rounds). */
const handlers = {
  'elicitation/create': (p: unknown) => ({
    action: 'accept',
    content: defaults((p as { requestedSchema?: Schema }).requestedSchema) as never,
  }),
  'sampling/createMessage': () => ({
    role: 'assistant',
    content: { type: 'text', text: 'This is a test response.' },
    model: 'conformance-model',
  }),
  'roots/list': () => ({ roots: [{ uri: 'file:///conformance/root', name: 'Conformance Root' }] }),
};

/** Calls every listed tool once with arguments its input schema asks for. */
async function callAll(
  tools: Array<{ name: string; inputSchema?: unknown }>,
  call: (name: string, args: Record<string, unknown>) => Promise<unknown>,
): Promise<void> {
  for (const tool of tools) {
    const args = argumentsFor(tool.inputSchema as Schema);
    // a tool taking a `schema` object gets another tool's input schema as listed (JSON Schema
    // keywords round trip untouched through the client)
    const other = tools.find((t) => t.name !== tool.name);
    if ((tool.inputSchema as Schema | undefined)?.properties?.schema?.type === 'object' && other)
      args.schema = other.inputSchema;
    await call(tool.name, args);
  }
}

/**
 * 2026-07-28: the generated Client of that revision over the stateless transport (falling back
 * to a 2025-11-25 session when `server/discover` is not answered): discover, list and call the
 * tools (multi round-trip answers through the handlers), close.
 */
async function modern(fetcher: typeof fetch): Promise<void> {
  const transport = new StatelessHttpClientTransport({ url, fetch: fetcher, reconnect: { maxRetries: 3 } });
  const client = new Client2026({
    clientInfo: { name: 'mcpgen-conformance-client', version: '0.1.0' },
    capabilities: { elicitation: { form: {} }, sampling: {}, roots: {} },
    fallbackTables: [table2025, table0618, table0326],
    // an auth scenario authorizes inside its first request: discovery, registration, code and token requests
    timeout: scenario.startsWith('auth/') ? 60_000 : 20_000,
    handlers: handlers as never,
  });
  const server = await client.connect(transport);
  const tools = server.capabilities.tools ? (await client.listTools({})).tools : [];
  // a scenario may name the calls to make (MCP_CONFORMANCE_CONTEXT `toolCalls`)
  const planned = Array.isArray(context.toolCalls)
    ? (context.toolCalls as Array<{ name: string; arguments?: Record<string, unknown> }>)
    : undefined;
  if (planned) for (const c of planned) await client.callTool({ name: c.name, arguments: c.arguments ?? {} });
  else await callAll(tools as never, (name, args) => client.callTool({ name, arguments: args }));
  await client.close();
}

async function main(): Promise<void> {
  // loaded only for auth scenarios: the OAuth helpers are most of the bundle's weight
  const auth = scenario.startsWith('auth/')
    ? (await import('./oauth.js')).oauthFetch({ scenario, context, serverUrl: url })
    : undefined;
  const base = auth?.fetch ?? fetch;
  const traced: typeof fetch = process.env.MCPGEN_CONFORMANCE_TRACE
    ? async (input, init) => {
        const res = await base(input, init);
        process.stderr.write(
          `${init?.method ?? 'GET'} ${String(init?.body ?? '').slice(0, 200)} -> ${res.status} ${res.headers.get('content-type') ?? ''}\n`,
        );
        return res;
      }
    : base;
  if (revision === '2026-07-28') return modern(traced);
  const transport = new HttpClientTransport({ url, fetch: traced, reconnect: { maxRetries: 3 } });
  const client = new Client({
    clientInfo: { name: 'mcpgen-conformance-client', version: '0.1.0' },
    capabilities: { elicitation: { form: {} }, sampling: {} },
    fallbackTables: [table0618, table0326],
    // an auth scenario authorizes inside its first request: discovery, registration, code and token requests
    timeout: scenario.startsWith('auth/') ? 60_000 : 20_000,
    handlers: {
      'elicitation/create': (p) => ({
        action: 'accept',
        content: defaults((p as { requestedSchema?: Schema }).requestedSchema) as never,
      }),
      'sampling/createMessage': () => ({
        role: 'assistant',
        content: { type: 'text', text: 'This is a test response.' },
        model: 'conformance-model',
      }),
    },
  });
  const server = await client.connect(transport);
  const tools = server.capabilities.tools ? (await client.listTools()).tools : [];
  for (const tool of tools) {
    const args = argumentsFor(tool.inputSchema as Schema);
    // a tool taking a `schema` object gets another tool's input schema as listed (JSON Schema
    // keywords round trip untouched through the client)
    const other = tools.find((t) => t.name !== tool.name);
    if ((tool.inputSchema as Schema).properties?.schema?.type === 'object' && other) args.schema = other.inputSchema;
    await client.callTool({ name: tool.name, arguments: args });
  }
  await client.close();
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    process.stderr.write(
      `conformance client (${scenario}): ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`,
    );
    process.exit(1);
  },
);
