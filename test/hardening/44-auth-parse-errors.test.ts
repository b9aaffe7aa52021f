/**
 * Issue 44, new-user trials: the stateless endpoint, and so the dual-era front (which hands a
 * body it could not parse to it), answered a body nested deeper than the JSON depth bound (512)
 * with "Parse error: body is not JSON", where the session and HTTP+SSE endpoints say what it
 * is ("JSON nested deeper than 512 levels"). Now every HTTP entry point gives the same 400
 * -32700 answer for the same bad body: a table over the entry points as a user builds them
 * (sessions, stateless, the dual-era front with either era's headers, HTTP+SSE; `node:http`
 * over a real socket, and the WHATWG `fetch` form of each that has one) and the bodies (not
 * JSON, not UTF-8, arrays and objects nested one level too deep).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MAX_JSON_DEPTH } from '../../runtime/codec/json-depth.js';
import { createDualEraHttpHandler } from '../../runtime/stateless/dual-era.js';
import {
  createLegacySseHandler,
  LegacySseClientTransport,
} from '../../runtime/transport/http/legacy-sse/legacy-sse.js';
import { createStreamableHttpHandler } from '../../runtime/transport/http/session/server.js';
import { createStatelessHttpHandler } from '../../runtime/transport/http/stateless/server.js';
import { SESSION_TABLES, STATELESS_TABLES } from '../runtime/transport/http/tables.js';

const ACCEPT = 'application/json, text/event-stream';
const idle = { onMessage() {}, onClose() {} };
const sessions = createStreamableHttpHandler({ tables: SESSION_TABLES, onSession: (t) => void t.start(idle) });
const modern = createStatelessHttpHandler({ tables: STATELESS_TABLES });
const dual = createDualEraHttpHandler({
  modern: createStatelessHttpHandler({ tables: STATELESS_TABLES }),
  legacy: createStreamableHttpHandler({ tables: SESSION_TABLES, onSession: (t) => void t.start(idle) }),
});
const legacy = createLegacySseHandler({ onSession: (t) => void t.start(idle) });

let http: Server;
let base = '';
let legacyClient: LegacySseClientTransport;

test.before(async () => {
  http = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0];
    if (legacy.handles(req)) return void legacy(req, res);
    void (path === '/sessions' ? sessions : path === '/modern' ? modern : dual)(req, res);
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  legacyClient = new LegacySseClientTransport({ url: `${base}/sse` });
  await legacyClient.start(idle);
});

test.after(async () => {
  await legacyClient.close();
  await Promise.all([sessions.close(), modern.close(), dual.close(), legacy.close()]);
  http.closeAllConnections();
  await new Promise<void>((r) => http.close(() => r()));
});

const json = { Accept: ACCEPT, 'Content-Type': 'application/json' };
const modernHeaders = { ...json, 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/list' };
const nested = (open: string, close: string, depth: number) => open.repeat(depth) + close.repeat(depth);
const deepParams = (depth: number) =>
  `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"a":${nested('{"a":', '}', depth - 2).replace('{"a":}', '{}')}}}`;

const NOT_JSON = 'Parse error: body is not JSON';
const TOO_DEEP = `Parse error: JSON nested deeper than ${MAX_JSON_DEPTH} levels`;
const bodies: Array<[string, Uint8Array<ArrayBuffer>, string]> = [
  ['not JSON', new TextEncoder().encode('{"jsonrpc":'), NOT_JSON],
  ['not UTF-8', new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]), NOT_JSON],
  ['arrays one level too deep', new TextEncoder().encode(nested('[', ']', MAX_JSON_DEPTH + 1)), TOO_DEEP],
  ['a request whose params nest too deep', new TextEncoder().encode(deepParams(MAX_JSON_DEPTH + 1)), TOO_DEEP],
];

/** Every entry point: how to send it a body (node:http over a socket, or its fetch form). */
const entryPoints = (): Array<[string, (body: Uint8Array<ArrayBuffer>) => Promise<Response>]> => {
  const overSocket = (path: string, headers: Record<string, string>) => (body: Uint8Array<ArrayBuffer>) =>
    fetch(`${base}${path}`, { method: 'POST', headers, body });
  const fetchForm =
    (handler: (r: Request) => Promise<Response>, headers: Record<string, string>) => (body: Uint8Array<ArrayBuffer>) =>
      handler(new Request(`${base}/mcp`, { method: 'POST', headers, body }));
  return [
    ['sessions (node:http)', overSocket('/sessions', json)],
    ['sessions (fetch)', fetchForm(sessions.fetch, json)],
    ['stateless (node:http)', overSocket('/modern', modernHeaders)],
    ['stateless (fetch)', fetchForm(modern.fetch, modernHeaders)],
    ['dual-era, 2026 headers (node:http)', overSocket('/mcp', modernHeaders)],
    ['dual-era, 2026 headers (fetch)', fetchForm(dual.fetch, modernHeaders)],
    ['dual-era, 2025 headers (node:http)', overSocket('/mcp', json)],
    ['dual-era, 2025 headers (fetch)', fetchForm(dual.fetch, json)],
    [
      'HTTP+SSE (node:http)',
      overSocket(`/messages?sessionId=${legacyClient.sessionId}`, { 'Content-Type': 'application/json' }),
    ],
  ];
};

test('the same bad body gets the same 400 -32700 answer (no id) at every HTTP entry point', async () => {
  assert.ok(deepParams(MAX_JSON_DEPTH + 1).includes('{}'));
  assert.not.ok(
    deepParams(MAX_JSON_DEPTH + 1).includes('{"a":}'),
    'the deep request is well-formed JSON, only too deep',
  );
  const got: string[] = [];
  const expected: string[] = [];
  for (const [what, body, message] of bodies) {
    for (const [where, send] of entryPoints()) {
      const res = await send(body);
      const text = await res.text();
      let reply: { id?: unknown; error?: { code?: number; message?: string } } = {};
      try {
        reply = JSON.parse(text);
      } catch {
        reply = { error: { message: text.slice(0, 80) } };
      }
      const id = 'id' in reply ? JSON.stringify(reply.id) : 'no id';
      got.push(`${what} at ${where}: ${res.status} ${id} ${reply.error?.code} ${reply.error?.message}`);
      expected.push(`${what} at ${where}: 400 no id -32700 ${message}`);
    }
  }
  assert.equal(got, expected);
});

test('one level less deep is parsed: no parse error anywhere', async () => {
  const body = new TextEncoder().encode(deepParams(MAX_JSON_DEPTH));
  JSON.parse(new TextDecoder().decode(body));
  for (const [where, send] of entryPoints()) {
    const text = await (await send(body)).text();
    assert.not.ok(text.includes('-32700'), `${where}: ${text}`);
  }
});

test.run();
