/**
 * The same refusal from every runtime's Streamable HTTP server (`mcpgen serve --lang ... --http 0`):
 * a request refused on its request line or headers (403 foreign Origin, 405 method not served,
 * 406, 415 (a Content-Type other than JSON in utf-8, a Content-Encoding other than identity), 413; a missing Mcp-Session-Id 400, an unknown one 404 "Session not found") is
 * answered with -32000 and no id (as the official TypeScript SDK answers its
 * 405), and a JSON array (a batch, not part of Streamable HTTP) with 400, -32600 and the same
 * message; so is initialize inside a session (a second initialize: a refusal of the message, -32600
 * as on stdio). The 2025-11-25 endpoint (sessions) and the 2026-07-28 one (a GET or DELETE without a
 * session's id is 405). A body cut off before its Content-Length (the client closed its side) is
 * answered 400 -32600 "Bad Request: ..." with no id (TypeScript's HTTP parser and Go's body read;
 * uvicorn closes such a connection unanswered and Python's handler never sees the request).
 * Real server processes, real sockets.
 */
import { connect } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startHttpServeProcess } from '../tasks/serve-process.js';
import { pythonChildEnv } from '../../python/support.js';
import { goEnv } from '../../go/support.js';

const HEADERS = { Accept: 'application/json, text/event-stream', 'Content-Type': 'application/json' };
const PING = '{"jsonrpc":"2.0","id":1,"method":"ping"}';
const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'probe', version: '0.0.1' } },
});

/** A refusal every runtime must give: [what, method, headers, body, status, code, message]. */
type Refusal = [string, string, Record<string, string>, string | undefined, number, number, RegExp];

const REFUSALS: Refusal[] = [
  ['a foreign Origin', 'POST', { ...HEADERS, Origin: 'https://elsewhere.example' }, PING, 403, -32000, /^Forbidden/],
  ['PUT', 'PUT', HEADERS, PING, 405, -32000, /^Method not allowed/i],
  [
    'Accept without text/event-stream',
    'POST',
    { ...HEADERS, Accept: 'application/json' },
    PING,
    406,
    -32000,
    /^Not Acceptable/,
  ],
  // fetch sends `Accept: */*` when none is given: a wildcard does not list the two types
  [
    'initialize without Accept',
    'POST',
    { 'Content-Type': 'application/json' },
    INITIALIZE,
    406,
    -32000,
    /^Not Acceptable/,
  ],
  [
    'a request without Mcp-Session-Id',
    'POST',
    HEADERS,
    PING,
    400,
    -32000,
    /^Bad Request: Mcp-Session-Id header is required$/,
  ],
  [
    'an unknown session',
    'POST',
    { ...HEADERS, 'Mcp-Session-Id': '0123456789abcdef0123456789abcdef', 'MCP-Protocol-Version': '2025-11-25' },
    PING,
    404,
    -32000,
    /^Session not found$/,
  ],
  [
    'Content-Type text/plain',
    'POST',
    { ...HEADERS, 'Content-Type': 'text/plain' },
    PING,
    415,
    -32000,
    /^Unsupported Media Type/,
  ],
  [
    'Content-Type application/json; charset=utf-16',
    'POST',
    { ...HEADERS, 'Content-Type': 'application/json; charset=utf-16' },
    PING,
    415,
    -32000,
    /^Unsupported Media Type: Content-Type must be application\/json \(charset utf-8, if named\)$/,
  ],
  [
    'Content-Encoding gzip',
    'POST',
    { ...HEADERS, 'Content-Encoding': 'gzip' },
    PING,
    415,
    -32000,
    /^Unsupported Media Type: Content-Encoding "gzip" is not read$/,
  ],
  [
    'a 5 MiB body',
    'POST',
    HEADERS,
    `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"${'a'.repeat(5 << 20)}"}}`,
    413,
    -32000,
    /^Payload Too Large/,
  ],
  [
    'a batch',
    'POST',
    HEADERS,
    `[${PING}]`,
    400,
    -32600,
    /^Invalid Request: batches are not accepted; send one message per POST$/,
  ],
];

/**
 * What the 2026-07-28 endpoint (dual-era: 2025-11-25 sessions beside it) refuses: a GET or DELETE
 * without the Mcp-Session-Id of a session.
 */
const MODERN_REFUSALS: Refusal[] = [
  ['GET', 'GET', { Accept: 'text/event-stream' }, undefined, 405, -32000, /^Method not allowed/i],
  ['DELETE', 'DELETE', {}, undefined, 405, -32000, /^Method not allowed/i],
];

async function expectRefusals(url: string, lang: string, refusals: Refusal[]): Promise<void> {
  for (const [what, method, headers, body, status, code, message] of refusals) {
    const res = await fetch(url, { method, headers, body, signal: AbortSignal.timeout(60_000) });
    const text = await res.text();
    assert.is(res.status, status, `${lang} ${what}: ${text}`);
    const answer = JSON.parse(text) as { id?: unknown; error?: { code: number; message: string } };
    assert.is(answer.error?.code, code, `${lang} ${what}: ${text}`);
    assert.match(answer.error!.message, message, `${lang} ${what}: ${text}`);
    assert.not.ok('id' in answer, `${lang} ${what}: no id can be read: ${text}`);
  }
}

/**
 * POSTs a body cut off by the client: Content-Length 100, 45 bytes sent, then the write side is
 * closed (the read side stays open for the answer). Resolves with the raw answer (status line,
 * headers, body) once the server closes the connection.
 */
function postCutOffBody(url: string): Promise<string> {
  const { hostname, port, pathname } = new URL(url);
  const body = '{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":1}}'.slice(0, 45);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) }, () => {
      socket.end(
        `POST ${pathname} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAccept: ${HEADERS.Accept}\r\n` +
          `Content-Type: application/json\r\nContent-Length: 100\r\n\r\n${body}`,
      );
    });
    let raw = '';
    socket.setEncoding('utf8');
    socket.setTimeout(60_000, () => socket.destroy(new Error(`no answer in 60 s: ${raw}`)));
    socket.on('data', (chunk: string) => {
      raw += chunk;
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(raw));
  });
}

for (const [lang, env] of [
  ['typescript', () => process.env],
  ['python', () => pythonChildEnv()],
  ['go', () => goEnv()],
] as const) {
  test(`serve --lang ${lang} --http: 403, 405, 406 (also for Accept: */*), 415, 413, a missing or unknown session answered -32000 with no id; a batch and initialize inside a session 400 -32600`, async () => {
    const s = await startHttpServeProcess(['--lang', lang, '--rev', '2025-11-25'], env());
    try {
      await expectRefusals(s.url, lang, REFUSALS);
      // initialize inside a session is a refusal of the message (a second initialize), -32600 as
      // on stdio and HTTP+SSE, not of the request's headers alone
      const init = await fetch(s.url, { method: 'POST', headers: HEADERS, body: INITIALIZE });
      await init.text();
      const sid = init.headers.get('mcp-session-id');
      assert.ok(sid, `${lang}: initialize made no session`);
      const again: Refusal = [
        'initialize inside a session',
        'POST',
        { ...HEADERS, 'Mcp-Session-Id': sid!, 'MCP-Protocol-Version': '2025-11-25' },
        INITIALIZE,
        400,
        -32600,
        /^Bad Request: initialize must not carry Mcp-Session-Id$/,
      ];
      await expectRefusals(s.url, lang, [again]);
    } finally {
      await s.stop();
    }
  });
  test(`serve --lang ${lang} --http: a body cut off before its Content-Length is answered 400 -32600 with no id (Python: the connection closes unanswered)`, async () => {
    const s = await startHttpServeProcess(['--lang', lang, '--rev', '2025-11-25'], env());
    try {
      const raw = await postCutOffBody(s.url);
      if (lang === 'python' && raw === '') return; // uvicorn closes the connection without an answer
      assert.match(raw, /^HTTP\/1\.1 400 /, `${lang}: ${raw}`);
      // the body, whether sent with a Content-Length or in one chunk
      const head = raw.indexOf('\r\n\r\n');
      const answer = JSON.parse(raw.slice(raw.indexOf('{', head), raw.lastIndexOf('}') + 1)) as {
        error?: { code: number; message: string };
      };
      assert.is(answer.error?.code, -32600, `${lang}: ${raw}`);
      assert.match(answer.error!.message, /^Bad Request: /, `${lang}: ${raw}`);
      assert.not.ok('id' in answer, `${lang}: ${raw}`);
    } finally {
      await s.stop();
    }
  });
  test(`serve --lang ${lang} --rev 2026-07-28 --http: GET and DELETE answered 405 -32000 with no id`, async () => {
    const s = await startHttpServeProcess(['--lang', lang, '--rev', '2026-07-28'], env());
    try {
      await expectRefusals(s.url, lang, MODERN_REFUSALS);
    } finally {
      await s.stop();
    }
  });
}

test.run();
