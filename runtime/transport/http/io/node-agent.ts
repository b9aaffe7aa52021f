/**
 * The default keep-alive agents of the `node:http` / `node:https` requester (./node-request.ts):
 * one per scheme for the process, a socket timed only while it is pooled, closed before the
 * server would close it as idle.
 */
import { Agent as HttpAgent, type ClientRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { rawHeader } from './request.js';

/**
 * Sockets per origin of the default keep-alive agents. Requests past it wait for a free
 * socket; long-lived GET streams are not counted (see `HttpRequestInit.stream`, ./request.ts).
 */
export const DEFAULT_MAX_SOCKETS = 256;
/**
 * How long the default agents keep an idle socket, ms: less than the 5 s of Node's servers
 * (`keepAliveTimeout`), and 1 s less than a shorter `Keep-Alive: timeout=N` a server announces. A request written on a socket
 * the server closes as idle at that very moment fails, and is not sent again: the client closing
 * first makes that rare.
 */
export const KEEP_ALIVE_IDLE_MS = 4000;
let sharedHttp: HttpAgent | undefined;
let sharedHttps: HttpsAgent | undefined;

/**
 * The idle timeout of a socket going back to the pool, ms: {@link KEEP_ALIVE_IDLE_MS}, or 1 s
 * less than a shorter `Keep-Alive: timeout=N` of the last response (as Node's agent reads it);
 * undefined when that hint leaves no time (N of 1 or less): the socket is not kept.
 */
function idleMs(socket: Duplex): number | undefined {
  // no response (null) when the request was destroyed before it had its socket: Node frees it unused
  const res = (socket as { _httpMessage?: { res?: IncomingMessage | null } | null })._httpMessage?.res;
  const hint = res ? rawHeader(res.rawHeaders, 'keep-alive') : undefined;
  const seconds = hint ? /^timeout=(\d+)/.exec(hint)?.[1] : undefined;
  if (seconds === undefined) return KEEP_ALIVE_IDLE_MS;
  const ms = Number.parseInt(seconds, 10) * 1000 - 1000;
  if (!(ms > 0)) return undefined;
  return Math.min(ms, KEEP_ALIVE_IDLE_MS);
}

// The idle timeout is set when a socket goes back to the pool and cleared when a request takes
// it, not given as the agent's `timeout`: that one also times every request on the socket (a
// listener per request, the timer refreshed on every read and write, and set again after each
// response). Node's agent destroys a pooled socket whose timeout fires.
// keepSocketAlive takes the steps of Node's own (20 to 24: TCP keep-alive, unref, the server's
// `Keep-Alive: timeout=N` hint, false when it leaves no time) without calling it: Node's reads
// the hint through `res.headers`, which builds the response's whole lower-case header object
// (~2 µs and ~0.3 kB per request) that nothing else on this path reads; the hint is read here
// from `rawHeaders`.
function idleAgent(Base: typeof HttpAgent): typeof HttpAgent {
  return class extends Base {
    override keepSocketAlive(socket: Duplex): boolean {
      const ms = idleMs(socket);
      const s = socket as Socket;
      s.setKeepAlive(true, (this as { keepAliveMsecs?: number }).keepAliveMsecs);
      s.unref();
      if (ms === undefined) return false;
      s.setTimeout(ms);
      return true;
    }
    override reuseSocket(socket: Duplex, request: ClientRequest): void {
      (socket as Socket).setTimeout(0);
      super.reuseSocket(socket, request);
    }
  };
}
const IdleHttpAgent = idleAgent(HttpAgent);
const IdleHttpsAgent = idleAgent(HttpsAgent) as typeof HttpsAgent;

/** The process-wide keep-alive agent for `protocol` (`http:` or `https:`). */
export function defaultAgent(protocol: string): HttpAgent {
  const options = { keepAlive: true, maxSockets: DEFAULT_MAX_SOCKETS };
  if (protocol === 'https:') return (sharedHttps ??= new IdleHttpsAgent(options));
  return (sharedHttp ??= new IdleHttpAgent(options));
}
