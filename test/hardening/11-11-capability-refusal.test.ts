/**
 * Issue 11, finding 11 (the request paths): every outbound request checks the other side's
 * declared capabilities in the engine, so no path skips it — a handler's `ctx.sendRequest`,
 * the session's `request`, a task context — and the refusal reaches the caller as a typed
 * CapabilityNotDeclaredError (-32601, the missing capability named) with nothing sent.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Client, Server } from '../../generated/2025-11-25/index.js';
import { CapabilityNotDeclaredError } from '../../runtime/jsonrpc/errors.js';
import type { RequestContext } from '../../runtime/engine/peer.js';
import type { ServerSession } from '../../runtime/session/server.js';
import type { ProtocolMaps } from '../../runtime/protocol/table.js';
import { createMemoryPair } from '../../runtime/transport/memory.js';

const outbound: Array<[string, Record<string, unknown>, string[]]> = [
  [
    'sampling/createMessage',
    { messages: [{ role: 'user', content: { type: 'text', text: 'x' } }], maxTokens: 1 },
    ['sampling'],
  ],
  [
    'elicitation/create',
    { mode: 'form', message: 'x', requestedSchema: { type: 'object', properties: {} } },
    ['elicitation'],
  ],
  ['roots/list', {}, ['roots']],
  ['tasks/list', {}, ['tasks', 'list']],
];

async function pair(clientCapabilities: Record<string, unknown>) {
  const seen: string[] = [];
  const refusals: unknown[] = [];
  const server = new Server({
    serverInfo: { name: 's', version: '1' },
    capabilities: { tools: {} },
    handlers: {
      'tools/list': () => ({ tools: [] }),
      'tools/call': async (p: { name: string }, ctx: RequestContext) => {
        const [method, params] = outbound.find(([m]) => m === p.name)!;
        // two paths: the handler's context, and the session facade
        for (const send of [
          () => ctx.sendRequest(method, params),
          () => (ctx.session as ServerSession<ProtocolMaps>).request(method as never, params as never),
        ]) {
          try {
            await send();
            refusals.push('sent');
          } catch (e) {
            refusals.push(e);
          }
        }
        return { content: [{ type: 'text', text: 'ok' }] };
      },
    } as never,
  });
  const client = new Client({
    clientInfo: { name: 'c', version: '0' },
    capabilities: clientCapabilities,
    handlers: Object.fromEntries(
      outbound.map(([m]) => [
        m,
        () => {
          seen.push(m);
          return m === 'roots/list'
            ? { roots: [] }
            : m === 'tasks/list'
              ? { tasks: [] }
              : m === 'elicitation/create'
                ? { action: 'decline' }
                : { role: 'assistant', content: { type: 'text', text: 'y' }, model: 'm' };
        },
      ]),
    ) as never,
  });
  const [a, b] = createMemoryPair();
  await server.connect(b);
  await client.connect(a);
  return { server, client, seen, refusals };
}

test('a client that declared nothing: every server→client request is refused locally, typed, on every path', async () => {
  const { client, seen, refusals } = await pair({});
  for (const [method, , capability] of outbound) {
    refusals.length = 0;
    await client.request('tools/call', { name: method } as never);
    assert.is(refusals.length, 2);
    for (const e of refusals) {
      assert.instance(e, CapabilityNotDeclaredError, `${method}: ${String(e)}`);
      const err = e as CapabilityNotDeclaredError;
      assert.is(err.code, -32601);
      assert.is(err.method, method);
      assert.equal(err.capability, capability);
      assert.is(err.receiver, 'client');
    }
  }
  assert.equal(seen, [], 'nothing reached the client');
  await client.close();
});

test('a client that declared them: the same requests go out and are answered', async () => {
  const { client, seen, refusals } = await pair({
    sampling: {},
    elicitation: { form: {} },
    roots: {},
    tasks: { list: {} },
  });
  for (const [method] of outbound) await client.request('tools/call', { name: method } as never);
  assert.equal(
    refusals.filter((r) => r !== 'sent'),
    [],
  );
  assert.equal(
    seen,
    outbound.flatMap(([m]) => [m, m]),
  );
  await client.close();
});

test('client → server: a request the server did not declare is refused locally with the typed error', async () => {
  const { client } = await pair({});
  const e = await client.request('prompts/list', {} as never).then(
    () => undefined,
    (x: unknown) => x,
  );
  assert.instance(e, CapabilityNotDeclaredError);
  assert.equal((e as CapabilityNotDeclaredError).capability, ['prompts']);
  assert.is((e as CapabilityNotDeclaredError).receiver, 'server');
  await client.close();
});

test.run();
