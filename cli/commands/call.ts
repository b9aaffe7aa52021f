/**
 * `mcpgen call --stdio "<command>" | --url <url> <method> [params-json] [--progress] [--rev <rev>]`:
 * spawns the command (or opens a Streamable HTTP session at the URL), initializes, sends one
 * request and prints its result as JSON on stdout. Progress (with --progress), the server's log
 * messages and errors go to stderr; a failed request exits 1; a `tools/call` result with
 * `isError: true` (the tool reported an error) is printed and exits {@link EXIT_TOOL_ERROR} (4).
 */
import { oauthFetch, startLoopbackRedirect } from '@mcpgen/runtime/auth';
import { StdioClientTransport } from '@mcpgen/runtime/stdio';
import { type Command, type Io, parseCommand } from '../command.js';
import { MCPGEN_VERSION } from '../../generator/emit/common.js';
import { connectFlags, describeFailure } from '../connect.js';
import { UsageError } from '../inputs.js';
import { DEFAULT_REV, LEGACY_REV, loadRevision, stderrLogger } from '../revisions.js';
import { httpClientTransport } from '../serve/http.js';
import { isStateless, statelessClientTransport } from '../serve/stateless.js';

/** Exit code of `call` when the tool reported an error (a `tools/call` result with `isError: true`). */
export const EXIT_TOOL_ERROR = 4;

export const call: Command = {
  name: 'call',
  summary: 'sends one request to a server (spawned, or at a URL) and prints the result',
  usage: [
    'call --stdio "<command>" <method> [params-json] [--progress] [--rev <id>] [--timeout MS]',
    'call --url <url> <method> [params-json] [--progress] [--rev <id>] [--timeout MS]',
    '     [--auth [--auth-client-id ID] [--auth-scope "a b"]]',
  ],
  description: [
    'Spawns <command> (or connects to --url), initializes, sends one request and prints the result',
    'JSON on stdout; with a stateless --rev it probes with server/discover and falls back to',
    'initialize (2025-11-25) when the server is not modern. --progress prints progress to stderr, and',
    "log messages (notifications/message) print there too (over --url from the request's stream and",
    'from the standalone GET stream, which is opened before the request). It declares no client',
    'capabilities (no sampling, elicitation, roots or tasks). --auth authorizes with OAuth 2.1 when the',
    'server asks (401): discovery, dynamic registration (or --auth-client-id), PKCE; the authorization',
    "URL is printed to stderr and the browser's redirect is received on 127.0.0.1.",
  ],
  flags: [
    { name: 'stdio', value: '"<command>"', meaning: 'the server command line to spawn (quoted as one argument)' },
    { name: 'url', value: '<url>', meaning: 'the Streamable HTTP endpoint of a running server' },
    { name: 'rev', value: '<id>', default: DEFAULT_REV, meaning: 'the revision to speak' },
    { name: 'progress', meaning: 'ask for progress and print it to stderr' },
    { name: 'timeout', value: 'MS', default: '60000', meaning: 'bound on each request, the handshake included' },
    { name: 'auth', meaning: 'authorize with OAuth 2.1 when the server answers 401 (with --url)' },
    {
      name: 'auth-client-id',
      value: 'ID',
      default: 'dynamic registration',
      meaning: 'a client id registered with the authorization server beforehand',
    },
    { name: 'auth-scope', value: '"a b"', default: "what the server's 401 asks for", meaning: 'scopes to request' },
  ],
  config: [],
  examples: [
    'call --stdio "mcpgen serve --stdio" tools/list',
    'call --stdio "node server.js" tools/call \'{"name":"echo","arguments":{"text":"hi"}}\'',
    'call --url http://127.0.0.1:8080/mcp resources/list --rev draft',
    'call --url https://mcp.example/mcp tools/list --auth',
  ],
  exitCodes: [
    [0, 'the result was printed'],
    [1, 'the connection or the request failed (the error is printed)'],
    [2, 'usage error: no method, bad params JSON, a bad flag'],
    [EXIT_TOOL_ERROR, 'the tool reported an error (a tools/call result with isError: true, printed)'],
  ],
  run,
};

/** How long `call --url` waits for the standalone GET stream before sending its request, ms. */
const STANDALONE_WAIT_MS = 2000;

async function run(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommand(call, args);
  const { url, command, timeout } = connectFlags('call', values);
  if (!url && (values.auth || values['auth-client-id'] !== undefined || values['auth-scope'] !== undefined))
    throw new UsageError('--auth needs --url (a stdio server takes its credentials from the environment)');
  if (!values.auth && (values['auth-client-id'] !== undefined || values['auth-scope'] !== undefined))
    throw new UsageError('--auth-client-id and --auth-scope need --auth');
  const [method, paramsJson, ...extra] = positionals;
  if (!method) throw new UsageError('call needs a method, e.g. tools/list');
  if (extra.length) throw new UsageError(`unexpected arguments: ${extra.join(' ')}`);
  let params: Record<string, unknown> | undefined;
  if (paramsJson !== undefined) {
    try {
      params = JSON.parse(paramsJson) as Record<string, unknown>;
    } catch (e) {
      throw new UsageError(`params are not JSON: ${(e as Error).message}`);
    }
    if (typeof params !== 'object' || params === null || Array.isArray(params))
      throw new UsageError('params must be a JSON object');
  }
  const mod = await loadRevision((values.rev as string | undefined) ?? DEFAULT_REV);
  const client = new mod.Client({
    clientInfo: { name: 'mcpgen-call', version: MCPGEN_VERSION },
    logger: stderrLogger,
    timeout,
    fallbackTables: isStateless(mod) ? [(await loadRevision(LEGACY_REV)).table as never] : undefined,
    notificationHandlers: {
      'notifications/message': (p: { level?: string; logger?: string; data?: unknown }) =>
        io.err(
          `log ${p.level}${p.logger ? ` [${p.logger}]` : ''}: ${typeof p.data === 'string' ? p.data : JSON.stringify(p.data)}`,
        ),
    },
  });
  const auth =
    url && values.auth
      ? await callAuth(io, values['auth-client-id'] as string | undefined, values['auth-scope'] as string | undefined)
      : undefined;
  const transport = url
    ? isStateless(mod)
      ? statelessClientTransport(url, auth?.fetch)
      : httpClientTransport(url, auth?.fetch)
    : new StdioClientTransport({ command: command!.cmd, args: command!.args, stderr: 'inherit' });
  let step = 'connecting (initialize)';
  try {
    await client.connect(transport);
    // over Streamable HTTP, wait (a bounded time) for the standalone GET stream, so what the
    // server sends there while the request runs (log messages) prints, as over stdio
    const opened = (transport as { standaloneOpened?: () => Promise<boolean> }).standaloneOpened?.();
    if (opened) await Promise.race([opened, new Promise((r) => setTimeout(r, STANDALONE_WAIT_MS).unref())]);
    step = method;
    const result = await client.request(
      method as never,
      params as never,
      values.progress ? { onProgress: (p) => io.err(`progress: ${JSON.stringify(p)}`) } : undefined,
    );
    io.out(JSON.stringify(result, null, 2));
    if (method === 'tools/call' && (result as { isError?: unknown } | undefined)?.isError === true) {
      io.err(`mcpgen call: tool ${String(params?.name)} reported an error (isError: true)`);
      return EXIT_TOOL_ERROR;
    }
    return 0;
  } catch (e) {
    io.err(`mcpgen call: ${step} failed: ${describeFailure(e, url)}`);
    return 1;
  } finally {
    await client.close().catch(() => undefined);
    await auth?.close();
  }
}

/**
 * `call --url … --auth [--auth-client-id ID] [--auth-scope "a b"]`: the OAuth client of
 * runtime/auth/client.ts with a loopback redirect on 127.0.0.1 (runtime/auth/loopback-redirect.ts);
 * the authorization URL goes to stderr for the user to open. A pre-registered public client id,
 * else a Client ID Metadata Document is not available to a command line: dynamic registration.
 */
async function callAuth(
  io: Io,
  clientId: string | undefined,
  scope: string | undefined,
): Promise<{ fetch: typeof fetch; close(): Promise<void> }> {
  const loopback = await startLoopbackRedirect({
    open: (url) => io.err(`mcpgen call: to authorize, open ${url.href}`),
  });
  const client = oauthFetch({
    userAgent: loopback.userAgent,
    redirectUri: loopback.redirectUri,
    credentials: clientId ? { client_id: clientId, token_endpoint_auth_method: 'none' } : undefined,
    scope: scope?.trim() || undefined,
    clientMetadata: {
      client_name: 'mcpgen call',
      redirect_uris: [loopback.redirectUri],
      application_type: 'native',
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    },
  });
  return { fetch: client.fetch, close: loopback.close };
}
