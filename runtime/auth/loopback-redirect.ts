/**
 * The user-agent step for command-line tools (RFC 8252 section 7.3, loopback interface
 * redirection; 2025-11-25 basic/authorization, "Communication Security": a `localhost` /
 * loopback redirect URI): a `node:http` listener on 127.0.0.1 receives the authorization
 * server's redirect, while the user opens the authorization URL in a browser.
 * `@mcpgen/runtime/auth/loopback` (Node only; also exported by `@mcpgen/runtime/auth` on Node).
 *
 * @module
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { UserAgent } from './client.js';

/** Options of {@link startLoopbackRedirect}. */
export interface LoopbackRedirectOptions {
  /** The port to listen on (0: any free port, the default). */
  port?: number;
  /** The callback path. Default `/callback`. */
  path?: string;
  /** Shows the authorization URL to the user (print it, open a browser). Required. */
  open: (url: URL) => void | Promise<void>;
  /** How long to wait for the redirect, ms. Default 300 000 (5 minutes); then the step rejects. */
  timeoutMs?: number;
}

/** A listening loopback redirect receiver. */
export interface LoopbackRedirect {
  /** `http://127.0.0.1:<port><path>`: register this as the client's redirect URI. */
  readonly redirectUri: string;
  /** The {@link UserAgent} for `oauthFetch`: one authorization at a time. */
  readonly userAgent: UserAgent;
  /** Stops listening; a step still waiting rejects. */
  close(): Promise<void>;
}

const PAGE =
  '<!doctype html><meta charset="utf-8"><title>mcpgen</title><p>Authorization received. You can close this window.</p>\n';

/**
 * Starts the receiver. Requests to other paths get 404; a redirect arriving while no step waits
 * gets 400. The page shown after the redirect says nothing of the result.
 * @throws when the port cannot be bound.
 */
export async function startLoopbackRedirect(options: LoopbackRedirectOptions): Promise<LoopbackRedirect> {
  const path = options.path ?? '/callback';
  const timeoutMs = options.timeoutMs ?? 300_000;
  let waiting: { resolve: (u: URL) => void; reject: (e: Error) => void } | undefined;
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', redirectUri);
    if (url.pathname !== path || (req.method ?? 'GET') !== 'GET')
      return void res.writeHead(404, { 'Content-Type': 'text/plain' }).end('Not Found\n');
    if (!waiting)
      return void res.writeHead(400, { 'Content-Type': 'text/plain' }).end('No authorization is in progress\n');
    const w = waiting;
    waiting = undefined;
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' }).end(PAGE);
    w.resolve(url);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const redirectUri = `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;
  const userAgent: UserAgent = async (url) => {
    if (waiting) throw new Error('loopback redirect: an authorization is already in progress');
    const answer = new Promise<URL>((resolve, reject) => {
      const timer = setTimeout(() => {
        waiting = undefined;
        reject(new Error(`loopback redirect: no redirect within ${timeoutMs} ms`));
      }, timeoutMs);
      timer.unref?.();
      waiting = {
        resolve: (u) => {
          clearTimeout(timer);
          resolve(u);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      };
    });
    await options.open(url);
    return answer;
  };
  return {
    redirectUri,
    userAgent,
    close: () =>
      new Promise<void>((resolve) => {
        waiting?.reject(new Error('loopback redirect closed'));
        waiting = undefined;
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
