import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { nodeExchange } from '../../../../../runtime/transport/http/io/exchange.js';

/** One request to a node:http server whose handler is `handle`; the status it got. */
async function once(
  handle: (req: IncomingMessage, res: ServerResponse) => void,
  drop = false,
): Promise<number | undefined> {
  const server = createServer(handle);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const { port } = server.address() as AddressInfo;
    return await new Promise<number | undefined>((resolve, reject) => {
      const req = request(
        { host: '127.0.0.1', port, method: 'POST', path: '/mcp', headers: { 'Content-Type': 'application/json' } },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode));
        },
      );
      req.on('error', (e) => (drop ? resolve(undefined) : reject(e)));
      req.end('{}');
      if (drop) setTimeout(() => req.destroy(), 50);
    });
  } finally {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  }
}

test('NodeExchange.onClose: every listener, in the order given, once the response closed; one given after that at once', async () => {
  const calls: string[] = [];
  let closed!: () => void;
  const after = new Promise<void>((r) => (closed = r));
  const status = await once((req, res) => {
    const ex = nodeExchange(req, res);
    for (const name of ['first', 'second', 'third']) ex.sink.onClose(() => calls.push(name));
    res.on('close', () => {
      ex.sink.onClose(() => calls.push('late'));
      closed();
    });
    ex.sink.respond(200, { 'Content-Type': 'application/json' }, '{}');
  });
  await after;
  assert.is(status, 200);
  assert.equal(calls, ['first', 'second', 'third', 'late']);
});

test('NodeExchange.onClose: a lost connection calls them too, and the signal is aborted', async () => {
  const calls: string[] = [];
  let closed!: () => void;
  const after = new Promise<void>((r) => (closed = r));
  let aborted = false;
  await once((req, res) => {
    const ex = nodeExchange(req, res);
    const signal = ex.signal;
    ex.sink.onClose(() => calls.push('first'));
    ex.sink.onClose(() => {
      calls.push('second');
      aborted = signal.aborted;
    });
    // (after the exchange's own 'close' listener, which calls those)
    res.on('close', closed);
    // never answered: the client drops the connection
  }, true);
  await after;
  assert.equal(calls, ['first', 'second']);
  assert.ok(aborted);
});

test.run();
