import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { JSON_HEADERS, readNodeBody, respondNode } from '../../../../../runtime/transport/http/io/node.js';

/** What the server saw of one request. */
interface Seen {
  body: string;
  /** `'data'` listeners on the request once its body was read. */
  dataListeners: number;
  /** The request emitted `'end'` and `'close'` afterwards. */
  ended: Promise<void>;
}

/** `p`, or a rejection naming `what` after 2 s. */
function within<T>(p: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>(
    (_, reject) => (timer = setTimeout(() => reject(new Error(`still waiting for ${what}`)), 2000)),
  );
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

/** Resolves once `cond` holds (polled every 5 ms); rejects naming `what` after 2 s. */
async function until(cond: () => boolean, what: string): Promise<void> {
  const end = Date.now() + 2000;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`still waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** A node:http server answering each POST with the body readNodeBody read (by respondNode, JSON). */
async function echoServer(
  read?: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
): Promise<{ server: Server; port: number; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    (read ?? defaultRead)(req, res).catch((e: Error) =>
      respondNode(res, 500, JSON_HEADERS, JSON.stringify({ error: e.message })),
    );
  });
  async function defaultRead(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const ended = within(
      Promise.all([new Promise<void>((r) => req.once('end', r)), new Promise<void>((r) => req.once('close', r))]).then(
        () => undefined,
      ),
      "the request's 'end' and 'close'",
    );
    // (X-Late: read once the whole request is in, as a handler that awaited something first does)
    if (req.headers['x-late'] !== undefined) await new Promise((r) => setTimeout(r, 20));
    const body = await readNodeBody(req, 1024, 2000);
    if (typeof body === 'string') return respondNode(res, 413, JSON_HEADERS, JSON.stringify({ refused: body }));
    const text = Buffer.from(body).toString('utf8');
    ended.catch(() => undefined); // (awaited by the test; a rejection before that is not unhandled)
    seen.push({ body: text, dataListeners: req.listenerCount('data'), ended });
    respondNode(res, 200, JSON_HEADERS, JSON.stringify({ body: text }));
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, seen };
}

/** Reads one whole response (by its Content-Length; the socket reads latin1, one char per byte) from `socket`. */
function response(socket: Socket): Promise<{ status: number; close: boolean; body: string }> {
  return new Promise((resolve, reject) => {
    let buf = '';
    const timer = setTimeout(() => reject(new Error(`no whole response; got ${JSON.stringify(buf)}`)), 3000);
    const onData = (d: string): void => {
      buf += d;
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = buf.slice(0, end);
      const length = Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1] ?? NaN);
      if (buf.length < end + 4 + length) return;
      clearTimeout(timer);
      socket.off('data', onData);
      resolve({
        status: Number(head.split(' ')[1]),
        close: /\r\nconnection: close/i.test(head),
        body: Buffer.from(buf.slice(end + 4, end + 4 + length), 'latin1').toString('utf8'),
      });
    };
    socket.on('data', onData);
  });
}

const head = (length: number): string =>
  `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;
const open = (port: number): Promise<Socket> =>
  new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => resolve(socket));
    socket.setEncoding('latin1');
  });

test('readNodeBody: a body sent with its head is read whole from the buffer (no listeners), read at once or after the request is in; the request ends, and the answer keeps the connection', async () => {
  const { server, port, seen } = await echoServer();
  const socket = await open(port);
  try {
    const bodies = ['{"jsonrpc":"2.0","id":1,"method":"ping"}', '{"text":"é ✓ 𝄞"}', ''];
    for (const [i, body] of [...bodies, ...bodies].entries()) {
      const bytes = Buffer.byteLength(body);
      const late = i >= bodies.length ? 'X-Late: 1\r\n' : '';
      socket.write(Buffer.from(head(bytes).replace('\r\n\r\n', `\r\n${late}\r\n`) + body));
      const r = await response(socket);
      assert.is(r.status, 200, body);
      assert.is(JSON.parse(r.body).body, body);
      assert.not.ok(
        r.close,
        `a body read whole is not an early answer: no Connection: close (${JSON.stringify(body)})`,
      );
    }
    assert.is(seen.length, 6, 'the six requests came on the one connection');
    for (const s of seen) {
      assert.is(s.dataListeners, 0, `taken from the buffer, not by 'data' listeners (${JSON.stringify(s.body)})`);
      await s.ended;
    }
  } finally {
    socket.destroy();
    server.close();
  }
});

test('readNodeBody: a body that comes after its head, in parts, is read by listeners; a chunked one over the limit is refused mid-way', async () => {
  const { server, port, seen } = await echoServer();
  const socket = await open(port);
  try {
    const body = '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo"}}';
    socket.write(head(body.length));
    await new Promise((r) => setTimeout(r, 30));
    socket.write(body.slice(0, 20));
    await new Promise((r) => setTimeout(r, 30));
    socket.write(body.slice(20));
    const r = await response(socket);
    assert.is(r.status, 200);
    assert.is(JSON.parse(r.body).body, body);
    assert.is(seen[0].dataListeners, 1, "read by its 'data' listener");
    await seen[0].ended;

    // chunked (no length to take it by): read by listeners, refused once past the limit
    socket.write('POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n');
    socket.write(`3e8\r\n${'a'.repeat(1000)}\r\n`);
    socket.write(`3e8\r\n${'b'.repeat(1000)}\r\n0\r\n\r\n`);
    const big = await response(socket);
    assert.is(big.status, 413);
    assert.equal(JSON.parse(big.body), { refused: 'too-large' });
    assert.is(seen.length, 1, 'the refused body was not echoed');
  } finally {
    socket.destroy();
    server.close();
  }
});

test('readNodeBody: a second read of a body taken whole gives what a middleware left in req.body, else nothing; a request destroyed mid-body rejects instead of waiting', async () => {
  const results: unknown[] = [];
  const closed: Array<() => void> = [];
  let handling = false;
  const { server, port } = await echoServer(async (req, res) => {
    if (req.headers['x-abort'] !== undefined) {
      handling = true;
      // read only once the client went away mid-body
      await new Promise<void>((r) => req.once('close', r));
      results.push(
        await readNodeBody(req, 1024).then(
          () => 'resolved',
          (e: Error) => e.message,
        ),
      );
      for (const f of closed) f();
      return;
    }
    const first = await readNodeBody(req, 1024);
    // as a front handler does: it leaves what it read for the handler it hands the request to
    if (req.headers['x-keep'] !== undefined) (req as IncomingMessage & { body?: unknown }).body = { kept: true };
    const again = Buffer.from((await within(readNodeBody(req, 1024), 'a second read')) as Uint8Array).toString();
    results.push([Buffer.from(first as Uint8Array).toString(), again]);
    respondNode(res, 204, {});
  });
  try {
    const socket = await open(port);
    socket.write(`${head(7)}{"a":1}`);
    await until(() => results.length >= 1, 'the first request read twice');
    socket.write(`${head(7).replace('\r\n\r\n', '\r\nX-Keep: 1\r\n\r\n')}{"b":2}`);
    await until(() => results.length >= 2, 'the second request read twice');
    socket.destroy();
    assert.equal(results.splice(0, 2), [
      ['{"a":1}', ''],
      ['{"b":2}', '{"kept":true}'],
    ]);

    const gone = new Promise<void>((r) => closed.push(r));
    const aborting = await open(port);
    aborting.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Abort: 1\r\nContent-Length: 100\r\n\r\n{"partial":`);
    await until(() => handling, 'the handler of the request to abort');
    aborting.destroy();
    await within(gone, 'readNodeBody on a destroyed request');
    assert.is(results[0], 'HTTP request aborted before its body ended');
  } finally {
    server.close();
  }
});

test.run();
