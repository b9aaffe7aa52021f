import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { answerClientError } from '../../../../../runtime/transport/http/io/node.js';
import { startServe } from '../../../tasks/serve-process.js';
import { rawExchange as exchange } from '../../../../hardening/raw-http.js';

/** The status line's code and the JSON body of a raw response (undefined: no body). */
function parse(raw: string): {
  status: number;
  close: boolean;
  body: { jsonrpc?: string; id?: unknown; error?: { code: number; message: string } } | undefined;
} {
  const end = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, end);
  const text = raw.slice(end + 4);
  return {
    status: Number(head.split(' ')[1]),
    close: /\r\nConnection: close/i.test(head),
    body: text === '' ? undefined : JSON.parse(text),
  };
}

const post = (headers: string, body = '{}'): string =>
  `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n${headers}\r\n${body}`;

const BAD: Array<[string, string, number, RegExp]> = [
  ['a negative Content-Length', post('Content-Length: -1\r\n'), 400, /Content-Length/],
  ['a Content-Length past 2^64', post('Content-Length: 1000000000000000000000000000000\r\n'), 400, /Content-Length/],
  ['two different Content-Lengths', post('Content-Length: 2\r\nContent-Length: 3\r\n'), 400, /Content-Length/],
  ['a header name with a space', post('Content-Length: 2\r\nBad Name: x\r\n'), 400, /Bad Request/],
  [
    'a head over maxHeaderSize',
    post(`Content-Length: 2\r\nX-Long: ${'a'.repeat(4096)}\r\n`),
    431,
    /Header Fields Too Large/,
  ],
  [
    'Content-Length beside Transfer-Encoding',
    post('Content-Length: 2\r\nTransfer-Encoding: chunked\r\n'),
    400,
    /Transfer-Encoding/,
  ],
];

async function listening(onClientError: boolean): Promise<Server> {
  const server = createServer(
    { maxHeaderSize: 2048 },
    (_req, res) => void res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': '2' }).end('{}'),
  );
  if (onClientError) server.on('clientError', answerClientError);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

test('answerClientError: what node:http cannot parse gets its status, Connection: close and a JSON-RPC error body (-32600, no id) naming the fault', async () => {
  const server = await listening(true);
  const { port } = server.address() as AddressInfo;
  try {
    for (const [what, raw, status, message] of BAD) {
      const r = parse(await exchange(port, raw));
      assert.is(r.status, status, what);
      assert.ok(r.close, `${what}: Connection: close`);
      assert.is(r.body?.jsonrpc, '2.0', what);
      assert.not.ok(r.body && 'id' in r.body, `${what}: no id member`);
      assert.is(r.body?.error?.code, -32600, what);
      assert.match(r.body?.error?.message ?? '', message, what);
    }
    // a good request on a new connection is served as before
    const ok = parse(await exchange(port, post('Content-Length: 2\r\nConnection: close\r\n')));
    assert.is(ok.status, 200);
  } finally {
    server.close();
  }
});

test('answerClientError: node:http without it answers the same faults with no body at all (what the listener changes)', async () => {
  const server = await listening(false);
  const { port } = server.address() as AddressInfo;
  try {
    const r = parse(await exchange(port, BAD[0][1]));
    assert.is(r.status, 400);
    assert.is(r.body, undefined);
  } finally {
    server.close();
  }
});

test('mcpgen serve --http: a Content-Length of -1 or 10^30 gets 400 with a JSON-RPC body, and the server keeps serving', async () => {
  const served = await startServe('--rev', '2025-11-25');
  try {
    const port = Number(new URL(served.url).port);
    for (const length of ['-1', '1000000000000000000000000000000']) {
      const r = parse(
        await exchange(port, post(`Content-Length: ${length}\r\nAccept: application/json, text/event-stream\r\n`)),
      );
      assert.is(r.status, 400, length);
      assert.is(r.body?.error?.code, -32600, length);
      assert.match(r.body?.error?.message ?? '', /Content-Length/, length);
    }
    const init = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
    const res = await fetch(served.url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: init,
    });
    assert.is(res.status, 200);
    await res.body?.cancel();
  } finally {
    await served.stop();
  }
});

test.run();
