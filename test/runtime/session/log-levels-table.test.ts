/**
 * Log levels are revision facts read from the table (server/utilities/logging, "Log Levels"):
 * the generated tables carry schema.ts's `LoggingLevel` union in its order, and a server session
 * ranks levels in the order of its table. A table with another order changes which messages pass
 * the threshold, for `server.log()` after logging/setLevel (handshake) and for `ctx.log()` with
 * a request's `_meta` logLevel (stateless).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as v2025 from '../../../generated/2025-11-25/index.js';
import * as draft from '../../../generated/draft/index.js';
import { ServerSession } from '../../../runtime/session/server.js';
import type { ProtocolMaps, ProtocolTable } from '../../../runtime/protocol/table.js';
import type { RequestContext } from '../../../runtime/engine/context.js';
import { createMemoryPair } from '../../../runtime/transport/memory.js';
import type { JSONRPCMessage } from '../../../runtime/jsonrpc/transport.js';

const SEVERITY = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

test('the generated tables list the LoggingLevel values in schema.ts order, least severe first', () => {
  for (const t of [v2025.table, draft.table]) assert.equal([...(t.loggingLevels ?? [])], SEVERITY, t.revision);
});

test("handshake: server.log() ranks levels in its table's order", async () => {
  const reversed: ProtocolTable = { ...v2025.table, loggingLevels: [...SEVERITY].reverse() };
  const [a, b] = createMemoryPair();
  const server = new ServerSession<ProtocolMaps>(reversed, {
    serverInfo: { name: 's', version: '1' },
    capabilities: { logging: {} },
  });
  await server.connect(b);
  const got: string[] = [];
  const client = new v2025.Client({
    clientInfo: { name: 'c', version: '0' },
    notificationHandlers: { 'notifications/message': (p) => void got.push(p.level) },
  });
  await client.connect(a);
  await client.setLevel({ level: 'warning' });
  // reversed: emergency is least severe, debug most; 'info' ranks above 'warning', 'error' below it
  assert.is(await server.log('error', 'dropped'), false);
  assert.is(await server.log('info', 'kept'), true);
  assert.is(await server.log('debug', 'kept'), true);
  await client.ping();
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(got, ['info', 'debug']);
  await client.close();
});

test("stateless: ctx.log() with a _meta logLevel passes the levels at or above it in the table's order", async () => {
  const levels = ['error', 'debug', 'info']; // a table that knows three levels, in this order
  const table: ProtocolTable = { ...draft.table, loggingLevels: levels };
  const [a, b] = createMemoryPair();
  const tool = async (_p: unknown, ctx: RequestContext) => {
    const sent: string[] = [];
    for (const level of ['error', 'debug', 'info'] as const) if (await ctx.log(level, level)) sent.push(level);
    const unknown = await ctx.log('warning', 'x').then(
      () => 'sent',
      (e: unknown) => (e instanceof TypeError ? 'TypeError' : String(e)),
    );
    return { resultType: 'complete', content: [{ type: 'text', text: `${sent.join(',')};${unknown}` }] };
  };
  const server = new ServerSession<ProtocolMaps>(table, {
    serverInfo: { name: 's', version: '1' },
    capabilities: { tools: {}, logging: {} },
    handlers: { 'tools/call': tool } as never,
  });
  await server.connect(a);
  const inbox: JSONRPCMessage[] = [];
  let done: ((m: JSONRPCMessage[]) => void) | undefined;
  await b.start({
    onMessage: (m) => {
      inbox.push(m);
      if ('result' in m || 'error' in m) done?.(inbox.splice(0));
    },
    onClose: () => undefined,
  });
  const call = (id: number, level: string) => {
    const got = new Promise<JSONRPCMessage[]>((r) => (done = r));
    const _meta = {
      'io.modelcontextprotocol/protocolVersion': draft.table.protocolVersion,
      'io.modelcontextprotocol/clientCapabilities': {},
      'io.modelcontextprotocol/logLevel': level,
    };
    void b.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 't', arguments: {}, _meta } });
    return got;
  };
  const textOf = (ms: JSONRPCMessage[]) => (ms.at(-1)!.result as { content: Array<{ text: string }> }).content[0].text;
  const levelsOf = (ms: JSONRPCMessage[]) =>
    ms.filter((m) => m.method === 'notifications/message').map((m) => (m.params as { level: string }).level);
  const atDebug = await call(1, 'debug');
  assert.equal(levelsOf(atDebug), ['debug', 'info']);
  assert.is(textOf(atDebug), 'debug,info;TypeError');
  // 'warning' is not a level of this table: the request asks for none, so nothing goes out
  const atWarning = await call(2, 'warning');
  assert.equal(levelsOf(atWarning), []);
  await server.close();
});

test.run();
