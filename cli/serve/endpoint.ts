/**
 * `mcpgen serve --http <port>`: the endpoint's life, from its flags to its shutdown. It serves
 * Streamable HTTP at /mcp (./http.ts; a stateless revision dual-era, ./stateless.ts) until
 * SIGINT/SIGTERM, then drains while still listening: /readyz turns 503, new work gets 503 with
 * Retry-After and Connection: close (./http.ts `healthEndpoints`; so does every response sent
 * from then on), idle connections close after 1 s, POSTs in flight finish within
 * `--shutdown-grace-ms` (2 s), and the drain lasts `--drain-min-ms` at least (default 0: it ends as
 * soon as nothing is in flight); then it closes. A second signal cuts the drain short: it closes at
 * once, exit 0; one that comes while the close waits (on a stalled Redis) ends the process, exit 0.
 */
import { readFileSync } from 'node:fs';
import type { Server as HttpServer, IncomingMessage, ServerResponse } from 'node:http';
import { isIPv4, isIPv6, type Socket } from 'node:net';
import { afterClosingResponse } from '@mcpgen/runtime/http';
import type { Io } from '../command.js';
import { UsageError } from '../inputs.js';
import { redactUrl } from '../redact.js';
import {
  DEFAULT_REV,
  checkModernOnly,
  legacyRevision,
  loadRevision,
  olderHandshakeTables,
  stderrLogger,
} from '../revisions.js';
import type { ServeAuthOptions } from './auth.js';
import { serveHttp } from './http.js';
import { isStateless, serveStatelessHttp } from './stateless.js';

/** `--auth <issuer> [--auth-jwks <url>] [--auth-scope "a b"]`, checked: absolute http(s) URLs. */
function authOptions(values: Record<string, string | undefined>): ServeAuthOptions | undefined {
  if (values.auth === undefined) {
    if (values['auth-jwks'] !== undefined || values['auth-scope'] !== undefined)
      throw new UsageError('--auth-jwks and --auth-scope need --auth <issuer>');
    return undefined;
  }
  for (const flag of ['auth', 'auth-jwks'] as const) {
    const v = values[flag];
    if (v === undefined) continue;
    let u: URL | undefined;
    try {
      u = new URL(v);
    } catch {
      u = undefined;
    }
    if (!u || (u.protocol !== 'https:' && u.protocol !== 'http:'))
      throw new UsageError(`--${flag} needs an absolute http(s) URL, got ${JSON.stringify(redactUrl(v))}`);
    // the issuer is published in the resource's metadata and the JWKS URL named in a 503 body (both
    // to any client), and fetch takes no URL with credentials; an issuer has no query or fragment
    // (RFC 8414 section 2)
    if (u.username || u.password || (flag === 'auth' && (u.search || u.hash)))
      throw new UsageError(
        `--${flag} needs ${flag === 'auth' ? 'the issuer URL, without credentials, query or fragment' : 'a URL without credentials'}, got ${JSON.stringify(redactUrl(v))}`,
      );
    // (the token check takes keys over https only, http on loopback: refused here, not as a crash)
    if (flag === 'auth-jwks' && u.protocol === 'http:' && !LOOPBACK.has(u.hostname.toLowerCase()))
      throw new UsageError(
        `--auth-jwks needs an https URL (http only on localhost, 127.0.0.1 or [::1]), got ${JSON.stringify(redactUrl(v))}`,
      );
  }
  const scopes = values['auth-scope']?.split(' ').filter(Boolean);
  return { issuer: values.auth, jwks: values['auth-jwks'], scopes: scopes?.length ? scopes : undefined };
}

/** Host names where an http:// JWKS URL is taken (runtime/auth/discovery.ts `isLoopbackUrl`). */
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * `--allowed-host` (repeatable: a Host value a proxy in front sends, `name` any port or
 * `name:port`) and `--public-url` (the URL clients use, behind a load balancer: the resource
 * tokens name as audience and the metadata names; its host is allowed too).
 */
function frontOptions(values: Record<string, string | undefined>): { allowedHosts?: string[]; publicUrl?: string } {
  const hosts = (values['allowed-host'] as unknown as string[] | undefined) ?? [];
  for (const h of hosts) {
    const problem = hostProblem(h);
    if (problem)
      throw new UsageError(
        `--allowed-host needs a host name, optionally with :port (mcp.example.com:443), got ${JSON.stringify(h)}: ${problem}`,
      );
  }
  const publicUrl = values['public-url'];
  if (publicUrl !== undefined) {
    let u: URL | undefined;
    try {
      u = new URL(publicUrl);
    } catch {
      u = undefined;
    }
    if (!u || (u.protocol !== 'https:' && u.protocol !== 'http:') || u.search || u.hash || u.username || u.password)
      throw new UsageError(
        `--public-url needs the absolute http(s) URL clients use for /mcp, without query or credentials (https://mcp.example.com/mcp), got ${redactUrl(publicUrl)}`,
      );
  }
  return { ...(hosts.length ? { allowedHosts: hosts } : {}), ...(publicUrl ? { publicUrl } : {}) };
}

/**
 * What is wrong with `value` as a `Host` value (RFC 9110 section 7.2): a DNS name (labels of 1 to
 * 63 letters, digits and inner hyphens, 253 characters at most), an IPv4 address or a bracketed
 * IPv6 one, optionally `:port` with a port of 1 to 65535 (no leading zero); undefined when
 * nothing is.
 */
function hostProblem(value: string): string | undefined {
  const m = /^(\[[^\]]*\]|[^:]*)(?::([^:]*))?$/.exec(value);
  if (!m) return 'an IPv6 address is written in brackets ([::1]:8080)';
  const [, host, port] = m;
  if (port !== undefined && !(/^[0-9]{1,5}$/.test(port) && Number(port) >= 1 && Number(port) <= 65535))
    return `the port must be 1-65535, not ${JSON.stringify(port)}`;
  // (the Host check compares the text, and a client writes port 8 as "8")
  if (port?.startsWith('0'))
    return `a port is written without leading zeros (${Number(port)}), not ${JSON.stringify(port)}`;
  if (host.startsWith('[')) return isIPv6(host.slice(1, -1)) ? undefined : `${host} is no IPv6 address`;
  if (/^[0-9.]+$/.test(host)) return isIPv4(host) ? undefined : `${host} is no IPv4 address`;
  const labels = host.replace(/\.$/, '').split('.');
  if (host.length > 253 || !labels.every((l) => /^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/.test(l)))
    return 'a host name is dot-separated labels of letters, digits and inner hyphens (1-63 each)';
  return undefined;
}

/** `--cors-origin` (repeatable), each checked: an origin (scheme, host, optional port). */
function corsOriginsOf(values: Record<string, string | undefined>): string[] {
  const corsOrigins = (values['cors-origin'] as unknown as string[] | undefined) ?? [];
  for (const o of corsOrigins) {
    let ok = false;
    try {
      const u = new URL(o);
      ok = (u.protocol === 'http:' || u.protocol === 'https:') && u.origin === o.replace(/\/$/, '');
    } catch {
      ok = false;
    }
    if (!ok)
      throw new UsageError(
        `--cors-origin needs an origin like https://app.example (scheme, host, optional port), got ${redactUrl(o)}`,
      );
  }
  return corsOrigins;
}

/**
 * `--redis`, checked: a redis:// or rediss:// URL, its path a database number if any, no query;
 * with `--redis-password-file PATH` the password is that file's text (one trailing newline
 * dropped), put into the URL here, so that it is on no command line.
 */
function redisUrlOf(values: Record<string, string | undefined>): string | undefined {
  let redis = values.redis;
  const file = values['redis-password-file'];
  if (file !== undefined && redis === undefined) throw new UsageError('--redis-password-file needs --redis');
  if (redis !== undefined) {
    let ok = false;
    try {
      const u = new URL(redis);
      ok = /^rediss?:$/.test(u.protocol) && /^(\/([0-9]{1,9})?)?$/.test(u.pathname) && u.search === '';
    } catch {
      /* not a URL */
    }
    if (!ok)
      throw new UsageError(
        `--redis must be a redis:// or rediss:// URL, its path a database number if any, no query (redis://HOST:PORT/0), got ${redactUrl(redis)}`,
      );
    if (file !== undefined) {
      const u = new URL(redis);
      if (u.password) throw new UsageError('--redis-password-file: the --redis URL has a password already');
      let password: string;
      try {
        password = readFileSync(file, 'utf8').replace(/\r?\n$/, '');
      } catch (e) {
        throw new UsageError(`--redis-password-file: cannot read ${file}: ${(e as Error).message}`);
      }
      // (an empty file would mean no password at all: a file not yet written, a wrong path)
      if (password === '') throw new UsageError(`--redis-password-file: ${file} is empty (no password in it)`);
      u.password = encodeURIComponent(password);
      redis = u.href;
    }
  }
  return redis;
}

/** `serve --http <port> [--host H] [--reply auto|json|sse]`: runs until SIGINT/SIGTERM. */
export async function serveOverHttp(
  values: Record<string, string | undefined>,
  io: Io,
  requestStateSecret: string | undefined,
): Promise<number> {
  const port = Number(values.http);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new UsageError(`--http needs a port number (0-65535), got ${values.http}`);
  const reply = values.reply ?? 'auto';
  if (reply !== 'auto' && reply !== 'json' && reply !== 'sse')
    throw new UsageError(`--reply must be auto, json or sse, got ${reply}`);
  const replayFlag = values['request-replay'];
  if (replayFlag !== undefined && replayFlag !== 'on' && replayFlag !== 'off')
    throw new UsageError(`--request-replay must be on or off, got ${replayFlag}`);
  if (replayFlag === 'on' && values.redis === undefined)
    throw new UsageError('--request-replay on needs --redis (one process keeps JSON replies without it)');
  if (replayFlag === 'on' && reply === 'json')
    throw new UsageError('--request-replay on answers every request as SSE: it excludes --reply json');
  const corsOrigins = corsOriginsOf(values);
  const front = frontOptions(values);
  const limits = {
    corsOrigins,
    ...front,
    sessionIdleMs: count(values['session-idle-ms'], '--session-idle-ms', 0),
    maxSessions: count(values['max-sessions'], '--max-sessions', 1),
  };
  const auth = authOptions(values);
  const graceMs = count(values['shutdown-grace-ms'], '--shutdown-grace-ms', 0, MAX_TIMER_MS) ?? SHUTDOWN_GRACE_MS;
  const drainMinMs = count(values['drain-min-ms'], '--drain-min-ms', 0, MAX_TIMER_MS) ?? 0;
  const rev = values.rev ?? DEFAULT_REV;
  const mod = await loadRevision(rev);
  checkModernOnly(mod, values['modern-only'] !== undefined);
  const redis = redisUrlOf(values);
  const served = isStateless(mod)
    ? await serveStatelessHttp(mod, values['modern-only'] ? undefined : await legacyRevision(), {
        port,
        host: values.host,
        replyMode: reply,
        logger: stderrLogger,
        requestStateSecret,
        redis,
        auth,
        ...limits,
      })
    : await serveHttp(
        { ...mod, fallbackTables: await olderHandshakeTables(rev) },
        {
          port,
          host: values.host,
          replyMode: reply,
          logger: stderrLogger,
          redis,
          auth,
          requestReplay: replayFlag !== 'off',
          ...limits,
        },
      );
  const posts = countPosts(served.server);
  const connections = trackConnections(served.server);
  if (reply === 'json' && redis !== undefined && replayFlag === undefined && !isStateless(mod))
    io.err(
      'mcpgen serve: --reply json with --redis: request replay is off (it answers every request as SSE); a request whose connection is lost before its answer fails as "may have run"',
    );
  // a wildcard bind answers on every interface, but its Host check passes the loopback names only
  const bound = values.host?.replace(/^\[(.*)\]$/, '$1');
  if ((bound === '0.0.0.0' || bound === '::') && !front.allowedHosts && !front.publicUrl)
    io.err(
      `mcpgen serve: --host ${values.host}: a request passes the Host check (DNS-rebinding protection) when it names 127.0.0.1, localhost or [::1]; name each other host clients use with --allowed-host NAME[:PORT]`,
    );
  // listened for before the URL is printed: a signal sent as soon as it is read drains too
  // (before, one that came between the line and the listener ended the process at once)
  const stop = signalled();
  io.err(`mcpgen serve: listening on ${served.url}`);
  if (auth)
    io.err(
      `mcpgen serve: protected: access tokens (Bearer or DPoP) of ${redactUrl(auth.issuer)} for ${redactUrl(served.resource)}${auth.scopes ? ` with scope ${auth.scopes.join(' ')}` : ''}`,
    );
  else if ('sseUrl' in served) io.err(`mcpgen serve: 2024-11-05 HTTP+SSE clients: ${served.sseUrl}`);
  await stop;
  return drainThenClose(served, io, { posts, connections }, graceMs, drainMinMs);
}

/** Resolves once SIGINT or SIGTERM comes (its listeners then removed). */
function signalled(): Promise<void> {
  return new Promise<void>((resolve) => {
    const once = () => {
      process.off('SIGINT', once);
      process.off('SIGTERM', once);
      resolve();
    };
    process.on('SIGINT', once);
    process.on('SIGTERM', once);
  });
}

/**
 * After the first SIGINT/SIGTERM: drains `served` (requests in flight `tracked.posts` get
 * `graceMs`, the drain lasts `drainMinMs` at least), then closes it; resolves 0. A second signal
 * cuts the drain short, and one during the close ends the process (exit 0).
 */
async function drainThenClose(
  served: { drain(): void; server: HttpServer; close(): Promise<void> },
  io: Io,
  tracked: { posts: { readonly count: number }; connections: { closeIdle(ms: number, since: number): number } },
  graceMs: number,
  drainMinMs: number,
): Promise<number> {
  const { posts, connections } = tracked;
  // /readyz answers 503 from now on (the load balancer stops sending new work) and new work gets
  // 503 with Retry-After on a connection then closed; the listener stays open, so a probe or a
  // request on its way is answered, not refused or cut. The POSTs in flight get a grace period (a
  // second signal cuts it short); an idle kept-alive connection is closed once it stayed idle
  // DRAIN_IDLE_MS (one that sends meanwhile is answered 503 and told the connection ends). Then
  // the listener closes; what is still pending gets a JSON-RPC error "server shutting down".
  // With --drain-min-ms the drain lasts at least that long, idle or not (a load balancer's
  // deregistration window: what it still sends meanwhile is answered 503, not refused).
  served.drain();
  const drainedAt = Date.now();
  if (drainMinMs > 0) io.err(`mcpgen serve: shutting down; still listening for ${drainMinMs} ms (--drain-min-ms)`);
  if (posts.count > 0)
    io.err(`mcpgen serve: shutting down; waiting up to ${graceMs} ms for ${posts.count} request(s) in flight`);
  // (a timer that holds the process: with nothing else left, an unref'd one would let it exit mid-await)
  let grace: NodeJS.Timeout | undefined;
  const graceOver = new Promise<void>((r) => (grace = setTimeout(r, Math.max(graceMs, drainMinMs))));
  const second = signalled().then(() => true);
  let over = false;
  void Promise.race([graceOver, second]).then(() => (over = true));
  const drained = () =>
    Date.now() - drainedAt >= drainMinMs && posts.count === 0 && connections.closeIdle(DRAIN_IDLE_MS, drainedAt) === 0;
  while (!over && !drained()) await Promise.race([graceOver, second, new Promise((r) => setTimeout(r, DRAIN_POLL_MS))]);
  clearTimeout(grace);
  served.server.close();
  const closing = served.close();
  // a second signal ends the process in every phase, also while the close waits (a session's
  // store write to a stalled Redis holds it up to the command timeout): the close gets one turn
  // of the event loop (the "server shutting down" answers it writes at once), then the process exits
  if (await Promise.race([closing.then(() => false), second])) {
    await Promise.race([closing.catch(() => undefined), new Promise((r) => setImmediate(r))]);
    io.err('mcpgen serve: second signal: stopped without waiting for the close');
    process.exit(0);
  }
  return 0;
}

/** How long a kept-alive connection must have stayed idle before a draining `serve` closes it, ms. */
const DRAIN_IDLE_MS = 1000;
/** How often a draining `serve` looks at its requests in flight and idle connections, ms. */
const DRAIN_POLL_MS = 50;

/**
 * The server's open connections and, for each, whether a request is on it and since when it is
 * idle. `closeIdle(ms)` closes those idle for at least `ms` and returns how many stay open that
 * carry no long-lived GET stream (idle ones not yet due, and POSTs in progress). Idleness counts
 * from `since` at the earliest (the drain's start: a connection idle before it may be in use by
 * now, its request on the way, and is answered and told to close rather than cut).
 */
function trackConnections(server: HttpServer): { closeIdle(ms: number, since: number): number } {
  const open = new Map<Socket, { busy: number; idleSince: number; stream: boolean }>();
  server.on('connection', (socket: Socket) => {
    open.set(socket, { busy: 0, idleSince: Date.now(), stream: false });
    socket.once('close', () => open.delete(socket));
  });
  const counted = (req: IncomingMessage, res: ServerResponse): void => {
    const state = open.get(req.socket);
    if (!state) return;
    state.busy++;
    if ((req.method ?? '').toUpperCase() === 'GET') state.stream = true;
    res.once('close', () => {
      state.busy--;
      state.idleSince = Date.now();
      if (state.busy === 0) state.stream = false;
    });
  };
  server.prependListener('request', counted);
  server.prependListener('checkContinue', counted);
  return {
    closeIdle(ms, since) {
      const now = Date.now();
      let left = 0;
      for (const [socket, state] of open) {
        if (state.busy === 0 && now - Math.max(state.idleSince, since) >= ms) socket.destroy();
        else if (!state.stream) left++;
      }
      return left;
    },
  };
}

/**
 * A whole-number flag value of at least `min` and at most `max` (undefined when the flag is
 * absent); a value above `max` is a usage error, never clamped.
 */
function count(text: string | undefined, flag: string, min: number, max = Number.MAX_SAFE_INTEGER): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!/^[0-9]+$/.test(text) || !Number.isSafeInteger(n) || n < min)
    throw new UsageError(`${flag} needs a whole number of at least ${min}, got ${text}`);
  if (n > max)
    throw new UsageError(
      `${flag} is at most ${max}${max === MAX_TIMER_MS ? ' ms (about 24.8 days: the longest timer Node.js keeps)' : ''}, got ${text}`,
    );
  return n;
}

/** The longest delay a Node.js timer takes, ms (2^31 - 1; a longer one fires after 1 ms). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** How long `serve --http` lets requests in flight finish after SIGINT/SIGTERM by default, ms (`--shutdown-grace-ms`). */
const SHUTDOWN_GRACE_MS = 2000;

/**
 * Counts the server's POSTs whose response has not closed yet (GET streams are long-lived). A
 * POST pipelined behind a response that closes its connection is not processed, so not counted;
 * one queued behind another response counts until its response or its connection closes
 * (node:http never closes a queued response whose connection went away).
 */
function countPosts(server: HttpServer): { readonly count: number; idle(): Promise<void> } {
  let count = 0;
  let waiters: (() => void)[] = [];
  const down = (): void => {
    if (--count > 0) return;
    for (const w of waiters) w();
    waiters = [];
  };
  const counted = (req: IncomingMessage, res: ServerResponse): void => {
    if (req.method !== 'POST' || afterClosingResponse(req)) return;
    count++;
    if (res.socket !== null) {
      // (a ServerResponse emits 'close' once: one listener function for all, no closure per request)
      res.on('close', down);
      return;
    }
    // queued behind another response on its connection: node emits no 'close' on it when the
    // connection goes first, so the connection's own counts too
    const socket = req.socket;
    const done = (): void => {
      res.off('close', done);
      socket.off('close', done);
      down();
    };
    res.once('close', done);
    socket.once('close', done);
  };
  // (a POST sent with `Expect: 100-continue` arrives as checkContinue)
  server.prependListener('request', counted);
  server.prependListener('checkContinue', counted);
  return {
    get count() {
      return count;
    },
    idle: () => (count === 0 ? Promise.resolve() : new Promise<void>((r) => waiters.push(r))),
  };
}
