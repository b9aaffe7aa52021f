/**
 * Case 015: argument validation failures are tool results with `isError: true`; unknown tools
 * and requests failing the CallToolRequest schema are JSON-RPC -32602 errors.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Client, Server } from '../../../generated/2025-11-25/index.js';
import { createMemoryPair } from '../../../runtime/transport/memory.js';
import { RpcError } from '../../../runtime/jsonrpc/errors.js';
import { ServerFeatures } from '../../../runtime/features/server-features.js';

const inputSchema = {
  type: 'object',
  properties: { departureDate: { type: 'string', format: 'date' }, passengers: { type: 'integer', minimum: 1 } },
  required: ['departureDate', 'passengers'],
  additionalProperties: false,
};

async function setup() {
  let calls = 0;
  const features = new ServerFeatures();
  features.tool<{ departureDate: string; passengers: number }>({
    name: 'book_flight',
    inputSchema,
    handler: (a) => {
      calls++;
      return `booked ${a.passengers} for ${a.departureDate}`;
    },
  });
  const [a, b] = createMemoryPair();
  const server = new Server({
    serverInfo: { name: 's', version: '1' },
    capabilities: features.capabilities(),
    handlers: features.handlers(),
  });
  await server.connect(b);
  const client = new Client({ clientInfo: { name: 'c', version: '1' } });
  await client.connect(a);
  return { client, calls: () => calls };
}

const text = (r: { content: unknown[] }) =>
  (r.content as { type: string; text?: string }[])
    .filter((c) => c.type === 'text')
    .map((c) => c.text)
    .join('\n');

test('015: a missing required field is an isError result naming the field; the handler is not called', async () => {
  const { client, calls } = await setup();
  const r = await client.callTool({ name: 'book_flight', arguments: { passengers: 2 } });
  assert.is(r.isError, true);
  assert.match(text(r), /departureDate: is required/);
  assert.is(calls(), 0);
  await client.close();
});

test('015: a value out of range is an isError result naming the path and the bound', async () => {
  const { client, calls } = await setup();
  const r = await client.callTool({ name: 'book_flight', arguments: { departureDate: '2031-05-01', passengers: 0 } });
  assert.is(r.isError, true);
  assert.match(text(r), /passengers: must be >= 1/);
  assert.is(calls(), 0);
  await client.close();
});

test('015: wrong types name both fields; a bad date format is an isError result', async () => {
  const { client, calls } = await setup();
  const r = await client.callTool({ name: 'book_flight', arguments: { departureDate: 12, passengers: 'two' } });
  assert.is(r.isError, true);
  assert.match(text(r), /departureDate: must be string/);
  assert.match(text(r), /passengers: must be integer/);
  const d = await client.callTool({ name: 'book_flight', arguments: { departureDate: '2031-13-45', passengers: 1 } });
  assert.is(d.isError, true);
  assert.match(text(d), /departureDate: must match format "date"/);
  assert.is(calls(), 0);
  const ok = await client.callTool({ name: 'book_flight', arguments: { departureDate: '2031-05-01', passengers: 1 } });
  assert.is(ok.isError, undefined);
  assert.is(text(ok), 'booked 1 for 2031-05-01');
  assert.is(calls(), 1);
  await client.close();
});

test('015: an unknown tool is JSON-RPC -32602 naming the tool', async () => {
  const { client } = await setup();
  const e = await client
    .callTool({ name: 'book_fligth', arguments: { departureDate: '2031-05-01', passengers: 1 } })
    .catch((x: unknown) => x);
  assert.instance(e, RpcError);
  assert.is((e as RpcError).code, -32602);
  assert.match((e as RpcError).message, /Unknown tool: book_fligth/);
  await client.close();
});

test('015: requests failing the CallToolRequest schema are -32602 (missing name, arguments not an object)', async () => {
  const { client, calls } = await setup();
  for (const params of [
    { arguments: { departureDate: '2031-05-01', passengers: 1 } },
    { name: 'book_flight', arguments: 'departureDate=2031-05-01' },
  ]) {
    const e = await client.peer.request('tools/call', params as never).catch((x: unknown) => x);
    assert.instance(e, RpcError);
    assert.is((e as RpcError).code, -32602);
  }
  assert.is(calls(), 0);
  await client.close();
});

test.run();
