/**
 * `serve --redis`: the connection to Redis and what is known of it. The stores are connected
 * here, after a probe of their own that names an unreachable Redis within 2 s (no TCP connection,
 * no TLS handshake, no answer); a failure is named (authentication refused, unreachable, TLS mismatch, stalled) and
 * logged once per change of state, and `/readyz` (./http.ts) reads the same state (its body says
 * only "redis unavailable").
 */
import { isIP } from 'node:net';
import type { Logger } from '@mcpgen/runtime/engine';
import type { RedisStores } from '@mcpgen/runtime/stores/redis';

export class ServiceUnavailableError extends Error {}

/**
 * The Redis stores of `--redis <url>` (the module, and ioredis with it, loaded only then). Once
 * connected, the connection's failures are named ({@link redisFailure}) and logged once per
 * change of state, with the recovery; the stores' own command errors are not logged meanwhile
 * (they repeat the outage once a second). `/readyz` reads the same state.
 * @throws ServiceUnavailableError when Redis cannot be reached.
 */
export async function connectRedis(
  url: string,
  options: { sessionIdleMs?: number; maxSessions?: number; logger?: Logger },
): Promise<RedisStores> {
  const state: RedisState = { down: undefined, stalled: false, where: redisWhere(url) };
  // ioredis would take its connect timeout, then its command timeout (5 s each), to give up on a
  // TLS handshake or a PING nobody answers, and then say only "Connection is closed."
  const unreachable = await probeRedis(url, state.where);
  if (unreachable)
    // (`unreachable` names the Redis, host and port, once)
    throw new ServiceUnavailableError(`--redis: ${unreachable}`);
  const { connectRedisStores } = await import('@mcpgen/runtime/stores/redis');
  let stores: RedisStores;
  // a stall (connected, no answer): commands time out, the connection raises no error; named once,
  // then one PING at a time (each bounded by the command timeout) until Redis answers again
  const stalled = (): void => {
    if (state.stalled) return;
    state.stalled = true;
    options.logger?.warn?.(`redis: Redis at ${state.where} gives no answer within the command timeout (stalled)`);
    const probe = (): void => {
      stores.client.ping().then(
        () => {
          state.stalled = false;
          options.logger?.warn?.(`redis: Redis at ${state.where} answers again`);
        },
        () => setTimeout(probe, 1000).unref(),
      );
    };
    probe();
  };
  try {
    stores = await connectRedisStores(url, {
      connectTimeoutMs: REDIS_CONNECT_MS,
      sessionIdleMs: options.sessionIdleMs,
      maxSessions: options.maxSessions,
      onError: (e) => {
        if (state.down !== undefined || state.stalled) return;
        if (/Command timed out/.test(e.message)) stalled();
        else options.logger?.warn?.(`redis: ${e.message}`);
      },
    });
  } catch (e) {
    // ioredis says only "Connection is closed." when the connection failed: look again to name why
    const why = /Connection is closed/.test((e as Error).message) ? await probeRedis(url, state.where) : undefined;
    throw new ServiceUnavailableError(
      // (`why` names the Redis, host and port, once)
      `--redis: ${why ?? (e as Error).message}`,
    );
  }
  const where = state.where;
  stores.client.on('error', (e: Error) => {
    const why = redisFailure(e, where);
    // (an outage already named by a failed store operation is not named again as the lost or
    // refused connection it is; another cause, such as refused credentials, is)
    if (why === state.down || (state.down === notConnected(where) && /unreachable|closed the connection/.test(why)))
      return;
    state.down = why;
    options.logger?.warn?.(`redis: ${why}`);
  });
  stores.client.on('ready', () => {
    if (state.down === undefined) return;
    state.down = undefined;
    options.logger?.warn?.(`redis: connected again to ${where}`);
  });
  redisStates.set(stores, state);
  return stores;
}

/** How an outage first seen by a store operation is named (ioredis says "Stream isn't writeable…"). */
const notConnected = (where: string): string => `Redis at ${where} is unavailable: not connected (connecting again)`;

/** ioredis's words for a command refused or lost while its connection is down or being made again. */
const REDIS_NOT_CONNECTED = /Stream isn't writeable|enableOfflineQueue|Connection is closed/;

/**
 * Whether the error `e` of an endpoint (`onError`) is an operation of the `--redis` stores
 * `stores` that failed because Redis is out of reach; the caller then logs nothing. The first
 * such error of an outage marks the connection down and is logged once, in these words
 * (`redis: Redis at HOST:PORT is unavailable: not connected (connecting again)`, where ioredis
 * says "Stream isn't writeable and enableOfflineQueue options is false" for each operation);
 * the reconnection is logged as "connected again". While Redis is down or stalled, the session
 * store's errors are such errors too. False for any other error, or stores not made by
 * {@link connectRedis}.
 */
export function redisUnavailable(stores: object | undefined, e: Error, logger?: Logger): boolean {
  const state = stores && redisStates.get(stores);
  if (!state) return false;
  const lost = REDIS_NOT_CONNECTED.test(e.message);
  if (state.down !== undefined || state.stalled) return lost || /session store/.test(e.message);
  if (!lost) return false;
  state.down = notConnected(state.where);
  logger?.warn?.(`redis: ${state.down}`);
  return true;
}

/** What `serve` knows of its Redis connection: the named failure while it is down. */
export interface RedisState {
  down: string | undefined;
  /** Connected, but commands time out (named once, until a PING is answered). */
  stalled: boolean;
  /** host:port of the Redis. */
  readonly where: string;
}
const redisStates = new WeakMap<object, RedisState>();

/** The state {@link connectRedis} keeps of `stores`' connection (undefined: not made by it). */
export function redisState(stores: object): RedisState | undefined {
  return redisStates.get(stores);
}

/** Why `/readyz` finds Redis not ready, for the log: the named state, else the failed PING's error (a connection being re-made named so). */
export function readyReason(state: RedisState | undefined, e: Error): string {
  if (state?.down !== undefined) return state.down;
  if (state && /Stream isn't writeable|Connection is closed/.test(e.message))
    return `Redis at ${state.where}: not connected (connecting again)`;
  return e.message;
}

/**
 * How long `serve` gives Redis to answer at start-up, ms: the TCP connection, the TLS handshake
 * (rediss://) and the answer to a PING, together (ioredis's connect timeout too).
 */
export const REDIS_CONNECT_MS = 2000;

/**
 * Why the Redis of `url` cannot be reached, found without ioredis within
 * {@link REDIS_CONNECT_MS}: the host name does not resolve, the TCP connection is refused or not
 * made, (rediss://) the TLS handshake fails or gets no answer (a server without TLS), or the
 * server accepts the connection but does not answer a PING (any answer counts, NOAUTH too);
 * undefined when Redis answers.
 */
export async function probeRedis(url: string, where: string): Promise<string | undefined> {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return undefined;
  }
  const host = u.hostname.replace(/^\[|\]$/g, '');
  const port = Number(u.port || '6379');
  const tls = u.protocol === 'rediss:';
  const { connect } = await import(tls ? 'node:tls' : 'node:net');
  return new Promise((resolve) => {
    const socket = (connect as typeof import('node:tls').connect)({
      host,
      port,
      ...(isIP(host) ? {} : { servername: host }),
      rejectUnauthorized: false,
    });
    let stage: 'tcp' | 'tls' | 'ping' = 'tcp';
    const done = (why: string | undefined): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(why);
    };
    const tlsFailed = (what: string): string =>
      redisFailure(Object.assign(new Error(`TLS handshake failed: ${what}`), { code: 'ERR_TLS' }), where);
    const timer = setTimeout(() => {
      const within = `within ${REDIS_CONNECT_MS} ms`;
      done(
        stage === 'tcp'
          ? `Redis at ${where} is unreachable: no TCP connection ${within} (ETIMEDOUT)`
          : stage === 'tls'
            ? tlsFailed(`no answer ${within} (not a TLS server?)`)
            : `Redis at ${where} accepted the connection but gave no answer to PING ${within} (timed out)`,
      );
    }, REDIS_CONNECT_MS);
    socket.once('connect', () => (stage = tls ? 'tls' : 'ping'));
    socket.once(tls ? 'secureConnect' : 'connect', () => {
      stage = 'ping';
      socket.write('PING\r\n');
    });
    socket.once('data', () => done(undefined));
    socket.once('end', () =>
      done(
        stage === 'ping'
          ? `Redis at ${where} closed the connection before it answered PING`
          : tlsFailed('the server closed the connection'),
      ),
    );
    socket.on('error', (e: Error & { code?: string }) => {
      const named = redisFailure(e, where);
      done(
        tls && (stage !== 'tcp' || /closed the connection|disconnected/.test(`${named} ${e.message}`))
          ? stage === 'ping'
            ? named
            : tlsFailed(e.message)
          : named,
      );
    });
  });
}

/** `host:port` of a Redis URL (6379 when it names none), never its credentials. */
function redisWhere(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || '6379'}`;
  } catch {
    return 'the --redis URL';
  }
}

/** What Redis answers a refused `AUTH` or a command without one where one is needed. */
const REDIS_AUTH_REFUSED = /WRONGPASS|NOAUTH|invalid password|invalid username-password|AUTH failed|ERR AUTH/i;

/**
 * A Redis connection error `e` of the Redis at `where` (host:port) named for an operator:
 * credentials refused, connection refused, host not found, unreachable, TLS mismatch, connection
 * reset; else the error's first line. Names no credential (ioredis errors carry none).
 */
export function redisFailure(e: Error & { code?: string }, where: string): string {
  const message = e.message.split('\n')[0] ?? '';
  const code = typeof e.code === 'string' ? e.code : '';
  if (REDIS_AUTH_REFUSED.test(message))
    return `authentication refused by Redis at ${where} (the --redis credentials are wrong or missing): ${message}`;
  if (code === 'ECONNREFUSED') return `Redis at ${where} is unreachable: connection refused`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NONAME')
    return `Redis at ${where} is unreachable: the host name does not resolve (${code})`;
  if (code === 'ETIMEDOUT' || code === 'EHOSTUNREACH' || code === 'ENETUNREACH')
    return `Redis at ${where} is unreachable (${code})`;
  if (code.startsWith('ERR_SSL') || code.startsWith('ERR_TLS') || /SSL|TLS|wrong version number/i.test(message))
    return `TLS with Redis at ${where} failed (rediss:// to a server without TLS, or redis:// to one with it?): ${message}`;
  if (code === 'ECONNRESET' || code === 'EPIPE') return `Redis at ${where} closed the connection (${code})`;
  return `Redis at ${where}: ${message}`;
}
