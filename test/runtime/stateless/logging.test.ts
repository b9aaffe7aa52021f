/**
 * ctx.log() per request (draft server/utilities/logging, "Per-request log level"): a stateless
 * request's `_meta["io.modelcontextprotocol/logLevel"]` decides which of its log messages go
 * out, on the request's own stream, before its response; none without the field. Over the
 * memory pair (the path stdio takes too), raw requests on the client end.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as draft from '../../../generated/draft/index.js';
import * as v2025 from '../../../generated/2025-11-25/index.js';
import { LOG_LEVELS, type RequestContext } from '../../../runtime/engine/context.js';
import { createMemoryPair } from '../../../runtime/transport/memory.js';
import type { JSONRPCMessage } from '../../../runtime/jsonrpc/transport.js';

const V = '2026-07-28';
const LOG_LEVEL = 'io.modelcontextprotocol/logLevel';
const meta = (extra: Record<string, unknown> = {}) => ({
  'io.modelcontextprotocol/protocolVersion': V,
  'io.modelcontextprotocol/clientCapabilities': {},
  ...extra,
});

/** A tool that logs once at every level, lowest first, and reports what ctx.log resolved with. */
const logEveryLevel = async (_p: unknown, ctx: RequestContext) => {
  const sent: boolean[] = [];
  for (const level of LOG_LEVELS) sent.push(await ctx.log(level, { n: LOG_LEVELS.indexOf(level) }, 'probe'));
  return { content: [{ type: 'text', text: sent.map((s) => (s ? '1' : '0')).join('') }] };
};

/** A raw client end of a Server of `Kind`; `call` sends one request, resolves with the messages up to its response. */
async function rawServer(kind: 'draft' | '2025', capabilities: Record<string, unknown>) {
  const [a, b] = createMemoryPair();
  const handlers = { 'tools/call': logEveryLevel, 'tools/list': () => ({ tools: [] }) };
  const server =
    kind === 'draft'
      ? new draft.Server({ serverInfo: { name: 's', version: '1' }, capabilities, handlers: handlers as never })
      : new v2025.Server({ serverInfo: { name: 's', version: '1' }, capabilities, handlers: handlers as never });
  await server.connect(a);
  const inbox: JSONRPCMessage[] = [];
  const waiting = new Map<string | number, (all: JSONRPCMessage[]) => void>();
  await b.start({
    onMessage: (m) => {
      inbox.push(m);
      const done = m.id !== undefined && !('method' in m) ? waiting.get(m.id as string | number) : undefined;
      if (done) done(inbox.splice(0));
    },
    onClose: () => undefined,
  });
  let next = 0;
  const call = (method: string, params: Record<string, unknown>): Promise<JSONRPCMessage[]> => {
    const id = ++next;
    const got = new Promise<JSONRPCMessage[]>((r) => waiting.set(id, r));
    void b.send({ jsonrpc: '2.0', id, method, params });
    return got;
  };
  return { server, call, close: () => server.close() };
}

const levelsOf = (messages: JSONRPCMessage[]) =>
  messages.filter((m) => m.method === 'notifications/message').map((m) => (m.params as { level: string }).level);

test("stateless: the request's logLevel picks the levels that arrive, all before the response", async () => {
  const s = await rawServer('draft', { tools: {}, logging: {} });
  const expected: Record<string, string[]> = {
    debug: [...LOG_LEVELS],
    info: LOG_LEVELS.slice(1),
    warning: ['warning', 'error', 'critical', 'alert', 'emergency'],
    error: ['error', 'critical', 'alert', 'emergency'],
    emergency: ['emergency'],
  };
  for (const [level, want] of Object.entries(expected)) {
    const messages = await s.call('tools/call', { name: 'x', arguments: {}, _meta: meta({ [LOG_LEVEL]: level }) });
    assert.equal(levelsOf(messages), want, `logLevel ${level}`);
    const response = messages.at(-1)!;
    assert.ok('result' in response, `logLevel ${level}: the response comes last`);
    const text = (response.result as { content: Array<{ text: string }> }).content[0].text;
    assert.is(
      text,
      LOG_LEVELS.map((l) => (want.includes(l) ? '1' : '0')).join(''),
      `ctx.log resolved values for ${level}`,
    );
    const first = messages.find((m) => m.method === 'notifications/message');
    assert.equal(first?.params, { level: want[0], data: { n: LOG_LEVELS.indexOf(want[0] as never) }, logger: 'probe' });
  }
  await s.close();
});

test('stateless: no logLevel in _meta, no log messages (and the level of one request does not leak into the next)', async () => {
  const s = await rawServer('draft', { tools: {}, logging: {} });
  const withLevel = await s.call('tools/call', { name: 'x', arguments: {}, _meta: meta({ [LOG_LEVEL]: 'debug' }) });
  assert.is(levelsOf(withLevel).length, 8);
  const without = await s.call('tools/call', { name: 'x', arguments: {}, _meta: meta() });
  assert.equal(levelsOf(without), []);
  assert.is((without.at(-1)!.result as { content: Array<{ text: string }> }).content[0].text, '00000000');
  await s.close();
});

test('stateless: a server without the logging capability sends none, whatever the request asks', async () => {
  const s = await rawServer('draft', { tools: {} });
  const messages = await s.call('tools/call', { name: 'x', arguments: {}, _meta: meta({ [LOG_LEVEL]: 'debug' }) });
  assert.equal(levelsOf(messages), []);
  assert.ok('result' in messages.at(-1)!);
  await s.close();
});

test('stateless: a logLevel that is not a level is refused with -32602 before the handler runs', async () => {
  const s = await rawServer('draft', { tools: {}, logging: {} });
  const messages = await s.call('tools/call', { name: 'x', arguments: {}, _meta: meta({ [LOG_LEVEL]: 'verbose' }) });
  assert.equal(levelsOf(messages), []);
  const error = messages.at(-1)!.error as { code: number; message: string };
  assert.is(error.code, -32602);
  assert.match(error.message, /logLevel/);
  await s.close();
});

test('stateless: ServerSession.log() outside a request sends nothing (log messages belong to a request)', async () => {
  const s = await rawServer('draft', { tools: {}, logging: {} });
  assert.is(await s.server.log('emergency', 'unscoped'), false);
  await s.close();
});

test('handshake revision: ctx.log follows logging/setLevel (every level until one is set)', async () => {
  const s = await rawServer('2025', { tools: {}, logging: {} });
  await s.call('initialize', {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 'c', version: '1' },
  });
  const before = await s.call('tools/call', { name: 'x', arguments: {} });
  assert.equal(levelsOf(before), [...LOG_LEVELS]);
  await s.call('logging/setLevel', { level: 'error' });
  const after = await s.call('tools/call', { name: 'x', arguments: {} });
  assert.equal(levelsOf(after), ['error', 'critical', 'alert', 'emergency']);
  await s.close();
});

test.run();
