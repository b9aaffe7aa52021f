/**
 * Shared pieces of the stateless (draft) tests: a scripted raw server over the memory pair that
 * records every request it sees, and a generated draft Client wired to a generated Server.
 */
import { Client, Server, type ClientOptions, type ServerOptions } from '../../../generated/draft/index.js';
import { createMemoryPair, type MemoryTransport } from '../../../runtime/transport/memory.js';
import type { JSONRPCMessage } from '../../../runtime/jsonrpc/transport.js';

export interface SeenRequest {
  id: string | number;
  method: string;
  params: Record<string, unknown>;
}
/** What a scripted handler returns: a result object, `{ error }`, or undefined for no answer. */
export type Scripted =
  | Record<string, unknown>
  | { error: { code: number; message: string; data?: unknown } }
  | undefined;

/**
 * A raw server end: answers `server/discover` with 2026-07-28, hands every other request to
 * `reply`, records all requests (wire form) in `seen`.
 */
export async function scriptedServer(reply: (req: SeenRequest, n: number) => Scripted, supported = ['2026-07-28']) {
  const [a, b] = createMemoryPair();
  const seen: SeenRequest[] = [];
  let n = 0;
  await b.start({
    onMessage: (m: JSONRPCMessage) => {
      if (typeof m.method !== 'string' || m.id === undefined) return;
      const req = {
        id: m.id as string | number,
        method: m.method,
        params: (m.params ?? {}) as Record<string, unknown>,
      };
      seen.push(req);
      const answer =
        req.method === 'server/discover'
          ? {
              resultType: 'complete',
              supportedVersions: supported,
              capabilities: { tools: {}, resources: {}, prompts: {} },
              ttlMs: 0,
              cacheScope: 'public',
            }
          : reply(req, n++);
      if (answer === undefined) return;
      const msg =
        'error' in answer
          ? { jsonrpc: '2.0', id: req.id, error: answer.error }
          : { jsonrpc: '2.0', id: req.id, result: answer };
      void b.send(msg as JSONRPCMessage);
    },
    onClose: () => undefined,
  });
  return { transport: a, server: b, seen };
}

/** A generated draft Client connected to a generated draft Server over the memory pair. */
export async function pair(serverOptions: ServerOptions, clientOptions: Partial<ClientOptions> = {}) {
  const [a, b]: [MemoryTransport, MemoryTransport] = createMemoryPair();
  const server = new Server(serverOptions);
  await server.connect(b);
  const client = new Client({ clientInfo: { name: 'test-client', version: '1.0.0' }, ...clientOptions });
  await client.connect(a);
  return { client, server };
}

export const tick = (ms = 0) => new Promise((r) => setTimeout(r, ms));
