/**
 * The bad-line set every runtime's tests share (test/fixtures/jsonrpc-bad-lines.json; the Python
 * and Go runtimes run it too), against real `mcpgen serve` processes: over stdio each bad line
 * gets exactly one answer, in the order of the lines, and the requests around them are served;
 * as POST bodies, the 2025-11-25 session endpoint, the 2026-07-28 dual-era and stateless
 * endpoints and the legacy HTTP+SSE endpoint answer each with 400 and the same error. JSON-RPC
 * 2.0 §5: an error answering a request whose id can be read carries that id; when it cannot
 * (not JSON, not an object, an id that is neither a string nor an integer) the error has no id
 * member (the error-id rule, docs/findings.md).
 */
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { openLegacyStream } from '../../hardening/wire.js';
import { onLines, root, spawnStdioServe, startServe } from '../tasks/serve-process.js';

interface BadLine {
  name: string;
  line: string;
  /** The answer (null: none); `code` for an error, `id` only when the answer carries one. */
  answer: { code?: number; id?: string | number; result?: unknown } | null;
}
type Json = Record<string, unknown>;

const { lines } = JSON.parse(readFileSync(`${root}/test/fixtures/jsonrpc-bad-lines.json`, 'utf8')) as {
  lines: BadLine[];
};
const erroneous = lines.filter((l) => l.answer?.code !== undefined);
const LIMIT = 30_000;
const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'probe', version: '1' } },
};

/** What is wrong with `got` as the error answering `l` ('' when nothing). */
function wrong(l: BadLine, got: Json | undefined): string {
  const error = got?.error as Json | undefined;
  if (!error) return `not an error: ${JSON.stringify(got)}`;
  if (error.code !== l.answer!.code) return `code ${error.code}: ${JSON.stringify(got)}`;
  if (l.answer!.id === undefined && got && 'id' in got)
    return `an id member (none can be read): ${JSON.stringify(got)}`;
  if (l.answer!.id !== undefined && got!.id !== l.answer!.id)
    return `id ${JSON.stringify(got!.id)}, want ${JSON.stringify(l.answer!.id)}: ${JSON.stringify(got)}`;
  if (error.code === -32700 && !String(error.message).startsWith('Parse error')) return `message ${error.message}`;
  return '';
}

/** Writes the handshake, every line and a last ping in one write, closes stdin; what came back. */
async function stdioRun(args: string[]): Promise<Json[]> {
  const child = spawnStdioServe(args, { stderr: 'ignore' });
  const out: Json[] = [];
  onLines(child.stdout!, (line) => out.push(JSON.parse(line) as Json));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const timer = setTimeout(() => child.kill('SIGKILL'), LIMIT);
  const input = [
    JSON.stringify(INIT),
    '{"jsonrpc":"2.0","method":"notifications/initialized"}',
    ...lines.map((l) => l.line),
    '{"jsonrpc":"2.0","id":"last","method":"ping"}',
  ];
  child.stdin!.end(`${input.join('\n')}\n`);
  await exited;
  clearTimeout(timer);
  return out;
}

for (const rev of ['2025-11-25', '2026-07-28']) {
  test(`serve --stdio --rev ${rev}: one answer per bad line, in order, with the id when it can be read`, async () => {
    const out = await stdioRun(['--rev', rev]);
    const errors = out.filter((m) => 'error' in m);
    const served = out.filter((m) => !('error' in m)).map((m) => m.id);
    assert.equal(served.sort(), [1, 10, 'last'].sort(), `results: ${JSON.stringify(out)}`);
    assert.is(errors.length, erroneous.length, `one error per bad line: ${JSON.stringify(errors)}`);
    erroneous.forEach((l, i) => {
      assert.is(wrong(l, errors[i]), '', `${l.name} (${l.line})`);
    });
  });
}

/** POSTs `body`; the status and the parsed JSON body (for SSE: its last message). */
async function post(
  url: string,
  headers: Record<string, string>,
  body: string,
): Promise<{ status: number; body: Json }> {
  const res = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(LIMIT) });
  const text = await res.text();
  if ((res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    const data = text.split('\n').filter((l) => l.startsWith('data: ') && l.length > 6);
    return { status: res.status, body: JSON.parse(data.at(-1)!.slice(6)) as Json };
  }
  return { status: res.status, body: text === '' ? {} : (JSON.parse(text) as Json) };
}

const JSON_HEADERS = { Accept: 'application/json, text/event-stream', 'Content-Type': 'application/json' };

async function postAll(url: string, headers: Record<string, string>, what: string): Promise<void> {
  // a malformed notification is accepted and ignored: 202, no body (field case 004)
  for (const l of lines.filter((l) => l.answer === null)) {
    const r = await fetch(url, { method: 'POST', headers, body: l.line, signal: AbortSignal.timeout(LIMIT) });
    const text = await r.text();
    assert.is(r.status, 202, `${what} ${l.name}: ${text}`);
    assert.ok(text === '' || text === 'Accepted', `${what} ${l.name}: no JSON-RPC answer, got ${text}`);
  }
  for (const l of erroneous) {
    const r = await post(url, headers, l.line);
    assert.is(r.status, 400, `${what} ${l.name}: ${JSON.stringify(r.body)}`);
    assert.is(wrong(l, r.body), '', `${what} ${l.name} (${l.line})`);
  }
}

test('serve --http --rev 2025-11-25: the session endpoint and the legacy HTTP+SSE endpoint', async () => {
  const s = await startServe('--rev', '2025-11-25');
  try {
    const init = await fetch(s.url, { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify(INIT) });
    const sid = init.headers.get('mcp-session-id')!;
    await init.text();
    assert.ok(sid, 'a session');
    const headers = { ...JSON_HEADERS, 'Mcp-Session-Id': sid, 'MCP-Protocol-Version': '2025-11-25' };
    const ack = await post(s.url, headers, '{"jsonrpc":"2.0","method":"notifications/initialized"}');
    assert.is(ack.status, 202);
    await postAll(s.url, headers, 'session');
    const legacy = await openLegacyStream(new URL(s.url).origin, LIMIT);
    try {
      await postAll(legacy.endpoint, { 'Content-Type': 'application/json' }, 'HTTP+SSE');
    } finally {
      legacy.close();
    }
  } finally {
    await s.stop();
  }
});

for (const args of [
  ['--rev', '2026-07-28'],
  ['--rev', '2026-07-28', '--modern-only'],
]) {
  test(`serve --http ${args.join(' ')}: each bad POST body answered 400 with the same error`, async () => {
    const s = await startServe(...args);
    try {
      await postAll(s.url, JSON_HEADERS, args.join(' '));
    } finally {
      await s.stop();
    }
  });
}

test.run();
