/**
 * `nodeRequester` (../../../../../runtime/transport/http/io/node-request.ts) on keep-alive
 * sockets the server closes: a request is written once, whatever socket it went out on; a
 * hang-up after it was written is the caller's error (the server may have run it), a refused
 * connection one before any byte was written; a socket the server closed while idle leaves the
 * pool; the default agents close idle sockets before the server would.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Agent, type ClientRequest, request as httpRequest } from 'node:http';
import { createServer, Socket as NetSocket, type AddressInfo, type Server, type Socket } from 'node:net';
import {
  defaultAgent,
  KEEP_ALIVE_IDLE_MS,
  nodeRequester,
} from '../../../../../runtime/transport/http/io/node-request.js';
import { connectionRefused, neverSent } from '../../../../../runtime/transport/http/io/delivery.js';

/**
 * A raw HTTP/1.1 server: `answer(n)` decides for the n-th request on a connection (from 1)
 * whether it is answered (`{"n":<total>}`) or the connection is closed with no response byte.
 */
async function rawServer(
  answer: (onConnection: number) => boolean,
  extraHeaders = '',
): Promise<{
  url: URL;
  requests: () => number;
  connections: () => number;
  endAll: () => void;
  close: () => Promise<void>;
}> {
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
          `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: keep-alive\r\n${extraHeaders}\r\n${body}`,
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
    endAll: () => {
      for (const s of sockets) s.end();
    },
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

const post = (body: string) => ({ method: 'POST' as const, headers: { 'Content-Type': 'application/json' }, body });

test('a request on a reused socket the server closed unanswered is not sent again: it may have run', async () => {
  const server = await rawServer((n) => n === 1);
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const request = nodeRequester(server.url, agent);
    const first = await request(post('{"a":1}'));
    assert.equal(JSON.parse(await first.text()), { n: 1 });
    const error = await request(post('{"a":2}')).then(
      () => undefined,
      (e: NodeJS.ErrnoException) => e,
    );
    assert.ok(error, 'the second request fails');
    assert.ok(!neverSent(error), `${error?.code} ${error?.message}: written, so not "never sent"`);
    await new Promise((r) => setTimeout(r, 50));
    assert.is(server.requests(), 2);
    assert.is(server.connections(), 1);
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
    assert.ok(!neverSent(error));
    assert.is(server.requests(), 1);
  } finally {
    agent.destroy();
    await server.close();
  }
});

test('a refused connection is a failure before any byte was written', async () => {
  const server = await rawServer(() => true);
  const url = server.url;
  await server.close();
  const error = await nodeRequester(
    url,
    new Agent({ keepAlive: true }),
  )(post('{}')).then(
    () => undefined,
    (e: NodeJS.ErrnoException) => e,
  );
  assert.is(error?.code, 'ECONNREFUSED');
  assert.ok(neverSent(error));
  assert.ok(connectionRefused(error));
});

test('a socket the server closed while idle leaves the pool: the next request goes out on a new one', async () => {
  // the server answers, then closes the connection 20 ms later (an idle timeout of its own)
  const server = await rawServer(() => true);
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const request = nodeRequester(server.url, agent);
    await (await request(post('{}'))).text();
    server.endAll();
    // the agent drops the socket from its pool once it sees the end (bounded: 2 s)
    for (const end = Date.now() + 2000; Object.values(agent.freeSockets).flat().length > 0; ) {
      if (Date.now() > end) throw new Error('the ended socket is still in the pool');
      await new Promise((r) => setTimeout(r, 5));
    }
    const second = await request(post('{}'));
    assert.equal(JSON.parse(await second.text()), { n: 2 });
    assert.is(server.connections(), 2);
  } finally {
    agent.destroy();
    await server.close();
  }
});

test("the default agent closes an idle socket a second before the server's Keep-Alive timeout, and by 4 s without one", async () => {
  const hinted = await rawServer(() => true, 'Keep-Alive: timeout=3\r\n');
  const plain = await rawServer(() => true);
  try {
    for (const [server, expected] of [
      [hinted, 2000],
      [plain, KEEP_ALIVE_IDLE_MS],
    ] as const) {
      const agent = defaultAgent('http:');
      await (await nodeRequester(server.url)(post('{}'))).text();
      const free = Object.values(agent.freeSockets).flat();
      const mine = free.find((s) => s?.remotePort === Number(server.url.port));
      assert.ok(mine, 'the socket is in the pool');
      assert.is(mine!.timeout, expected);
    }
    assert.ok(KEEP_ALIVE_IDLE_MS < 5000, "below Node's server keepAliveTimeout");
  } finally {
    await hinted.close();
    await plain.close();
  }
});

test('the default agent reads the Keep-Alive hint in any case of its name: timeout=1 leaves no time, the socket is not pooled', async () => {
  const short = await rawServer(() => true, 'KEEP-ALIVE: timeout=1\r\n');
  const cased = await rawServer(() => true, 'keep-alive: timeout=3\r\n');
  try {
    const agent = defaultAgent('http:');
    const inPool = (server: { url: URL }) =>
      Object.values(agent.freeSockets)
        .flat()
        .find((s) => s?.remotePort === Number(server.url.port));
    const request = nodeRequester(short.url);
    assert.equal(JSON.parse(await (await request(post('{}'))).text()), { n: 1 });
    await new Promise((r) => setTimeout(r, 20));
    assert.is(inPool(short), undefined, 'a socket whose hint leaves no time is closed, not pooled');
    assert.equal(JSON.parse(await (await request(post('{}'))).text()), { n: 2 });
    assert.is(short.connections(), 2, 'the next request opens a new connection');
    await (await nodeRequester(cased.url)(post('{}'))).text();
    await new Promise((r) => setTimeout(r, 20));
    assert.is(inPool(cased)?.timeout, 2000);
  } finally {
    await short.close();
    await cased.close();
  }
});

test('the default agent times a socket only while it is pooled: a request that takes it has no socket timeout', async () => {
  const server = await rawServer(() => true);
  try {
    const request = nodeRequester(server.url);
    await (await request(post('{}'))).text();
    const reply = await request(post('{}'));
    const socket = (reply as unknown as { req: ClientRequest }).req.socket!;
    assert.is(socket.remotePort, Number(server.url.port));
    // (the agent's own `timeout` would time every request on it, and set the timer again after each)
    assert.is(socket.timeout ?? 0, 0, 'no timeout while a request runs on the socket');
    await reply.text();
    for (const end = Date.now() + 2000; !Object.values(defaultAgent('http:').freeSockets).flat().includes(socket); ) {
      if (Date.now() > end) throw new Error('the socket did not return to the pool');
      await new Promise((r) => setTimeout(r, 5));
    }
    assert.is(socket.timeout, KEEP_ALIVE_IDLE_MS, 'the idle timeout once pooled');
  } finally {
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

test('the default agent takes back a socket whose request has no response (destroyed before it had the socket)', async () => {
  // Node frees such a socket into the pool with `_httpMessage.res` null (Node 24 does so for a
  // request destroyed in the tick it was made); keepSocketAlive read the hint from it and threw
  const agent = defaultAgent('http:');
  const socket = new NetSocket();
  (socket as unknown as { _httpMessage: { res: null } })._httpMessage = { res: null };
  try {
    assert.is(agent.keepSocketAlive(socket), true);
    assert.is(socket.timeout, KEEP_ALIVE_IDLE_MS);
  } finally {
    socket.destroy();
  }
  const server = await rawServer(() => true);
  const thrown: unknown[] = [];
  const onThrow = (e: unknown) => void thrown.push(e);
  process.on('uncaughtException', onThrow);
  try {
    const req = httpRequest(server.url, { method: 'POST', agent });
    req.on('error', () => {});
    req.destroy();
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(thrown, []);
    assert.equal(JSON.parse(await (await nodeRequester(server.url)(post('{}'))).text()), { n: 1 });
  } finally {
    process.off('uncaughtException', onThrow);
    await server.close();
  }
});

test.run();
