/**
 * Issue 11, finding 12 (ids): JSON-RPC requires a response to carry its request's id unchanged.
 * An integer id beyond ±(2^53 − 1), which `JSON.parse` rounds, comes back with the digits the
 * client wrote, and so does a progress token of that size; an id that is not an integer as
 * written (`9007199254740993.5`, which a double rounds to an integer) is refused like `1.5`.
 * The answers are read as raw text (a JSON parser in the test would round them too), over
 * `mcpgen serve --stdio` and `mcpgen serve --http 0` of both eras, and the HTTP+SSE endpoints.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '../../generated/2025-11-25/index.js';
import { HttpClientTransport } from '../../runtime/transport/http/session/node-client.js';
import { exactIds, isRequestId, serializeMessage } from '../../runtime/jsonrpc/message.js';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { onLines, spawnStdioServe, startServe } from '../runtime/tasks/serve-process.js';
import { type LegacyStream, openLegacyStream } from './wire.js';
import { headersFor, META } from '../runtime/transport/http/stateless/helpers.js';

const LIMIT = 20_000;
const ACCEPT = 'application/json, text/event-stream';
const BIG = [
  '9007199254740993',
  '9007199254740992',
  '-9007199254740993',
  '18446744073709551615',
  '123456789012345678901234567890',
];
const INIT = (id: string) =>
  `{"jsonrpc":"2.0","id":${id},"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`;
const META_TEXT = JSON.stringify(META);

/** The raw id text of a JSON-RPC answer (`"id":` at the top level, as the runtime writes it first or second). */
function rawId(text: string): string | undefined {
  return /^\{"jsonrpc":"2\.0","id":(-?[0-9]+|null|"[^"]*")/.exec(text)?.[1];
}

/** `mcpgen serve --stdio <args>`: write raw lines, collect raw answer lines. */
function stdioServe(...args: string[]) {
  const proc = spawnStdioServe(args, { stderr: 'ignore' });
  const lines: string[] = [];
  const waiters: Array<() => void> = [];
  onLines(proc.stdout!, (line) => {
    lines.push(line);
    for (const w of waiters.splice(0)) w();
  });
  return {
    lines,
    write: (line: string) => proc.stdin!.write(`${line}\n`),
    /** Waits until a line matches `pattern`; returns it. */
    async until(pattern: RegExp): Promise<string> {
      const end = Date.now() + LIMIT;
      for (;;) {
        const hit = lines.find((l) => pattern.test(l));
        if (hit) return hit;
        if (Date.now() > end) throw new Error(`no line matched ${pattern}; got:\n${lines.join('\n')}`);
        await new Promise<void>((r) => {
          waiters.push(r);
          setTimeout(r, 200);
        });
      }
    },
    stop: () =>
      new Promise<void>((r) => {
        proc.once('exit', () => r());
        proc.stdin!.end();
        setTimeout(() => proc.kill('SIGKILL'), 5000).unref();
      }),
  };
}

test('serve --stdio (2025-11-25): ids beyond 2^53 are echoed digit for digit, progress tokens too', async () => {
  const s = stdioServe('--rev', '2025-11-25');
  try {
    s.write(INIT('9007199254740995'));
    const init = await s.until(/"id":9007199254740995\b/);
    assert.is(rawId(init), '9007199254740995');
    s.write('{"jsonrpc":"2.0","method":"notifications/initialized"}');
    // in flight together: 2^53 and 2^53 + 1 round to the same double but are two requests
    for (const id of BIG) s.write(`{"jsonrpc":"2.0","id":${id},"method":"ping"}`);
    for (const id of BIG) assert.is(rawId(await s.until(new RegExp(`^\\{"jsonrpc":"2\\.0","id":${id}[,}]`))), id);
    assert.is(s.lines.filter((l) => /"result":\{\}/.test(l)).length, BIG.length, 'one answer per ping');
    s.write(
      '{"jsonrpc":"2.0","id":9007199254740997,"method":"tools/call","params":{"name":"slow_compute","arguments":{"seconds":0.2},"_meta":{"progressToken":9007199254740999}}}',
    );
    const result = await s.until(/"id":9007199254740997[,}]/);
    assert.match(result, /Computed sum/);
    const progress = s.lines.filter((l) => l.includes('notifications/progress'));
    assert.ok(progress.length > 0, 'progress was sent');
    for (const p of progress) assert.match(p, /"progressToken":9007199254740999[,}]/);
    // 2^53 + 1 and 2^53 are two requests: cancelling one leaves the other, which ends later
    s.write(
      '{"jsonrpc":"2.0","id":9007199254740993,"method":"tools/call","params":{"name":"slow_compute","arguments":{"seconds":1}}}',
    );
    s.write(
      '{"jsonrpc":"2.0","id":9007199254740992,"method":"tools/call","params":{"name":"slow_compute","arguments":{"seconds":1.5}}}',
    );
    s.write('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9007199254740993}}');
    const later = await s.until(/^\{"jsonrpc":"2\.0","id":9007199254740992,"result".*Computed sum/);
    assert.ok(later);
    assert.not.ok(
      s.lines.some((l) => /^\{"jsonrpc":"2\.0","id":9007199254740993,"result".*Computed sum/.test(l)),
      'the cancelled one is not answered',
    );
    // a fraction the double rounds away is still a fraction: refused like 1.5
    s.write('{"jsonrpc":"2.0","id":9007199254740993.5,"method":"ping"}');
    const refused = await s.until(/-32600/);
    assert.not.match(refused, /9007199254740994/);
  } finally {
    await s.stop();
  }
});

test('serve --stdio --rev draft: a stateless request with a big id gets it back exactly', async () => {
  const s = stdioServe('--rev', 'draft');
  try {
    s.write(`{"jsonrpc":"2.0","id":18446744073709551617,"method":"tools/list","params":{"_meta":${META_TEXT}}}`);
    const line = await s.until(/"id":18446744073709551617[,}]/);
    assert.match(line, /"tools":\[/);
  } finally {
    await s.stop();
  }
});

async function postText(
  url: string,
  headers: Record<string, string>,
  body: string,
): Promise<{ status: number; text: string; sid: string | null }> {
  const res = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(LIMIT) });
  const raw = await res.text();
  // an SSE answer: the data of its last event with data
  const text = (res.headers.get('content-type') ?? '').startsWith('text/event-stream')
    ? (raw
        .split('\n')
        .filter((l) => l.startsWith('data: ') && l.length > 6)
        .map((l) => l.slice(6))
        .at(-1) ?? '')
    : raw;
  return { status: res.status, text, sid: res.headers.get('mcp-session-id') };
}

for (const reply of ['json', 'sse']) {
  test(`serve --http --rev 2025-11-25 --reply ${reply}: big ids come back exactly, a rounded fraction gets 400 -32600`, async () => {
    const s = await startServe('--rev', '2025-11-25', '--reply', reply);
    try {
      const init = await postText(
        s.url,
        { Accept: ACCEPT, 'Content-Type': 'application/json' },
        INIT('9007199254740993'),
      );
      assert.is(rawId(init.text), '9007199254740993', init.text);
      const headers = {
        Accept: ACCEPT,
        'Content-Type': 'application/json',
        'Mcp-Session-Id': init.sid!,
        'MCP-Protocol-Version': '2025-11-25',
      };
      await postText(s.url, headers, '{"jsonrpc":"2.0","method":"notifications/initialized"}');
      const answers = await Promise.all(
        BIG.map((id) => postText(s.url, headers, `{"jsonrpc":"2.0","id":${id},"method":"ping"}`)),
      );
      answers.forEach((a, i) => {
        assert.is(a.status, 200, a.text);
        assert.is(rawId(a.text), BIG[i], a.text);
      });
      const refused = await postText(s.url, headers, '{"jsonrpc":"2.0","id":9007199254740993.5,"method":"ping"}');
      assert.is(refused.status, 400);
      assert.is(rawId(refused.text), undefined, 'no id member (the error-id rule)');
      assert.match(refused.text, /^\{"jsonrpc":"2\.0","error":/);
      assert.match(refused.text, /-32600/);
    } finally {
      await s.stop();
    }
  });
}

for (const args of [
  ['--rev', 'draft', '--modern-only'],
  ['--rev', 'draft'],
]) {
  test(`serve --http ${args.join(' ')} (stateless): big ids come back exactly`, async () => {
    const s = await startServe(...args);
    try {
      const answers = await Promise.all(
        BIG.map((id) =>
          postText(
            s.url,
            headersFor('tools/list'),
            `{"jsonrpc":"2.0","id":${id},"method":"tools/list","params":{"_meta":${META_TEXT}}}`,
          ),
        ),
      );
      answers.forEach((a, i) => {
        assert.is(a.status, 200, a.text);
        assert.is(rawId(a.text), BIG[i], a.text);
        assert.match(a.text, /"tools":\[/);
      });
      // refusals before the engine echo it too (here: a missing Mcp-Method header)
      const { 'Mcp-Method': _, ...noMethod } = headersFor('tools/list');
      const mismatch = await postText(
        s.url,
        noMethod,
        `{"jsonrpc":"2.0","id":9007199254740993,"method":"tools/list","params":{"_meta":${META_TEXT}}}`,
      );
      assert.is(mismatch.status, 400);
      assert.is(rawId(mismatch.text), '9007199254740993', mismatch.text);
    } finally {
      await s.stop();
    }
  });
}

test('serve --http (legacy HTTP+SSE): a big id comes back exactly on the stream', async () => {
  const s = await startServe('--rev', '2025-11-25');
  let legacy: LegacyStream | undefined;
  try {
    legacy = await openLegacyStream(new URL(s.url).origin, LIMIT);
    const { post, until } = legacy;
    assert.is(await post(INIT('9007199254740993')), 202);
    assert.match((await until(/data: (\{"jsonrpc":"2\.0","id":9007199254740993,"result".*)/))[1], /protocolVersion/);
    assert.is(await post('{"jsonrpc":"2.0","method":"notifications/initialized"}'), 202);
    assert.is(await post('{"jsonrpc":"2.0","id":18446744073709551615,"method":"ping"}'), 202);
    await until(/data: \{"jsonrpc":"2\.0","id":18446744073709551615,"result":\{\}\}/);
  } finally {
    legacy?.close();
    await s.stop();
  }
});

test('our 2025-11-25 client over Streamable HTTP answers a server request with a big id exactly', async () => {
  const answers: string[] = [];
  const http = createServer((req, res) => {
    if (req.method === 'GET') {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      res.write('event: message\ndata: {"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}\n\n');
      return;
    }
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      if (body.includes('"method":"initialize"')) {
        res.writeHead(200, { 'Content-Type': 'application/json', 'Mcp-Session-Id': 's1' });
        res.end(
          body.replace(
            /^\{.*"id":(\d+).*$/,
            '{"jsonrpc":"2.0","id":$1,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"raw","version":"1"}}}',
          ),
        );
        return;
      }
      if (!body.includes('"method"')) answers.push(body);
      res.writeHead(202).end();
    });
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  const client = new Client({ clientInfo: { name: 't', version: '1' } });
  try {
    await client.connect(
      new HttpClientTransport({ url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp` }),
    );
    const end = Date.now() + LIMIT;
    while (answers.length === 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
    assert.is(answers.length, 1, 'the ping was answered');
    assert.is(answers[0], '{"jsonrpc":"2.0","id":9007199254740993,"result":{}}');
  } finally {
    await client.close().catch(() => undefined);
    http.closeAllConnections();
    await new Promise<void>((r) => http.close(() => r()));
  }
});

test('exactIds reads the id the parser kept (the last of repeated names), wherever the frame puts it', () => {
  const cases: Array<[string, string]> = [
    [
      '{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}',
      '{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}',
    ],
    [
      ' { "method" : "ping" ,\r\n "id"\t:\n-9007199254740993 , "jsonrpc":"2.0"}',
      '{"method":"ping","id":-9007199254740993,"jsonrpc":"2.0"}',
    ],
    // nested and quoted look-alikes are skipped; a repeated name: the last one counts, as in JSON.parse
    [
      '{"x":{"id":5},"s":"\\"id\\":1,","id":1,"a":[{"id":2},"]"],"id":12345678901234567890123}',
      '{"x":{"id":5},"s":"\\"id\\":1,","id":12345678901234567890123,"a":[{"id":2},"]"]}',
    ],
    // an escaped name is the same name
    [
      '{"i\\u0064":9007199254740995,"jsonrpc":"2.0","method":"ping"}',
      '{"id":9007199254740995,"jsonrpc":"2.0","method":"ping"}',
    ],
    // integers written with a fraction or an exponent
    ['{"id":9007199254740993.000}', '{"id":9007199254740993}'],
    ['{"id":90071992547409930e-1}', '{"id":9007199254740993}'],
    ['{"id":1.5e20}', '{"id":150000000000000000000}'],
    // params fields keep the parsed number for the validators; the exact value is read beside it
    [
      '{"jsonrpc":"2.0","id":9007199254740991,"method":"ping"}',
      '{"jsonrpc":"2.0","id":9007199254740991,"method":"ping"}',
    ],
  ];
  for (const [text, written] of cases) {
    const m = JSON.parse(text);
    exactIds(m, text);
    assert.is(serializeMessage(m), written, text);
  }
  for (const text of ['{"id":9007199254740993.5}', `{"id":1${'0'.repeat(1100)}}`, '{"id":9.0071992547409931e15}']) {
    const m = JSON.parse(text);
    exactIds(m, text);
    assert.not.ok(isRequestId(m.id), `${text.slice(0, 40)}: not an integer as written, or absurdly long`);
  }
  // safe integers and everything else: untouched, same object, one stringify
  const plain = { jsonrpc: '2.0', id: 7, method: 'ping', params: { _meta: { progressToken: 'p' }, requestId: 3 } };
  const text = JSON.stringify(plain);
  exactIds(plain, text);
  assert.is(serializeMessage(plain), text);
});

test.run();
