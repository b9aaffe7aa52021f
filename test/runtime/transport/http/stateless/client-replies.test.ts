/**
 * What the draft client makes of a server's bad reply to `tools/call`, over both forms of the
 * stateless client transport (node:http, and fetch), beside what our 2025-11-25 client makes of
 * the same reply: a real node:http server (the dual-era endpoint behind a front that gives the
 * bad reply to a `tools/call` of a named tool, the rest served by the endpoint). An error status
 * whose body is a JSON-RPC error for no id gives both eras its code and message, and the status.
 */
import type { ServerResponse } from 'node:http';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as draft from '../../../../../generated/draft/index.js';
import * as v2025 from '../../../../../generated/2025-11-25/index.js';
import { StatelessHttpClientTransport } from '../../../../../runtime/transport/http/stateless/node-client.js';
import { HttpClientTransport } from '../../../../../runtime/transport/http/session/node-client.js';
import { startDualEraBehind, type Running } from './helpers.js';

const json = (res: ServerResponse, body: string, type = 'application/json') => {
  res.writeHead(200, { 'Content-Type': type });
  res.end(body);
};
const sse = (res: ServerResponse, events: string) => {
  res.writeHead(200, { 'Content-Type': 'text/event-stream' });
  res.end(events);
};
const result = (id: unknown, r: unknown) => JSON.stringify({ jsonrpc: '2.0', id, result: r });

/** The bad replies, by tool name. */
const REPLIES: Record<string, (id: unknown, res: ServerResponse) => void> = {
  /** M1: a result without `content` (the absent resultType is "complete"). */
  empty: (id, res) => json(res, result(id, {})),
  emptyComplete: (id, res) => json(res, result(id, { resultType: 'complete' })),
  /** M2: the response of another id. */
  otherId: (_id, res) => json(res, result(99999, { content: [] })),
  /** M3: an event that is not JSON, then the response. */
  badEvent: (id, res) => sse(res, `data: {nope\n\ndata: ${result(id, { content: [] })}\n\n`),
  /** An event of another type (`event: ping`) holding a response, then the `message` event with the response. */
  otherEvent: (id, res) =>
    sse(
      res,
      `event: ping\ndata: ${result(id, { content: [{ type: 'text', text: 'ping' }] })}\n\ndata: ${result(id, { content: [] })}\n\n`,
    ),
  /** L1: neither JSON nor SSE; a JSON body cut short; JSON that is no JSON-RPC; no Content-Type. */
  plain: (_id, res) => json(res, 'hello there', 'text/plain'),
  truncated: (id, res) => json(res, result(id, { content: [] }).slice(0, 20)),
  notRpc: (_id, res) => json(res, '{"status":"ok"}'),
  untyped: (id, res) => {
    res.writeHead(200);
    res.end(result(id, { content: [] }));
  },
  /** An error status whose body is a JSON-RPC error for no id (id null, or absent). */
  nullId400: (_id, res) => {
    res.writeHead(400, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: bad' } }));
  },
  noId500: (_id, res) => {
    res.writeHead(500, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal error: broke' } }));
  },
  /** L2: an event over maxEventSize (1000). */
  huge: (id, res) => sse(res, `data: ${result(id, { content: [{ type: 'text', text: 'x'.repeat(5000) }] })}\n\n`),
};

let s: Running;
test.before(async () => {
  s = await startDualEraBehind((_method, _req, res, m) => {
    const name: unknown = m?.method === 'tools/call' ? m.params?.name : undefined;
    if (typeof name !== 'string' || !Object.hasOwn(REPLIES, name)) return false;
    REPLIES[name]!(m.id, res);
    return true;
  });
});
test.after(async () => {
  await s.close();
});

interface Outcome {
  /** The result, or the error as `Name code message (cause Name)`. */
  got: string;
  /** What the client's logger was warned of. */
  warned: string[];
}

type Era = 'draft-node' | 'draft-fetch' | '2025';

/** The HTTP status an error with a code carries, on itself or its cause (` [HTTP 400]`), else ''. */
const statusOf = (e: Error & { code?: number; status?: number; cause?: unknown }): string => {
  const status = e.status ?? (e.cause as { status?: number } | undefined)?.status;
  return e.code === undefined || status === undefined ? '' : ` [HTTP ${status}]`;
};

/** Calls each tool of `names` on a client of `era` and returns what each call gave. */
async function calls(era: Era, names: string[]): Promise<Record<string, Outcome>> {
  const warned: string[] = [];
  const logger = { warn: (_m: string, data?: Record<string, unknown>) => void warned.push(String(data?.error)) };
  const options = { url: s.url, maxEventSize: 1000, ...(era === 'draft-fetch' ? { fetch: globalThis.fetch } : {}) };
  const c =
    era === '2025'
      ? new v2025.Client({ clientInfo: { name: 'c', version: '1' }, logger })
      : new draft.Client({ clientInfo: { name: 'c', version: '1' }, logger });
  await c.connect(era === '2025' ? new HttpClientTransport(options) : new StatelessHttpClientTransport(options));
  const out: Record<string, Outcome> = {};
  try {
    for (const name of names) {
      warned.length = 0;
      const got = await c.callTool({ name, arguments: {} }, { timeout: 5000 }).then(
        (r) => JSON.stringify({ content: r.content }),
        (e: Error & { code?: number; cause?: Error; status?: number }) =>
          `${e.name} ${e.code} ${e.message}${e.cause ? ` (cause ${e.cause.name})` : ''}${statusOf(e)}`,
      );
      out[name] = { got, warned: [...warned] };
    }
  } finally {
    await c.close();
  }
  return out;
}

/** `text` without the request id it names (the clients number their requests apart). */
const anyId = (text: string) => text.replace(/request id \d+/, 'request id N');

for (const era of ['draft-node', 'draft-fetch'] as const) {
  test(`${era}: a tools/call result without content is refused as the 2025 client refuses it (-32603 InvalidResultError)`, async () => {
    const [mine, theirs] = [
      await calls(era, ['empty', 'emptyComplete']),
      await calls('2025', ['empty', 'emptyComplete']),
    ];
    for (const name of ['empty', 'emptyComplete']) {
      assert.is(
        mine[name]!.got,
        "InvalidResultError -32603 Invalid result for tools/call: / must have required property 'content'",
      );
      assert.is(mine[name]!.got, theirs[name]!.got);
    }
  });

  test(`${era}: a JSON reply answering another id fails the call with HttpStatusError, as in the 2025 client`, async () => {
    const [mine, theirs] = [await calls(era, ['otherId']), await calls('2025', ['otherId'])];
    const want =
      'HttpStatusError undefined POST tools/call: the JSON reply holds no response to request id N (it answers id 99999): HTTP 200';
    assert.is(anyId(mine.otherId!.got), want);
    assert.is(anyId(theirs.otherId!.got), want);
  });

  test(`${era}: an SSE event that is not JSON is skipped and warned of, the result returned, as in the 2025 client`, async () => {
    const [mine, theirs] = [await calls(era, ['badEvent']), await calls('2025', ['badEvent'])];
    assert.equal(mine.badEvent, { got: '{"content":[]}', warned: ['SSE event is not JSON: {nope'] });
    assert.equal(mine.badEvent, theirs.badEvent);
  });

  test(`${era}: an SSE event whose type is not "message" is skipped (the message event answers), as in the 2025 client`, async () => {
    const [mine, theirs] = [await calls(era, ['otherEvent']), await calls('2025', ['otherEvent'])];
    assert.equal(mine.otherEvent, { got: '{"content":[]}', warned: [] });
    assert.equal(mine.otherEvent, theirs.otherEvent);
  });

  test(`${era}: a 2xx reply neither JSON nor SSE, or JSON cut short, not JSON-RPC or untyped, fails with its reason, as in the 2025 client`, async () => {
    const names = ['plain', 'truncated', 'notRpc', 'untyped'];
    const [mine, theirs] = [await calls(era, names), await calls('2025', names)];
    assert.is(
      mine.plain!.got,
      'HttpStatusError undefined POST tools/call: unexpected Content-Type text/plain: HTTP 200',
    );
    assert.match(
      mine.truncated!.got,
      /^HttpStatusError undefined POST tools\/call: the application\/json body is not JSON \(.+\): HTTP 200$/,
    );
    assert.is(
      mine.notRpc!.got,
      'HttpStatusError undefined POST tools/call: the application/json body is not JSON-RPC: HTTP 200',
    );
    assert.is(mine.untyped!.got, 'HttpStatusError undefined POST tools/call: unexpected Content-Type (none): HTTP 200');
    for (const name of names) assert.equal(mine[name], theirs[name], name);
  });

  test(`${era}: an error status whose body is a JSON-RPC error for no id: its code and message reach the caller, the status readable, in both eras`, async () => {
    const names = ['nullId400', 'noId500'];
    const [mine, theirs] = [await calls(era, names), await calls('2025', names)];
    assert.equal(
      names.map((n) => mine[n]!.got),
      [
        'RpcError -32600 Invalid Request: bad (cause HttpStatusError) [HTTP 400]',
        'RpcError -32603 Internal error: broke (cause HttpStatusError) [HTTP 500]',
      ],
    );
    assert.equal(
      names.map((n) => theirs[n]!.got),
      [
        'HttpStatusError -32600 POST tools/call: HTTP 400 (Invalid Request: bad) [HTTP 400]',
        'HttpStatusError -32603 POST tools/call: HTTP 500 (Internal error: broke) [HTTP 500]',
      ],
    );
  });

  test(`${era}: an SSE event over maxEventSize fails the call with ConnectionClosedError (-32000), the SseSizeError its cause`, async () => {
    const [mine, theirs] = [await calls(era, ['huge']), await calls('2025', ['huge'])];
    assert.is(
      mine.huge!.got,
      'ConnectionClosedError -32000 SSE response stream lost before the response (the request may have run): SSE event exceeds 1000 characters (cause SseSizeError)',
    );
    // (the 2025 client adds why its stream is not resumed: no event ID came)
    assert.is(
      theirs.huge!.got,
      'ConnectionClosedError -32000 SSE response stream lost before the response (the request may have run), and it cannot be resumed (no event ID came): SSE event exceeds 1000 characters (cause SseSizeError)',
    );
  });
}

test.run();
