/**
 * Issue 11, finding 7: JSON-RPC batches follow the negotiated revision's schema. Where it has
 * them (its schema.json defines JSONRPCBatchRequest: 2025-03-26) a batch is answered entry by
 * entry, the responses together (stdio: one array line; Streamable HTTP: one JSON array or one
 * SSE stream, 202 for notifications only); invalid entries each get -32600; an empty batch gets
 * one -32600. Where it has none, a batch gets one -32600 (HTTP: 400). Against
 * `mcpgen serve --stdio` and `--http 0`, every handshake revision negotiated.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { servedDuring } from '../runtime/tasks/serve-process.js';
import { HANDSHAKE_REVS, HttpWire, StdioWire, initialize, schemaDefs } from './wire.js';

type Json = Record<string, unknown>;

/** The `mcpgen serve --http 0` the HTTP tests talk to. */
const served = servedDuring(test);

const hasBatches = (rev: string) => Object.hasOwn(schemaDefs(rev), 'JSONRPCBatchRequest');
const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const code = (m: Json) => (m.error as { code?: number } | undefined)?.code;

/** A batch: two requests, an invalid request with a readable id, a non-object, a notification. */
const mixed = (base: number) => [
  { jsonrpc: '2.0', id: base, method: 'ping' },
  { jsonrpc: '2.0', id: base + 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'in a batch' } } },
  { jsonrpc: '2.0', id: base + 2, method: 5 },
  7,
  { jsonrpc: '2.0', method: 'notifications/initialized' },
];

/** Checks the responses to `mixed(base)`: each entry answered once, as it would be alone. */
function checkMixed(responses: unknown[], base: number): void {
  assert.ok(responses.every(isObj), JSON.stringify(responses));
  const all = responses as Json[];
  assert.is(all.length, 4, JSON.stringify(all));
  const byId = (id: unknown) => all.filter((m) => m.id === id);
  assert.equal(
    byId(base).map((m) => m.result),
    [{}],
  );
  const echo = byId(base + 1);
  assert.is(echo.length, 1);
  assert.equal((echo[0].result as Json).content, [{ type: 'text', text: 'in a batch' }]);
  assert.equal(byId(base + 2).map(code), [-32600]);
  assert.equal(all.filter((m) => !('id' in m)).map(code), [-32600]);
}

for (const rev of HANDSHAKE_REVS) {
  test(`stdio, ${rev} negotiated: batches ${hasBatches(rev) ? 'answered as one array' : 'refused with -32600'}`, async () => {
    const wire = new StdioWire();
    try {
      await initialize(wire, rev);
      wire.writeLine(JSON.stringify(mixed(1)));
      const answer = await wire.next();
      if (hasBatches(rev)) {
        assert.ok(Array.isArray(answer), `one array: ${JSON.stringify(answer)}`);
        checkMixed(answer as unknown[], 1);
      } else {
        assert.ok(isObj(answer), JSON.stringify(answer));
        assert.is(code(answer as Json), -32600);
        assert.not.ok('id' in (answer as Json), 'no id member (the error-id rule)');
      }
      // notifications only: nothing where batches exist, one -32600 where not; the ping after it is answered
      wire.writeLine(
        JSON.stringify([
          { jsonrpc: '2.0', method: 'notifications/initialized' },
          { jsonrpc: '2.0', method: 'notifications/roots/list_changed' },
        ]),
      );
      wire.writeLine(JSON.stringify({ jsonrpc: '2.0', id: 50, method: 'ping' }));
      const first = (await wire.next()) as Json;
      if (hasBatches(rev)) assert.equal(first, { jsonrpc: '2.0', id: 50, result: {} });
      else {
        assert.is(code(first), -32600);
        assert.equal(await wire.next(), { jsonrpc: '2.0', id: 50, result: {} });
      }
      // empty: one -32600, never an array
      wire.writeLine('[]');
      const empty = await wire.next();
      assert.ok(isObj(empty), JSON.stringify(empty));
      assert.is(code(empty as Json), -32600);
      // none of the refused batch's requests ran meanwhile
      assert.ok((await wire.request('ping')).result);
      assert.not.ok(await wire.arrives(() => true, 300), 'nothing else arrives');
    } finally {
      await wire.close();
    }
  });

  test(`http, ${rev} negotiated: batches ${hasBatches(rev) ? 'answered on one response' : 'refused with 400 -32600'}`, async () => {
    const wire = new HttpWire(served().url);
    try {
      await initialize(wire, rev);
      const r = await wire.post(mixed(1));
      if (hasBatches(rev)) {
        assert.is(r.status, 200);
        const responses = r.contentType?.startsWith('application/json') ? (r.values[0] as unknown[]) : r.values;
        assert.ok(Array.isArray(responses), JSON.stringify(r));
        checkMixed(responses, 1);
      } else {
        assert.is(r.status, 400);
        assert.is(code(r.values[0] as Json), -32600);
      }
      const notes = await wire.post([{ jsonrpc: '2.0', method: 'notifications/initialized' }]);
      assert.is(notes.status, hasBatches(rev) ? 202 : 400);
      const empty = await wire.post([]);
      assert.is(empty.status, 400);
      assert.ok(isObj(empty.values[0]));
      assert.is(code(empty.values[0] as Json), -32600);
      if (hasBatches(rev)) {
        // a batch whose request sends progress first: one SSE stream with the notifications and both responses
        const p = await wire.post([
          {
            jsonrpc: '2.0',
            id: 20,
            method: 'tools/call',
            params: { name: 'test_tool_with_progress', arguments: {}, _meta: { progressToken: 'batch-progress' } },
          },
          { jsonrpc: '2.0', id: 21, method: 'ping' },
        ]);
        assert.is(p.status, 200);
        assert.ok(p.contentType?.startsWith('text/event-stream'), String(p.contentType));
        const msgs = p.values as Json[];
        assert.ok(
          msgs.some((m) => m.method === 'notifications/progress'),
          JSON.stringify(msgs),
        );
        assert.equal(
          msgs
            .filter((m) => m.id === 20 || m.id === 21)
            .map((m) => [m.id, !!m.result])
            .sort(),
          [
            [20, true],
            [21, true],
          ],
        );
        // a request id repeated inside a batch: the second one is refused in the answer, the first runs
        const dup = await wire.post([
          { jsonrpc: '2.0', id: 30, method: 'ping' },
          { jsonrpc: '2.0', id: 30, method: 'ping' },
        ]);
        const all = dup.contentType?.startsWith('application/json')
          ? (dup.values[0] as Json[])
          : (dup.values as Json[]);
        assert.equal(all.map((m) => [m.id, m.result ? 'result' : code(m)]).sort(), [
          [30, -32600],
          [30, 'result'],
        ]);
      }
      assert.ok((await wire.request('ping')).result);
    } finally {
      await wire.close();
    }
  });
}

test.run();
