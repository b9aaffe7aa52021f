/**
 * The stateless client transport's `tools/list` refresh after a -32020 (HeaderMismatch) answer
 * to `tools/call` ("Client Behavior"), in both forms (node:http, fetch), against the dual-era
 * endpoint behind a front (a real HTTP server on a socket):
 * - the -32020 counts in each form it may come in: a 400 JSON reply (with the call's id or
 *   `id: null`), a 200 JSON reply, an SSE reply; each gets one refresh and one re-post, whose
 *   answer is the caller's, even a second -32020;
 * - a caller's abort (-32800) or the call's timeout (-32001) ends a refresh under way: the refresh's
 *   POST is closed and the call not posted again;
 * - a bad reply to the refresh (or a connection reset before it, or cut within it) is named to
 *   `onError` (the client's logger) as "POST tools/list (the refresh after -32020)" and why, in
 *   the words of the same fault on a normal call, and the call is posted again with the
 *   annotations known, its answer the caller's (the call's -32020 is not lost to a raw network error).
 */
import type { ServerResponse } from 'node:http';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as draft from '../../../../../generated/draft/index.js';
import { StatelessHttpClientTransport } from '../../../../../runtime/transport/http/stateless/node-client.js';
import { startDualEraBehind, tick, type Running } from './helpers.js';

const send = (res: ServerResponse, status: number, type: string, body: string) => {
  res.writeHead(status, { 'Content-Type': type });
  res.end(body);
};
const sse = (...data: unknown[]) => data.map((d) => `event: message\ndata: ${JSON.stringify(d)}\n\n`).join('');
const FRONT_MISMATCH = 'Header mismatch: Mcp-Param-Region header does not match the body (front)';
const mismatch = (id: unknown) => ({ jsonrpc: '2.0', id, error: { code: -32020, message: FRONT_MISMATCH } });

/**
 * The -32020 answers the front gives to a `tools/call` whose `query` holds the key as a word:
 * the first time only (the re-post goes on to the endpoint), or every time with '!' after it.
 */
const REFUSALS: Record<string, (id: unknown, res: ServerResponse) => void> = {
  json400: (id, res) => send(res, 400, 'application/json', JSON.stringify(mismatch(id))),
  json400NullId: (_id, res) => send(res, 400, 'application/json', JSON.stringify(mismatch(null))),
  json200: (id, res) => send(res, 200, 'application/json', JSON.stringify(mismatch(id))),
  sse: (id, res) =>
    send(
      res,
      200,
      'text/event-stream',
      sse({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x' } }, mismatch(id)),
    ),
};

/** The bad replies to the refresh, by a word of the `query` of the call that causes it. */
const REPLIES: Record<string, (id: unknown, res: ServerResponse) => void> = {
  plain: (_id, res) => send(res, 200, 'text/plain', 'hello there'),
  rpcError: (id, res) =>
    send(
      res,
      200,
      'application/json',
      JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32603, message: 'lister broke' } }),
    ),
  status500: (_id, res) => send(res, 500, 'text/html', '<h1>oops</h1>'),
  busy: (_id, res) => {
    res.writeHead(503, { 'Retry-After': '2' });
    res.end();
  },
  reset: (_id, res) => void res.socket?.destroy(),
  cut: (_id, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': '100' });
    res.write('{"jsonrpc":"2.0",');
    setTimeout(() => res.socket?.destroy(), 20);
  },
  notJson: (_id, res) => send(res, 200, 'application/json', '{"jsonrpc":'),
  array: (id, res) =>
    send(res, 200, 'application/json', JSON.stringify([{ jsonrpc: '2.0', id, result: { tools: [] } }])),
  both: (id, res) =>
    send(
      res,
      200,
      'application/json',
      JSON.stringify({ jsonrpc: '2.0', id, result: { tools: [] }, error: { code: -32603, message: 'and' } }),
    ),
  sseArray: (_id, res) => send(res, 200, 'text/event-stream', sse([{ jsonrpc: '2.0', id: 0, result: { tools: [] } }])),
  sseBoth: (id, res) =>
    send(
      res,
      200,
      'text/event-stream',
      sse({ jsonrpc: '2.0', id, result: { tools: [] }, error: { code: 1, message: 'm' } }),
    ),
  /** Every page names the same next page. */
  repeat: (id, res) =>
    send(res, 200, 'application/json', JSON.stringify({ jsonrpc: '2.0', id, result: { tools: [], nextCursor: 'p' } })),
  /** Every page names a new next page. */
  endless: (id, res) =>
    send(
      res,
      200,
      'application/json',
      JSON.stringify({ jsonrpc: '2.0', id, result: { tools: [], nextCursor: `p${posted.length}` } }),
    ),
  /** No answer: the refresh waits (the call's abort or timeout ends it). */
  hold: (_id, res) => void held.push(res),
};

let s: Running;
/** The words of the `query` of the last `tools/call`. */
let words: string[] = [];
/** The `tools/call` and `tools/list` POSTs that reached the front, in order. */
let posted: string[] = [];
/** The `query`s the front refused once already. */
const refused = new Set<string>();
/** The refresh POSTs held unanswered (`hold`). */
const held: ServerResponse[] = [];
test.before(async () => {
  s = await startDualEraBehind((method, _req, res, m) => {
    if (method === 'tools/call' || method === 'tools/list') posted.push(method);
    if (method === 'tools/call') {
      const query = String(m.params?.arguments?.query);
      words = query.split(' ');
      for (const w of words) {
        const key = w.replace(/!$/, '');
        if (!Object.hasOwn(REFUSALS, key) || (w === key && refused.has(query))) continue;
        refused.add(query);
        REFUSALS[key]!(m.id, res);
        return true;
      }
    }
    const bad = words.find((w) => Object.hasOwn(REPLIES, w));
    if (method !== 'tools/list' || bad === undefined) return false;
    REPLIES[bad]!(m.id, res);
    return true;
  });
});
test.after(async () => {
  for (const res of held) res.end();
  await s.close();
});

/** A draft Client of `form` and what its logger is warned of (the transport's `onError`). */
async function connect(form: 'node' | 'fetch') {
  words = [];
  const warned: string[] = [];
  // (a lost connection's network error, after "may have run)", is the form's own: not compared)
  const logger = {
    warn: (_m: string, data?: Record<string, unknown>) =>
      void warned.push(String(data?.error).replace(/(may have run\)).*$/, '$1')),
  };
  // (the session's own output-schema listing is off: the transport's refresh is the only tools/list)
  const c = new draft.Client({ clientInfo: { name: 'c', version: '1' }, logger, checkToolOutput: false });
  await c.connect(
    new StatelessHttpClientTransport({ url: s.url, ...(form === 'fetch' ? { fetch: globalThis.fetch } : {}) }),
  );
  return { c, warned };
}

/** What `p` gives: its result's text, or its error's name, code and message. */
const outcome = (p: Promise<{ content: unknown[] }>) =>
  p.then(
    (r) => (r.content[0] as { text: string }).text,
    (x: Error & { code?: number }) => `${x.name} ${x.code} ${x.message}`,
  );

for (const form of ['node', 'fetch'] as const) {
  test(`${form}: a -32020 answer to tools/call in any form (400 JSON, 200 JSON, SSE) gets one refresh and one re-post`, async () => {
    const { c, warned } = await connect(form);
    try {
      await c.listTools({});
      const got: Record<string, unknown[]> = {};
      for (const refusal of Object.keys(REFUSALS)) {
        posted = [];
        const once = await outcome(
          c.callTool({ name: 'sql', arguments: { region: 'eu', query: `${refusal} ${form}` } }),
        );
        const first = posted;
        posted = [];
        const always = await outcome(c.callTool({ name: 'sql', arguments: { region: 'eu', query: `${refusal}!` } }));
        got[refusal] = [once, first, always, posted];
      }
      const expected = (refusal: string) => [
        JSON.stringify({ region: 'eu', query: `${refusal} ${form}` }),
        ['tools/call', 'tools/list', 'tools/call'],
        `RpcError -32020 ${FRONT_MISMATCH}`,
        ['tools/call', 'tools/list', 'tools/call'],
      ];
      assert.equal(got, Object.fromEntries(Object.keys(REFUSALS).map((r) => [r, expected(r)])));
      assert.equal(warned, []);
    } finally {
      await c.close();
    }
  });

  test(`${form}: a caller's abort or the call's timeout ends a refresh under way; the call is not posted again`, async () => {
    const { c } = await connect(form);
    try {
      const got: Record<string, unknown[]> = {};
      for (const refusal of ['json400', 'sse']) {
        for (const end of ['abort', 'timeout']) {
          posted = [];
          held.length = 0;
          const abort = new AbortController();
          const p = outcome(
            c.callTool(
              { name: 'sql', arguments: { region: 'eu', query: `${refusal}! hold` } },
              end === 'abort' ? { signal: abort.signal } : { timeout: 300 },
            ),
          );
          for (let i = 0; i < 200 && held.length === 0; i++) await tick(5);
          const closed = new Promise<boolean>((r) => {
            if (held[0]?.destroyed) r(true);
            held[0]?.on('close', () => r(true));
            setTimeout(() => r(false), 2000).unref();
          });
          if (end === 'abort') abort.abort();
          const result = await p;
          got[`${refusal} ${end}`] = [result.replace(/ after \d+ ms$/, ''), await closed, (await tick(50), posted)];
        }
      }
      const sent = () => ['tools/call', 'tools/list'];
      const aborted = 'RequestAbortedError -32800 Request tools/call was aborted: This operation was aborted';
      const timedOut = 'RequestTimeoutError -32001 Request tools/call timed out';
      assert.equal(got, {
        'json400 abort': [aborted, true, sent()],
        'json400 timeout': [timedOut, true, sent()],
        'sse abort': [aborted, true, sent()],
        'sse timeout': [timedOut, true, sent()],
      });
    } finally {
      await c.close();
    }
  });

  test(`${form}: a bad reply to the tools/list refresh after -32020 is named to onError; the call is sent again`, async () => {
    const got: Record<string, [string, string[]]> = {};
    const lists: Record<string, number> = {};
    for (const q of Object.keys(REPLIES).filter((k) => k !== 'hold')) {
      // (a client each: a logger is warned of the first 10 transport errors one by one)
      const { c, warned } = await connect(form);
      try {
        posted = [];
        // (the annotations are not known: the endpoint refuses the call with -32020, before and after the refresh)
        got[q] = [await outcome(c.callTool({ name: 'sql', arguments: { region: 'eu', query: q } })), warned];
        lists[q] = posted.filter((m) => m === 'tools/list').length;
      } finally {
        await c.close();
      }
    }
    const mismatch = 'RpcError -32020 Header mismatch: Mcp-Param-Region header is missing';
    const what = 'POST tools/list (the refresh after -32020)';
    const closed = 'Connection closed: the response stream ended without a response (the request may have run)';
    const malformed = 'Malformed response: a response has either result or error';
    assert.equal(got, {
      plain: [mismatch, [`${what}: unexpected Content-Type text/plain: HTTP 200`]],
      rpcError: [mismatch, [`${what}: lister broke`]],
      status500: [mismatch, [`${what}: HTTP 500`]],
      // sent once: no retry after the Retry-After (they would say "after 6 attempts", 12 s later)
      busy: [
        mismatch,
        [`${what} was not processed: the server refused it (HTTP 503, Retry-After 2 s); it is safe to send again`],
      ],
      reset: [mismatch, [`Connection lost before the response (${what}; the request may have run)`]],
      cut: [mismatch, [`Connection lost before the response (${what}; the request may have run)`]],
      notJson: [
        mismatch,
        [`${what}: the application/json body is not JSON (${notJsonWords('{"jsonrpc":')}): HTTP 200`],
      ],
      array: [mismatch, [`${what}: the application/json body is not JSON-RPC: HTTP 200`]],
      both: [mismatch, [`${what}: ${malformed}`]],
      sseArray: [
        mismatch,
        [
          `SSE event is a JSON array (a batch), no message: this revision has no batches: [{"jsonrpc":"2.0","id":0,"result":{"tools":[]}}]`,
          `${what}: ${closed}`,
        ],
      ],
      sseBoth: [mismatch, [`${what}: ${malformed}`]],
      repeat: [mismatch, [`${what}: stopped at nextCursor "p", repeated (seen before in this refresh)`]],
      endless: [mismatch, [`${what}: stopped at nextCursor "p101", after 100 pages (the cap)`]],
    });
    // (the repeated cursor is not followed; the cap is 100 pages)
    assert.equal([lists.repeat, lists.endless], [2, 100]);
  });
}

/** The words of the JSON parse error of `text`, as a normal call's refusal quotes them. */
function notJsonWords(text: string): string {
  try {
    JSON.parse(text);
  } catch (e) {
    return (e as Error).message;
  }
  return '';
}

test.run();
