/**
 * Shared pieces of the stateless (draft) tests: a scripted raw server over the memory pair that
 * records every request it sees, a generated draft Client wired to a generated Server, and a
 * stateless server behind real node:http that tools/call POSTs are sent to.
 */
import { Client, Server, type ClientOptions, type ServerOptions } from '../../../generated/draft/index.js';
import { createMemoryPair, type MemoryTransport } from '../../../runtime/transport/memory.js';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RequestHandler } from '../../../runtime/engine/peer.js';
import type { ProtocolTable } from '../../../runtime/protocol/table.js';
import { ServerSession } from '../../../runtime/session/server.js';
import { createStatelessHttpHandler } from '../../../runtime/transport/http/stateless/server.js';
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

/** A stateless server of `table` on 127.0.0.1 with `handlers`, and a tools/call POST to it. */
export async function statelessServer(table: ProtocolTable, handlers: Record<string, RequestHandler>) {
  const handler = createStatelessHttpHandler({ tables: [table] });
  const server = new ServerSession(table, {
    serverInfo: { name: 's', version: '1' },
    capabilities: { tools: {} },
    handlers,
    logger: {},
  });
  await server.connect(handler.transport);
  const http = createServer(handler);
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  const call = async (id: number, name: string) => {
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        'MCP-Protocol-Version': table.protocolVersion,
        'Mcp-Method': 'tools/call',
        'Mcp-Name': name,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: {
          name,
          arguments: {},
          _meta: {
            'io.modelcontextprotocol/protocolVersion': table.protocolVersion,
            'io.modelcontextprotocol/clientCapabilities': {},
            'io.modelcontextprotocol/clientInfo': { name: 'c', version: '1' },
          },
        },
      }),
    });
    return (await res.json()) as { result?: Record<string, unknown>; error?: { code: number; message: string } };
  };
  const close = async () => {
    await server.close();
    http.closeAllConnections();
    await new Promise<void>((r) => http.close(() => r()));
  };
  return { call, close };
}
