/**
 * `nodeRequester` (../../../../../runtime/transport/http/io/node-request.ts) on keep-alive
 * sockets the server closes: a request that goes out on a reused socket just as the server
 * closes it as idle is sent once more on another socket; a fresh socket that hangs up, or a
 * second hang-up, is the caller's error.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Agent } from 'node:http';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { nodeRequester } from '../../../../../runtime/transport/http/io/node-request.js';

/**
 * A raw HTTP/1.1 server: `answer(n)` decides for the n-th request on a connection (from 1)
 * whether it is answered (`{"n":<total>}`) or the connection is closed with no response byte.
 */
async function rawServer(
  answer: (onConnection: number) => boolean,
): Promise<{ url: URL; requests: () => number; connections: () => number; close: () => Promise<void> }> {
  let requests = 0;
  let connections = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    let seen = 0;
    let head = '';
    socket.setEncoding('latin1');
    socket.on('data', (text: string) => {
      head += text;
      for (let end = head.indexOf('\r\n\r\n'); end >= 0; end = head.indexOf('\r\n\r\n')) {
        const length = Number(/content-length: *(\d+)/i.exec(head.slice(0, end))?.[1] ?? 0);
        if (head.length < end + 4 + length) return;
        head = head.slice(end + 4 + length);
        seen++;
        requests++;
        if (!answer(seen)) return void socket.end();
        const body = JSON.stringify({ n: requests });
        socket.write(
          `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: keep-alive\r\n\r\n${body}`,
        );
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: new URL(`http://127.0.0.1:${port}/mcp`),
    requests: () => requests,
    connections: () => connections,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

const post = (body: string) => ({ method: 'POST' as const, headers: { 'Content-Type': 'application/json' }, body });

test('a request on a reused socket the server closed unanswered goes once more on a new socket', async () => {
  const server = await rawServer((n) => n === 1);
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const request = nodeRequester(server.url, agent);
    const first = await request(post('{"a":1}'));
    assert.equal(JSON.parse(await first.text()), { n: 1 });
    const second = await request(post('{"a":2}'));
    assert.is(second.status, 200);
    assert.equal(JSON.parse(await second.text()), { n: 3 });
    assert.is(server.requests(), 3);
    assert.is(server.connections(), 2);
  } finally {
    agent.destroy();
    await server.close();
  }
});

test("a fresh socket closed unanswered is the caller's error, sent once", async () => {
  const server = await rawServer(() => false);
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const request = nodeRequester(server.url, agent);
    const error = await request(post('{}')).then(
      () => undefined,
      (e: NodeJS.ErrnoException) => e,
    );
    assert.is(error?.code, 'ECONNRESET');
    assert.is(server.requests(), 1);
  } finally {
    agent.destroy();
    await server.close();
  }
});

test('a second hang-up is not retried again', async () => {
  // every connection answers its first request only; two free sockets, so the retry is reused too
  const server = await rawServer((n) => n === 1);
  const agent = new Agent({ keepAlive: true, maxSockets: 2 });
  try {
    const request = nodeRequester(server.url, agent);
    const [a, b] = await Promise.all([request(post('{}')), request(post('{}'))]);
    await Promise.all([a.text(), b.text()]);
    assert.is(server.connections(), 2);
    const error = await request(post('{}')).then(
      () => undefined,
      (e: NodeJS.ErrnoException) => e,
    );
    assert.is(error?.code, 'ECONNRESET');
    assert.is(server.requests(), 4);
  } finally {
    agent.destroy();
    await server.close();
  }
});

test('an aborted request is not sent again', async () => {
  const server = await rawServer((n) => n === 1);
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const request = nodeRequester(server.url, agent);
    await (await request(post('{}'))).text();
    const controller = new AbortController();
    const pending = request({ ...post('{}'), signal: controller.signal });
    controller.abort();
    const error = await pending.then(
      () => undefined,
      (e: Error) => e,
    );
    assert.is(error?.name, 'AbortError');
    await new Promise((r) => setTimeout(r, 50));
    assert.ok(server.requests() <= 2, String(server.requests()));
  } finally {
    agent.destroy();
    await server.close();
  }
});

test.run();
