/**
 * `client.close()` over stdio with calls in flight (docs/guide/stdio.md, Shutdown): every call
 * not settled when `close()` is called rejects with `ConnectionClosedError` "Connection closed
 * before the response (the request may have run)"; a call made after it, "(the request was not sent)", never with the server's own answer to its stdin closing (its handlers are told,
 * and answer -32000 "Connection closed", which raced the client's close: a plain `RpcError`
 * before). Real `mcpgen serve --stdio` children, over rounds: calls that wait 60 s, and quick
 * ones sent in the same turn as the close.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as v2025 from '../../../generated/2025-11-25/index.js';
import { ConnectionClosedError } from '../../../runtime/jsonrpc/errors.js';
import { StdioClientTransport } from '../../../runtime/transport/stdio.js';
import { bin, root } from '../tasks/serve-process.js';

const ROUNDS = 6;

test(`close() with calls in flight: each rejects with ConnectionClosedError (${ROUNDS} rounds, real serve --stdio)`, async () => {
  for (let round = 0; round < ROUNDS; round++) {
    const client = new v2025.Client({ clientInfo: { name: 'closer', version: '1' } });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [bin, 'serve', '--stdio', '--rev', '2025-11-25'],
        cwd: root,
        stderr: 'ignore',
      }),
    );
    const outcomes: Array<{ settledBeforeClose: boolean; error?: unknown }> = [];
    let closing = false;
    const track = (p: Promise<unknown>) => {
      const o: { settledBeforeClose: boolean; error?: unknown } = { settledBeforeClose: false };
      outcomes.push(o);
      return p.then(
        () => void (o.settledBeforeClose = !closing),
        (e: unknown) => {
          o.settledBeforeClose = !closing;
          o.error = e;
        },
      );
    };
    const slow = track(client.callTool({ name: 'slow_compute', arguments: { seconds: 60 } }));
    // the slow call reaches the server's handler before stdin ends
    await new Promise((r) => setTimeout(r, 200));
    const quick = [track(client.listTools()), track(client.ping())];
    closing = true;
    await client.close();
    await Promise.all([slow, ...quick]);
    for (const [i, o] of outcomes.entries()) {
      if (o.settledBeforeClose) continue;
      assert.instance(
        o.error,
        ConnectionClosedError,
        `round ${round}, call ${i}: ${o.error instanceof Error ? `${o.error.name}: ${o.error.message}` : 'resolved'}`,
      );
      // (it was sent: the message says so, not only "Connection closed")
      assert.is((o.error as Error).message, 'Connection closed before the response (the request may have run)');
    }
    assert.not.ok(outcomes[0].settledBeforeClose, 'the 60 s call was in flight at close()');
    const after = await client.ping().catch((e: Error) => e);
    assert.instance(after, ConnectionClosedError);
    assert.is((after as Error).message, 'Connection closed (the request was not sent)');
  }
});

test('a second close() waits for the same end of the server process as the first', async () => {
  // a server that exits 300 ms after its stdin ends, and never answers initialize
  const script = "process.stdin.resume(); process.stdin.on('end', () => setTimeout(() => process.exit(0), 300))";
  const client = new v2025.Client({ clientInfo: { name: 'closer', version: '1' } });
  const connecting = client
    .connect(new StdioClientTransport({ command: process.execPath, args: ['-e', script], stderr: 'ignore' }))
    .catch((e: unknown) => e);
  await new Promise((r) => setTimeout(r, 200));
  const order: string[] = [];
  const first = client.close().then(() => void order.push('first'));
  const second = client.close().then(() => void order.push('second'));
  await Promise.all([first, second]);
  // (before: the second resolved at once, while the first still waited for the process to exit)
  assert.equal(order, ['first', 'second']);
  assert.instance(await connecting, ConnectionClosedError);
});

test.run();
