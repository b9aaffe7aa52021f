/**
 * `mcpgen serve --rev <rev> --stdio`: the reference server (reference/server.ts) on
 * the generated `Server` of a revision, over stdin/stdout. Nothing but protocol messages goes to
 * stdout; diagnostics go to stderr. With `--http <port>` it serves Streamable HTTP instead
 * (../serve/endpoint.ts). Revisions with tasks (2025-11-25) add the task tools of
 * reference/tasks.ts; stateless revisions the tasks extension's fixtures. `initialize`
 * also negotiates every older generated handshake revision (2024-11-05, 2025-03-26, 2025-06-18
 * for 2025-11-25) when the client asks for it, on stdio, /mcp and /sse alike (basic/lifecycle,
 * "Version Negotiation"). On SIGINT/SIGTERM `--http` drains, still listening: /readyz turns 503,
 * new work gets 503 with Retry-After and Connection: close, POSTs in flight finish within
 * `--shutdown-grace-ms` (2 s), then it stops listening and answers the rest with -32000
 * "server shutting down"; a second signal stops at once (exit 0).
 */
import { readFileSync } from 'node:fs';
import type { Transport } from '@mcpgen/runtime/jsonrpc';
import { MIN_REQUEST_STATE_SECRET_BYTES } from '@mcpgen/runtime/stateless';
import { StdioServerTransport } from '@mcpgen/runtime/stdio';
import { createReferenceServer } from '../../reference/server.js';
import { type Command, type Io, parseCommand } from '../command.js';
import { UsageError } from '../inputs.js';
import {
  DEFAULT_REV,
  checkModernOnly,
  legacyRevision,
  loadRevision,
  olderHandshakeTables,
  stderrLogger,
} from '../revisions.js';
import { serveOverHttp } from '../serve/endpoint.js';
import { isStateless, serveDualEraConnection } from '../serve/stateless.js';
import { didYouMean } from '../nearest.js';

/** The flags of the HTTP endpoint, refused beside --stdio (where they would be ignored). */
const HTTP_ONLY = [
  'host',
  'reply',
  'session-idle-ms',
  'max-sessions',
  'redis',
  'redis-password-file',
  'request-replay',
  'cors-origin',
  'allowed-host',
  'public-url',
  'shutdown-grace-ms',
  'drain-min-ms',
] as const;

export const serve: Command = {
  name: 'serve',
  summary: 'runs the reference MCP server of a revision over stdio or Streamable HTTP',
  usage: [
    'serve --stdio [--rev <id>] [--modern-only] [--request-state-secret-file PATH]',
    'serve --http <port> [--host 127.0.0.1] [--reply auto|json|sse] [--rev <id>] [--modern-only]',
    '      [--session-idle-ms MS] [--max-sessions N]',
    '      [--redis redis://HOST:PORT [--redis-password-file PATH] [--request-replay on|off]]',
    '      [--request-state-secret-file PATH] [--cors-origin ORIGIN]...',
    '      [--allowed-host NAME[:PORT]]... [--public-url URL] [--shutdown-grace-ms MS] [--drain-min-ms MS]',
    '      [--auth <issuer-url> [--auth-jwks URL] [--auth-scope "a b"]]',
    'serve --lang python|go (--stdio | --http <port> [--host 127.0.0.1]) [--rev <id>]',
  ],
  description: [
    'The reference MCP server (test tools, resources, prompts; task tools slow_compute, failing_job,',
    'confirm_job, batch_job where the revision has tasks) on the generated Server of a revision, over',
    'stdin/stdout: only protocol messages on stdout. --http serves Streamable HTTP at',
    'http://<host>:<port>/mcp (one session per client, Host/Origin checks on) and prints its URL and',
    'the HTTP+SSE one to stderr. A stateless revision (draft, 2026-07-28) is served dual-era: modern',
    'requests statelessly, clients that send initialize on a 2025-11-25 server. Its multi round-trip',
    'requestState is sealed with the secret in --request-state-secret-file or',
    '$MCPGEN_REQUEST_STATE_SECRET (>= 32 bytes), else a random one per process: processes serving one',
    'endpoint must share it. Idle sessions end after --session-idle-ms (their id then gets 404); at',
    '--max-sessions a new session evicts the least recently used idle one, or gets 503 when none is',
    'idle. --lang python runs the Python reference server (python/reference, a checkout only) in the',
    'environment python/venv.sh builds; --lang go the Go one (go/reference, a checkout only:',
    '2025-11-25, 2026-07-28, draft), built with the Go toolchain go/toolchain.sh finds. Both have the',
    'same test tools, resources and prompts, but no task fixtures: no tasks capability, no task tools',
    '(on 2025-11-25 they list 15 tools, TypeScript 19), no tasks extension; on draft they list 23 tools,',
    "TypeScript 30 (greet, multi_input and confirm_delete are also TypeScript's alone).",
    'Behind a load balancer: --allowed-host (repeatable) accepts the Host values it forwards;',
    '--public-url names the URL clients use (the resource --auth tokens name). GET /healthz (live) and',
    '/readyz (503 while Redis does not answer or after SIGTERM). SIGTERM drains, still listening: new',
    'sessions, requests and new GET streams get 503 with Retry-After and Connection: close (not run),',
    'answers and notifications of running calls go on, idle connections close after 1 s, requests in',
    'flight finish within --shutdown-grace-ms, the rest get -32000 "server shutting down" (an idle',
    'process stops at once unless --drain-min-ms keeps it listening that long); every response sent',
    'from the signal on says Connection: close. A second SIGINT/SIGTERM stops at once, draining or',
    'closing (exit 0): calls still running are cut. With --redis the endpoint offers request replay',
    '(capabilities.experimental["mcpgen/requestReplay"]): a request sent again identically (same',
    'session and id, the same JSON once parsed and re-serialized: key order counts, whitespace does',
    'not) after its connection was lost before any event ID is answered from its stream, from any',
    'process, and never runs twice; a re-send with other content under that id gets 400. Replay',
    'answers every request as SSE, so --reply json with --redis turns it off and says so on stderr;',
    '--request-replay off turns it off alone (JSON replies where --reply allows them).',
    '',
    "The TypeScript server's SSE streams carry `retry: 500` (in their priming event and before it",
    'closes a connection), and a 2025-11-25 client waits at least that before resuming a lost stream:',
    'its backoff starts from 500 ms instead of `reconnect.initialDelayMs` (1000). A stream lost because',
    'the server went away (every attempt refused at connect) is tried about 0.5, 1.25, 2.4 and 4.1 s',
    'after the loss, and the call fails after about 4.1 s with "4 attempts", where',
    "docs/guide/http.md's figures without a server `retry` are 1, 2.5 and 4.75 s, 3 attempts.",
  ],
  flags: [
    { name: 'stdio', meaning: 'serve over stdin/stdout' },
    { name: 'http', value: '<port>', meaning: 'serve Streamable HTTP on this port (0: any free port)' },
    { name: 'host', value: '<host>', default: '127.0.0.1', meaning: 'the address --http listens on' },
    {
      name: 'reply',
      value: 'auto|json|sse',
      default: 'auto',
      meaning:
        'auto: JSON unless something goes out before the response (with --redis: a stream); sse: always a stream; json: never (with --redis: no request replay)',
    },
    { name: 'rev', value: '<id>', default: DEFAULT_REV, meaning: 'the revision to serve' },
    { name: 'modern-only', meaning: 'a stateless revision alone, without the 2025-era fallback' },
    {
      name: 'request-state-secret-file',
      value: 'PATH',
      default: '$MCPGEN_REQUEST_STATE_SECRET, else random per process',
      meaning: 'the secret (>= 32 bytes) sealing requestState',
    },
    {
      name: 'session-idle-ms',
      value: 'MS',
      default: '1800000',
      meaning: 'an idle session ends after this long (0: never)',
    },
    { name: 'max-sessions', value: 'N', default: '10000', meaning: 'sessions at once' },
    {
      name: 'redis',
      value: 'redis://HOST:PORT',
      meaning:
        'share sessions, events, tasks and notifications with other processes through Redis; replay a request re-sent after its connection was lost; at start-up, exit 3 naming the failure when Redis gives no answer within 2 s (TCP, TLS handshake, PING)',
    },
    {
      name: 'redis-password-file',
      value: 'PATH',
      meaning: 'the Redis password, read from this file (not on the command line, where ps shows it; not empty)',
    },
    {
      name: 'request-replay',
      value: 'on|off',
      default: 'on with --redis, unless --reply json',
      meaning:
        'answer a request re-sent after a lost connection from its stream (every request after initialize then gets SSE)',
    },
    {
      name: 'cors-origin',
      value: 'ORIGIN',
      repeatable: true,
      meaning: 'let a browser app on this origin call the endpoint (CORS)',
    },
    {
      name: 'allowed-host',
      value: 'NAME[:PORT]',
      repeatable: true,
      meaning: 'a Host value a proxy or load balancer in front forwards (NAME: any port)',
    },
    {
      name: 'public-url',
      value: 'URL',
      meaning: 'the URL clients use for /mcp behind a load balancer (the resource --auth tokens name)',
    },
    {
      name: 'shutdown-grace-ms',
      value: 'MS',
      default: '2000',
      meaning: 'after SIGINT/SIGTERM, how long requests in flight may still finish',
    },
    {
      name: 'drain-min-ms',
      value: 'MS',
      default: '0',
      meaning:
        'after SIGINT/SIGTERM, keep listening at least this long, answering new work 503 (the deregistration delay of a load balancer)',
    },
    {
      name: 'auth',
      value: '<issuer-url>',
      meaning: 'protect /mcp: access tokens (Bearer or DPoP) of this issuer for this URL',
    },
    {
      name: 'auth-jwks',
      value: 'URL',
      default: "the issuer metadata's jwks_uri",
      meaning: 'the keys tokens are checked against',
    },
    { name: 'auth-scope', value: '"a b"', meaning: 'scopes a token must carry' },
    {
      name: 'lang',
      value: 'typescript|python|go',
      default: 'typescript',
      meaning: "the language of the reference server (python, go: a checkout's python/ or go/)",
    },
  ],
  config: [],
  examples: [
    'serve --stdio',
    'serve --http 8080 --rev draft',
    'serve --http 0 --reply sse --cors-origin https://app.example',
    'serve --http 8080 --redis redis://127.0.0.1:6379 --request-state-secret-file secret.txt',
    'serve --lang python --stdio --rev 2025-11-25',
  ],
  exitCodes: [
    [
      0,
      'the connection ended (stdio) or the server was stopped (SIGINT/SIGTERM: after the drain; a second signal: at once)',
    ],
    [1, 'the stdio connection closed with an error'],
    [
      2,
      'usage error: neither or both of --stdio and --http, a flag of --http beside --stdio, a bad flag value, an unknown revision',
    ],
    [3, 'the port cannot be listened on, Redis cannot be reached'],
  ],
  run,
};

/** Wraps a transport so that `closed` resolves when it closes. */
function watchClose(t: Transport): { transport: Transport; closed: Promise<Error | undefined> } {
  let done!: (e: Error | undefined) => void;
  const closed = new Promise<Error | undefined>((r) => (done = r));
  const transport: Transport = {
    start: (events) =>
      t.start({
        ...events,
        onClose: (e) => {
          events.onClose(e);
          done(e);
        },
      }),
    send: (m, o) => t.send(m, o),
    sendBatch: t.sendBatch && ((m) => t.sendBatch!(m)),
    close: () => t.close(),
  };
  return { transport, closed };
}

async function run(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommand(serve, args);
  if (positionals.length) throw new UsageError(`unexpected arguments: ${positionals.join(' ')}`);
  if (values.lang !== undefined && values.lang !== 'typescript') {
    if (values.lang !== 'python' && values.lang !== 'go')
      throw new UsageError(
        `--lang: unknown language ${values.lang}${didYouMean(String(values.lang), ['typescript', 'python', 'go'])} (typescript, python, go)`,
      );
    if (values.stdio && values.http !== undefined) throw new UsageError('--stdio and --http exclude each other');
    const other = Object.keys(values).filter((k) => !['lang', 'rev', 'stdio', 'http', 'host'].includes(k));
    if (other.length)
      throw new UsageError(
        `--lang ${values.lang} takes --rev, --stdio, --http and --host only (not --${other.join(', --')})`,
      );
    if (!values.stdio && values.http === undefined) throw new UsageError('serve needs --stdio or --http <port>');
    if (values.lang === 'go') {
      const { GO_REVISIONS, hasGo, serveGo } = await import('../serve/go.js');
      if (!hasGo()) throw new UsageError('--lang go needs a checkout of mcpgen (go/ is not in the npm package)');
      if (values.rev !== undefined && !GO_REVISIONS.includes(values.rev as string))
        throw new UsageError(
          `--lang go serves ${GO_REVISIONS.join(', ')} (2025-11-25 also negotiates 2025-06-18 and 2025-03-26), not ${values.rev}`,
        );
      return serveGo(values as { rev?: string; stdio?: boolean; http?: string; host?: string });
    }
    const { hasPython, servePython } = await import('../serve/python.js');
    if (!hasPython())
      throw new UsageError('--lang python needs a checkout of mcpgen (python/ is not in the npm package)');
    return servePython(values as { rev?: string; stdio?: boolean; http?: string; host?: string });
  }
  const authFlags = ['auth', 'auth-jwks', 'auth-scope'].filter((k) => values[k] !== undefined);
  if (values.http === undefined && authFlags.length)
    throw new UsageError(
      `--${authFlags.join(' and --')} need${authFlags.length > 1 ? '' : 's'} --http (a stdio server takes its credentials from the environment)`,
    );
  if (values.stdio && values.http !== undefined) throw new UsageError('--stdio and --http exclude each other');
  if (values.stdio) {
    const httpOnly = HTTP_ONLY.filter((k) => values[k] !== undefined);
    if (httpOnly.length)
      throw new UsageError(`--${httpOnly.join(' and --')} appl${httpOnly.length > 1 ? 'y' : 'ies'} to --http only`);
  }
  const requestStateSecret = readRequestStateSecret(values['request-state-secret-file'] as string | undefined);
  if (values.http !== undefined)
    return serveOverHttp(values as Record<string, string | undefined>, io, requestStateSecret);
  if (!values.stdio) throw new UsageError('serve needs --stdio or --http <port>');
  const rev = (values.rev as string | undefined) ?? DEFAULT_REV;
  const mod = await loadRevision(rev);
  checkModernOnly(mod, values['modern-only'] as boolean | undefined);
  const { transport, closed } = watchClose(new StdioServerTransport());
  if (isStateless(mod))
    await serveDualEraConnection(
      mod,
      values['modern-only'] ? undefined : await legacyRevision(),
      transport,
      stderrLogger,
      requestStateSecret,
    );
  else
    await createReferenceServer(mod.Server, {
      logger: stderrLogger,
      table: mod.table,
      fallbackTables: (await olderHandshakeTables(rev)) as never,
    }).server.connect(transport);
  const error = await closed;
  if (error) io.err(`mcpgen serve: connection closed: ${error.message}`);
  return error ? 1 : 0;
}

/** The environment variable holding the `requestState` secret of `serve` (stateless revisions). */
export const REQUEST_STATE_SECRET_ENV = 'MCPGEN_REQUEST_STATE_SECRET';

/**
 * The `requestState` HMAC secret of `serve`: the contents of `--request-state-secret-file`
 * (one trailing newline dropped), else `$MCPGEN_REQUEST_STATE_SECRET`, else undefined (random per
 * process: only that process accepts its states; processes behind one endpoint must share one).
 * Throws UsageError when the file cannot be read or the secret has fewer than 32 bytes.
 */
export function readRequestStateSecret(
  file: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  let secret: string | undefined;
  let from: string;
  if (file !== undefined) {
    try {
      secret = readFileSync(file, 'utf8').replace(/\r?\n$/, '');
    } catch (e) {
      throw new UsageError(`--request-state-secret-file: cannot read ${file}: ${(e as Error).message}`);
    }
    from = `--request-state-secret-file ${file}`;
  } else {
    secret = env[REQUEST_STATE_SECRET_ENV];
    if (secret === undefined || secret === '') return undefined;
    from = `$${REQUEST_STATE_SECRET_ENV}`;
  }
  const bytes = Buffer.byteLength(secret, 'utf8');
  if (bytes < MIN_REQUEST_STATE_SECRET_BYTES)
    throw new UsageError(
      `${from}: the requestState secret needs at least ${MIN_REQUEST_STATE_SECRET_BYTES} bytes, got ${bytes}`,
    );
  return secret;
}
