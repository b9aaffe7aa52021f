/**
 * Issue 11, finding 8: every POST ends with a status and, for a request, one JSON-RPC answer,
 * whatever happens to the id, the session or the engine meanwhile. The transports and the
 * engine share one definition of a valid id (`isRequestId`, runtime/jsonrpc/message.ts): a string or
 * an integer. Checked against `mcpgen serve --http 0` over real sockets: 2025-11-25 sessions,
 * the stateless endpoint, and the legacy HTTP+SSE endpoints.
 */
import { request as httpRequest } from 'node:http';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startServe } from '../runtime/tasks/serve-process.js';
import { headersFor, META } from '../runtime/transport/http/stateless/helpers.js';
import { openLegacyStream } from './wire.js';

const LIMIT = 20_000;
const ACCEPT = 'application/json, text/event-stream';
const V = '2025-11-25';
const BAD_IDS = ['1.5', '-2.5', '0.001', '1e-7', 'true', 'false', '{}', '[]', '{"n":1}', 'null'];

async function initialize(url: string): Promise<string> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { Accept: ACCEPT, 'Content-Type': 'application/json' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: V, capabilities: {}, clientInfo: { name: 't', version: '1' } },
    }),
    signal: AbortSignal.timeout(LIMIT),
  });
  const sid = res.headers.get('mcp-session-id');
  await res.text();
  assert.ok(sid, 'a session id');
  const ack = await fetch(url, {
    method: 'POST',
    headers: { Accept: ACCEPT, 'Content-Type': 'application/json', 'Mcp-Session-Id': sid!, 'MCP-Protocol-Version': V },
    body: '{"jsonrpc":"2.0","method":"notifications/initialized"}',
  });
  await ack.text();
  return sid!;
}

/** POSTs raw text; the status and the parsed body (for SSE: the last message), or 'hang' after LIMIT ms. */
async function postRaw(
  url: string,
  headers: Record<string, string>,
  body: string,
): Promise<{ status: number; body: any } | 'hang'> {
  try {
    const res = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(LIMIT) });
    const text = await res.text();
    if ((res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
      return {
        status: res.status,
        body: text
          .split('\n')
          .filter((l) => l.startsWith('data: ') && l.length > 6)
          .map((l) => JSON.parse(l.slice(6)))
          .at(-1),
      };
    }
    return { status: res.status, body: text === '' ? undefined : JSON.parse(text) };
  } catch (e) {
    if ((e as Error).name === 'TimeoutError') return 'hang';
    throw e;
  }
}

const invalidRequest = (r: Awaited<ReturnType<typeof postRaw>>, what: string) => {
  assert.ok(r !== 'hang', `${what}: the POST must end`);
  assert.is(r.status, 400, `${what}: ${JSON.stringify(r.body)}`);
  assert.is(r.body.error.code, -32600, what);
  assert.not.ok('id' in r.body, `${what}: no id member (the error-id rule)`);
};

for (const reply of ['json', 'sse']) {
  test(`serve --rev 2025-11-25 --reply ${reply}: a request whose id is not a string or an integer gets 400 -32600, never a hang`, async () => {
    const s = await startServe('--rev', '2025-11-25', '--reply', reply);
    try {
      const sid = await initialize(s.url);
      const headers = {
        Accept: ACCEPT,
        'Content-Type': 'application/json',
        'Mcp-Session-Id': sid,
        'MCP-Protocol-Version': V,
      };
      const answers = await Promise.all(
        BAD_IDS.map((id) => postRaw(s.url, headers, `{"jsonrpc":"2.0","id":${id},"method":"ping"}`)),
      );
      answers.forEach((r, i) => {
        invalidRequest(r, `id ${BAD_IDS[i]}`);
      });
      // the session still serves, and an integer written as 2.0 is the integer 2
      const ok = await postRaw(s.url, headers, '{"jsonrpc":"2.0","id":2.0,"method":"ping"}');
      assert.ok(ok !== 'hang');
      assert.equal(ok.body, { jsonrpc: '2.0', id: 2, result: {} });
    } finally {
      await s.stop();
    }
  });
}

test('serve --rev draft (stateless endpoint): the same ids get 400 -32600, as the engine would say', async () => {
  const s = await startServe('--rev', 'draft', '--modern-only');
  try {
    const answers = await Promise.all(
      BAD_IDS.map((id) =>
        postRaw(
          s.url,
          headersFor('tools/list'),
          `{"jsonrpc":"2.0","id":${id},"method":"tools/list","params":{"_meta":${JSON.stringify(META)}}}`,
        ),
      ),
    );
    answers.forEach((r, i) => {
      invalidRequest(r, `id ${BAD_IDS[i]}`);
    });
  } finally {
    await s.stop();
  }
});

/** Opens the legacy stream: its POST URL, and `close`. */
const openLegacy = (base: string) => openLegacyStream(base, LIMIT);

test('serve --http (legacy HTTP+SSE): an id that is not a string or an integer gets 400 -32600 on the POST', async () => {
  const s = await startServe('--rev', '2025-11-25');
  const base = new URL(s.url).origin;
  const legacy = await openLegacy(base);
  try {
    for (const id of BAD_IDS) {
      const r = await postRaw(
        legacy.endpoint,
        { 'Content-Type': 'application/json' },
        `{"jsonrpc":"2.0","id":${id},"method":"ping"}`,
      );
      invalidRequest(r, `id ${id}`);
    }
  } finally {
    legacy.close();
    await s.stop();
  }
});

/**
 * Sends the first half of a POST body, runs `meanwhile`, then the rest; resolves with the
 * status and body text, or 'hang' after LIMIT ms.
 */
function slowPost(
  url: string,
  headers: Record<string, string>,
  body: string,
  meanwhile: () => Promise<void>,
): Promise<{ status: number; text: string } | 'hang'> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const req = httpRequest(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname + u.search,
        method: 'POST',
        headers: { ...headers, 'Content-Length': String(Buffer.byteLength(body)) },
      },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => {
          clearTimeout(timer);
          resolve({ status: res.statusCode!, text });
        });
      },
    );
    const timer = setTimeout(() => {
      req.destroy();
      resolve('hang');
    }, LIMIT);
    req.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    const half = Math.floor(body.length / 2);
    req.write(body.slice(0, half));
    setTimeout(() => {
      meanwhile().then(() => req.end(body.slice(half)), reject);
    }, 200);
  });
}

test('serve --http: a POST whose body is still arriving when its session is DELETEd gets 404, never a hang', async () => {
  const s = await startServe('--rev', '2025-11-25');
  try {
    const sid = await initialize(s.url);
    const headers = {
      Accept: ACCEPT,
      'Content-Type': 'application/json',
      'Mcp-Session-Id': sid,
      'MCP-Protocol-Version': V,
    };
    for (const body of [
      '{"jsonrpc":"2.0","id":7,"method":"ping"}',
      '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}',
    ]) {
      const r = await slowPost(s.url, headers, body, async () => {
        const del = await fetch(s.url, {
          method: 'DELETE',
          headers: { 'Mcp-Session-Id': sid, 'MCP-Protocol-Version': V },
        });
        await del.text();
        assert.ok(del.status === 204 || del.status === 404, `DELETE ${del.status}`);
      });
      assert.ok(r !== 'hang', `${body}: the POST must end`);
      assert.is(r.status, 404, r.text);
      assert.is(JSON.parse(r.text).error.message, 'Session not found');
    }
  } finally {
    await s.stop();
  }
});

test('serve --http (legacy HTTP+SSE): a POST whose body is still arriving when its stream closes gets 404, not a 202 nobody answers', async () => {
  const s = await startServe('--rev', '2025-11-25');
  const base = new URL(s.url).origin;
  try {
    const legacy = await openLegacy(base);
    const r = await slowPost(
      legacy.endpoint,
      { 'Content-Type': 'application/json' },
      '{"jsonrpc":"2.0","id":7,"method":"ping"}',
      async () => {
        legacy.close();
        await new Promise((res) => setTimeout(res, 300));
      },
    );
    assert.ok(r !== 'hang', 'the POST must end');
    assert.is(r.status, 404, r.text);
  } finally {
    await s.stop();
  }
});

for (const reply of ['json', 'sse']) {
  test(`serve --http --reply ${reply}: a request its client cancels (notifications/cancelled) ends its POST without a response`, async () => {
    const s = await startServe('--rev', '2025-11-25', '--reply', reply);
    try {
      const sid = await initialize(s.url);
      const headers = {
        Accept: ACCEPT,
        'Content-Type': 'application/json',
        'Mcp-Session-Id': sid,
        'MCP-Protocol-Version': V,
      };
      const call = postRaw(
        s.url,
        headers,
        '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"slow_compute","arguments":{"seconds":30}}}',
      );
      await new Promise((r) => setTimeout(r, 500));
      const cancel = await postRaw(
        s.url,
        headers,
        '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5,"reason":"no longer needed"}}',
      );
      assert.ok(cancel !== 'hang');
      assert.is(cancel.status, 202);
      const r = await call;
      assert.ok(r !== 'hang', "the cancelled request's POST must end");
      assert.is(r.status, 200);
      assert.is(r.body, undefined, 'no response for a cancelled request');
      // the id is free again, and the session serves
      const again = await postRaw(s.url, headers, '{"jsonrpc":"2.0","id":5,"method":"ping"}');
      assert.ok(again !== 'hang');
      assert.equal(again.body, { jsonrpc: '2.0', id: 5, result: {} });
    } finally {
      await s.stop();
    }
  });
}

test.run();
