/**
 * Requests POSTed at the same time with one id, against every runtime's reference server
 * (`mcpgen serve --lang ... --http --rev 2026-07-28`, dual-era: TypeScript, Python, Go):
 * - in a 2025-11-25 session (ids name requests for the session's lifetime): of K POSTs of a
 *   `test_sampling` call written on K sockets in one tick, one runs (its SSE stream carries the
 *   sampling request) and every other gets 400 -32600 "Invalid Request: request id N is already
 *   in use" with its id, as a reuse after it would; the Go server let a second one past its check
 *   (answered 200, the engine's refusal) when both were read at once;
 * - on the stateless endpoint (2026-07-28: each POST is an exchange of its own, its id scoped to
 *   it, closing the stream cancels it) the check does not apply: two calls with one id both run and
 *   are answered; the Python server refused the second 200 "already in use" (one registry of ids
 *   for every client of the endpoint).
 * Real server processes, real sockets.
 */
import { connect } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startHttpServeProcess } from '../tasks/serve-process.js';
import { pythonChildEnv } from '../../python/support.js';
import { goEnv } from '../../go/support.js';

const V25 = '2025-11-25';
const MODERN = '2026-07-28';
const HEADERS = { Accept: 'application/json, text/event-stream', 'Content-Type': 'application/json' };
const META = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'probe', version: '1' },
};
const INIT = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: V25, capabilities: { sampling: {} }, clientInfo: { name: 'probe', version: '1' } },
};
/** POSTs per round, rounds per language. */
const POSTS = 6;
const ROUNDS = 15;

const LANGS = [
  ['typescript', () => process.env],
  ['python', () => pythonChildEnv()],
  ['go', () => goEnv()],
] as const;

/** An HTTP/1.1 POST on a connected socket of its own; resolves with the status and, unless SSE, the body. */
async function rawPost(url: URL, headers: Record<string, string>) {
  const socket = connect(Number(url.port), url.hostname);
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  let data = '';
  socket.setEncoding('utf8');
  const answer = new Promise<string>((resolve, reject) => {
    socket.on('error', reject);
    socket.on('end', () => resolve(data));
    socket.on('data', (d: string) => {
      data += d;
      const end = data.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = data.slice(0, end);
      if (/\r\ncontent-type: text\/event-stream/i.test(head)) resolve(`${head.slice(9, 12)} stream`);
      const length = /\r\ncontent-length: (\d+)/i.exec(head);
      if (length && data.length - end - 4 >= Number(length[1])) resolve(`${head.slice(9, 12)} ${data.slice(end + 4)}`);
    });
  });
  const write = (body: string) =>
    socket.write(
      `POST ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${Object.entries(
        headers,
      )
        .map(([k, v]) => `${k}: ${v}\r\n`)
        .join('')}\r\n${body}`,
    );
  return { write, answer, close: () => socket.destroy() };
}

for (const [lang, env] of LANGS) {
  test(`serve --lang ${lang}: POSTs with one id at the same time: one runs in a session, the others 400 with the id; statelessly all run`, async () => {
    const s = await startHttpServeProcess(['--lang', lang, '--rev', MODERN], env());
    const sockets: Array<{ close(): void }> = [];
    try {
      const init = await fetch(s.url, { method: 'POST', headers: HEADERS, body: JSON.stringify(INIT) });
      await init.text();
      const session = {
        ...HEADERS,
        'Mcp-Session-Id': init.headers.get('mcp-session-id')!,
        'MCP-Protocol-Version': V25,
      };
      const initialized = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' });
      await (await fetch(s.url, { method: 'POST', headers: session, body: initialized })).text();
      const url = new URL(s.url);
      for (let round = 0; round < ROUNDS; round++) {
        const id = 100 + round;
        const call = {
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: { name: 'test_sampling', arguments: { prompt: 'hi' } },
        };
        const posts = await Promise.all(Array.from({ length: POSTS }, () => rawPost(url, session)));
        sockets.push(...posts);
        for (const p of posts) p.write(JSON.stringify(call));
        const answers = await Promise.all(posts.map((p) => p.answer));
        const inUse = JSON.stringify({
          jsonrpc: '2.0',
          id,
          error: { code: -32600, message: `Invalid Request: request id ${id} is already in use` },
        });
        const want = ['200 stream', ...Array<string>(POSTS - 1).fill(`400 ${inUse}`)];
        assert.equal(answers.sort(), want.sort(), `${lang} session, id ${id}`);
      }
      const stateless = { ...HEADERS, 'MCP-Protocol-Version': MODERN, 'Mcp-Method': 'tools/call' };
      const slow = {
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'test_tool_with_progress', arguments: {}, _meta: META },
      };
      const both = await Promise.all(
        [1, 2].map(async () => {
          const headers = { ...stateless, 'Mcp-Name': 'test_tool_with_progress' };
          const res = await fetch(s.url, { method: 'POST', headers, body: JSON.stringify(slow) });
          return { status: res.status, body: JSON.parse(await res.text()) };
        }),
      );
      for (const b of both) {
        assert.is(b.status, 200, `${lang} stateless: ${JSON.stringify(b.body)}`);
        assert.equal(b.body.id, 7, `${lang} stateless`);
        assert.equal(b.body.result?.content, [{ type: 'text', text: 'Progress completed' }], `${lang} stateless`);
      }
    } finally {
      for (const k of sockets) k.close();
      await s.stop();
    }
  });
}

test.run();
