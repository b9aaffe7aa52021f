/**
 * Invalid requests answered alike by every runtime's reference server (`mcpgen serve --lang ...`:
 * TypeScript, Python, Go), over stdio and Streamable HTTP, both eras (2025-11-25 sessions and the
 * 2026-07-28 stateless endpoint, served dual-era), with the same code, id presence and words
 * (JSON-RPC 2.0 §4-5; the TypeScript table of ./http/invalid-requests.test.ts):
 * - by-position `params` (`[1]`): -32602 "Invalid params: params must be an object" with the id
 *   (HTTP 200 in a session, 400 on the stateless endpoint, where Python and Go said "missing _meta");
 * - `params` `"x"` or `null`, `jsonrpc` "1.0", `method` 5: -32600 with the id (HTTP 400); Python
 *   and Go said "not a JSON-RPC 2.0 object" for another `jsonrpc`;
 * - an id that is no id (`true`, `1.5`, `null`, an object) and an object with an id and no method,
 *   result or error: -32600 without id (HTTP 400); Python and Go said "neither a request, a
 *   notification nor a response" for the latter;
 * - an unknown method: -32601 with the id (HTTP 200 in a session, 404 on the stateless endpoint);
 * - 2026-07-28 only (stdio, the stateless endpoint: 400): no `_meta` protocol version or client
 *   capabilities, -32602 "Invalid params: missing _meta[…]" with the id (TypeScript said it
 *   without "Invalid params: ", the words every other -32602 starts with);
 * - two faults in one request (another `jsonrpc` and no method or an id that is no id, a method
 *   that is no string and an id that is no id or by-position params, params neither object nor
 *   array and an id that is no id): the first in the order JSON-RPC 2.0 §4 lists a request's
 *   members (jsonrpc, method, params, id) is reported, by-position `params` only when the rest is
 *   valid; the TypeScript engine (stdio) reported an id that is no id first, and no method before
 *   another `jsonrpc`; its HTTP endpoints an id that is no id before params;
 * - by-position `params` and a `result` member: -32600 "a request must not carry result or
 *   error" with the id (an invalid request; -32602 only when by-position params are all that is
 *   wrong; the TypeScript engine over stdio said -32602);
 * - bodies and lines that are no message object, all without id: a number, a string, `null`,
 *   `true`: -32600 "message is not a JSON object" over stdio, "body must be a JSON object" over
 *   HTTP (400); `[]` and a batch: over stdio "empty batch" and "protocol version 2025-11-25 has
 *   no JSON-RPC batches" (2025-11-25), "batch arrays are not supported" (2026-07-28), over HTTP
 *   "batches are not accepted in protocol version 2025-11-25; send one message per POST" in a
 *   session, without the version on the stateless endpoint; not JSON (also `[1,`, which Go took
 *   for a batch) or nested 513 deep: -32700 "Parse error: line is not JSON: <the parser's
 *   words>" over stdio ("JSON nested deeper than 512 levels" for the latter, where Go added
 *   " at byte 512"), "Parse error: body is not JSON" or "Parse error: JSON nested deeper than
 *   512 levels" over HTTP. Python and Go said "not a JSON-RPC 2.0 object" for all but the HTTP
 *   arrays and the parser's words for a parse error ("not JSON: …" in Go);
 * - the stateless endpoint's order: no `_meta` protocol version (-32602) before a mismatching
 *   `Mcp-Method` (-32020), which comes before no client capabilities (-32602);
 * - a request with a `result` member: -32600 "a request must not carry result or error" with the
 *   id (HTTP 400; TypeScript said it with 200 in a session, Python and Go ran the request); an
 *   object with both `result` and `error`: over HTTP 400 -32600 "a response has either result or
 *   error" without id (Python and Go said "message has no method, result or error"), over stdio
 *   dropped, as every malformed response (Python and Go answered it);
 * - -32020 on the stateless endpoint (HEADER_ROWS): TypeScript's words and quoting, a body value
 *   in single quotes as the spec's example; a response POSTed there: -32600 "clients send no
 *   responses" (Python and Go said "Bad Request: a client sends no responses in this protocol
 *   version");
 * - JSON-RPC batches on 2025-03-26 (BATCH_ROWS), over stdio and in a Streamable HTTP session:
 *   served and answered with one array (Python and Go refused them), refused on 2025-06-18;
 * - the features' refusals (FEATURE_ROWS: unknown tool, prompt or resource, missing prompt
 *   arguments) in TypeScript's words and data;
 * - a request reusing the id of a request still in flight (a tools/call waiting for the client's
 *   sampling answer): -32600 "Invalid Request: request id 21 is already in use" with the id, over
 *   HTTP 400 and not run; Python and Go said "request 21 is already in flight", over HTTP 200.
 * Real server processes, real pipes and sockets.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { onLines, spawnStdioServe, startHttpServeProcess } from '../tasks/serve-process.js';
import { pythonChildEnv } from '../../python/support.js';
import { goEnv } from '../../go/support.js';

type Json = Record<string, any>;
const V25 = '2025-11-25';
const MODERN = '2026-07-28';
const META = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'probe', version: '1' },
};
const HEADERS = { Accept: 'application/json, text/event-stream', 'Content-Type': 'application/json' };
const INIT = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: V25, capabilities: { sampling: {} }, clientInfo: { name: 'probe', version: '1' } },
};
const SAMPLING_CALL = {
  jsonrpc: '2.0',
  id: 21,
  method: 'tools/call',
  params: { name: 'test_sampling', arguments: { prompt: 'hi' } },
};
const IN_USE = {
  jsonrpc: '2.0',
  id: 21,
  error: { code: -32600, message: 'Invalid Request: request id 21 is already in use' },
};

const err = (code: number, message: string, id?: number): Json =>
  id === undefined ? { jsonrpc: '2.0', error: { code, message } } : { jsonrpc: '2.0', id, error: { code, message } };
const invalid = (reason: string, id?: number) => err(-32600, `Invalid Request: ${reason}`, id);
const NO_ID = 'id must be a string or an integer';

/** [what, message, answer, HTTP status in a 2025-11-25 session, on the stateless endpoint]. */
type Row = [string, (modern: boolean) => Json, Json, number, number];
const ROWS: Row[] = [
  [
    'params [1]',
    () => ({ jsonrpc: '2.0', id: 11, method: 'tools/list', params: [1] }),
    err(-32602, 'Invalid params: params must be an object', 11),
    200,
    400,
  ],
  [
    'params "x"',
    () => ({ jsonrpc: '2.0', id: 12, method: 'tools/list', params: 'x' }),
    invalid('params must be an object', 12),
    400,
    400,
  ],
  [
    'params null',
    () => ({ jsonrpc: '2.0', id: 13, method: 'tools/list', params: null }),
    invalid('params must be an object', 13),
    400,
    400,
  ],
  ['id true', () => ({ jsonrpc: '2.0', id: true, method: 'tools/list' }), invalid(NO_ID), 400, 400],
  ['id 1.5', () => ({ jsonrpc: '2.0', id: 1.5, method: 'tools/list' }), invalid(NO_ID), 400, 400],
  ['id null', () => ({ jsonrpc: '2.0', id: null, method: 'tools/list' }), invalid(NO_ID), 400, 400],
  ['id {}', () => ({ jsonrpc: '2.0', id: { n: 1 }, method: 'tools/list' }), invalid(NO_ID), 400, 400],
  ['no method', () => ({ jsonrpc: '2.0', id: 15 }), invalid('message has no method, result or error'), 400, 400],
  [
    'jsonrpc "1.0"',
    () => ({ jsonrpc: '1.0', id: 16, method: 'tools/list' }),
    invalid('jsonrpc must be "2.0"', 16),
    400,
    400,
  ],
  ['method 5', () => ({ jsonrpc: '2.0', id: 17, method: 5 }), invalid('method must be a string', 17), 400, 400],
  // two faults: the first in the order JSON-RPC 2.0 §4 lists a request's members (jsonrpc,
  // method, params, id) is reported; by-position params (valid JSON-RPC) only once all are valid
  ['jsonrpc "1.0", no method', () => ({ jsonrpc: '1.0', id: 22 }), invalid('jsonrpc must be "2.0"'), 400, 400],
  [
    'jsonrpc "1.0", id true',
    () => ({ jsonrpc: '1.0', id: true, method: 'tools/list' }),
    invalid('jsonrpc must be "2.0"'),
    400,
    400,
  ],
  ['method 5, id true', () => ({ jsonrpc: '2.0', id: true, method: 5 }), invalid('method must be a string'), 400, 400],
  [
    'method 5, params [1]',
    () => ({ jsonrpc: '2.0', id: 23, method: 5, params: [1] }),
    invalid('method must be a string', 23),
    400,
    400,
  ],
  [
    'id 1.5, params "x"',
    () => ({ jsonrpc: '2.0', id: 1.5, method: 'tools/list', params: 'x' }),
    invalid('params must be an object'),
    400,
    400,
  ],
  [
    'id {}, params [1]',
    () => ({ jsonrpc: '2.0', id: { n: 1 }, method: 'tools/list', params: [1] }),
    invalid(NO_ID),
    400,
    400,
  ],
  [
    'params [1], unknown method',
    () => ({ jsonrpc: '2.0', id: 24, method: 'no/such', params: [1] }),
    err(-32602, 'Invalid params: params must be an object', 24),
    200,
    400,
  ],
  [
    'params [1], result',
    () => ({ jsonrpc: '2.0', id: 28, method: 'tools/list', params: [1], result: {} }),
    invalid('a request must not carry result or error', 28),
    400,
    400,
  ],
  [
    'request with result',
    () => ({ jsonrpc: '2.0', id: 25, method: 'tools/list', result: {} }),
    invalid('a request must not carry result or error', 25),
    400,
    400,
  ],
  [
    'unknown method',
    (modern) => ({ jsonrpc: '2.0', id: 18, method: 'no/such', params: modern ? { _meta: META } : {} }),
    err(-32601, 'Method not found: no/such', 18),
    200,
    404,
  ],
];

/** Over stdio the words of a parse error go on with the parser's own (they differ by language). */
const LINE_NOT_JSON = 'Parse error: line is not JSON: ';
const parseError = (message: string) => err(-32700, message);
const BATCH_POST = 'batches are not accepted; send one message per POST';
const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
/** The words of a text nested too deep, without the byte where it stopped (Go over stdio added " at byte 512"). */
const TOO_DEEP = 'JSON nested deeper than 512 levels';

/**
 * Bodies that are no JSON-RPC message object, all answered without id: [what, the line or body,
 * over stdio (2025-11-25, 2026-07-28), over HTTP (in a 2025-11-25 session, on the stateless endpoint)].
 */
type RawRow = [string, string, [Json, Json], [Json, Json]];
const notObject: [Json, Json] = [invalid('message is not a JSON object'), invalid('message is not a JSON object')];
const RAW_ROWS: RawRow[] = [
  ...['5', '"x"', 'null', 'true'].map(
    (body): RawRow => [
      body,
      body,
      notObject,
      [invalid('body must be a JSON object'), invalid('body must be a JSON object')],
    ],
  ),
  ...[
    ['empty batch', '[]', 'empty batch'],
    [
      'batch',
      JSON.stringify([{ jsonrpc: '2.0', id: 29, method: 'ping' }]),
      `protocol version ${V25} has no JSON-RPC batches`,
    ],
  ].map(
    ([what, body, v25]): RawRow => [
      what,
      body,
      [invalid(v25), invalid('batch arrays are not supported')],
      [invalid(`batches are not accepted in protocol version ${V25}; send one message per POST`), invalid(BATCH_POST)],
    ],
  ),
  ...[
    ['not JSON', '{'],
    ['not JSON after [', '[1,'],
  ].map(
    ([what, body]): RawRow => [
      what,
      body,
      [parseError(LINE_NOT_JSON), parseError(LINE_NOT_JSON)],
      [parseError('Parse error: body is not JSON'), parseError('Parse error: body is not JSON')],
    ],
  ),
  [
    'nested 513 deep',
    nested(513),
    [parseError(`${LINE_NOT_JSON}${TOO_DEEP}`), parseError(`${LINE_NOT_JSON}${TOO_DEEP}`)],
    [
      parseError('Parse error: JSON nested deeper than 512 levels'),
      parseError('Parse error: JSON nested deeper than 512 levels'),
    ],
  ],
];

/** `got` is `want`, a stdio parse error's words only up to the parser's own. */
function sameAnswer(got: Json | undefined, want: Json, what: string) {
  if (want.error?.message === LINE_NOT_JSON) {
    assert.ok(String(got?.error?.message).startsWith(LINE_NOT_JSON), `${what}: ${JSON.stringify(got)}`);
    assert.equal({ ...got, error: { ...got!.error, message: LINE_NOT_JSON } }, want, what);
  } else assert.equal(got, want, what);
}

/** A response with both result and error: 400 over HTTP; over stdio dropped (an answer would read as a response). */
const BOTH = { jsonrpc: '2.0', id: 26, result: {}, error: { code: 1, message: 'x' } };
const BOTH_ANSWER = invalid('a response has either result or error');

/** Faults of the 2026-07-28 revision only (stdio and the stateless endpoint, HTTP 400): [what, message, answer]. */
const MODERN_ROWS: Array<[string, Json, Json]> = [
  [
    'no _meta protocol version',
    { jsonrpc: '2.0', id: 19, method: 'tools/list', params: {} },
    err(-32602, 'Invalid params: missing _meta["io.modelcontextprotocol/protocolVersion"]', 19),
  ],
  [
    'no _meta client capabilities',
    {
      jsonrpc: '2.0',
      id: 20,
      method: 'tools/list',
      params: { _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN } },
    },
    err(-32602, 'Invalid params: missing _meta["io.modelcontextprotocol/clientCapabilities"]', 20),
  ],
];

/** A `tools/call` of `test_x_mcp_header` (its `region` argument mirrored into `Mcp-Param-Region`) on the stateless endpoint. */
const call = (id: number, params: Json): Json => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { _meta: META, name: 'test_x_mcp_header', ...params },
});
const mismatch = (id: number, what: string): Json => err(-32020, `Header mismatch: ${what}`, id);
const LONG = 'r'.repeat(100);

/**
 * -32020 on the stateless endpoint (HTTP 400), the words of ./http/stateless headers.ts: a body
 * value a header disagrees with as describeValue quotes it (a string in single quotes, capped at
 * 80 characters; a number or object as JSON; `undefined` when absent), where Python and Go
 * quoted with `"` (Python's objects with spaces, Go's absent or non-string name as `""`), and
 * the `Mcp-Param-*` faults worded as in TypeScript (Python and Go said "is missing (the body
 * has …)", "is malformed", "the body has no value there", and let an object argument pass
 * without its header): [what, extra headers, message, answer].
 */
const HEADER_ROWS: Array<[string, Record<string, string>, Json, Json]> = [
  [
    'MCP-Protocol-Version other than the body',
    { 'Mcp-Name': 'test_x_mcp_header' },
    call(40, { _meta: { ...META, 'io.modelcontextprotocol/protocolVersion': 'x' } }),
    mismatch(40, `MCP-Protocol-Version header value '${MODERN}' does not match body value 'x'`),
  ],
  [
    'Mcp-Name other than the name',
    { 'Mcp-Name': 'other' },
    call(41, {}),
    mismatch(41, "Mcp-Name header value 'other' does not match body value 'test_x_mcp_header'"),
  ],
  [
    'Mcp-Name and no name',
    { 'Mcp-Name': 'other' },
    { jsonrpc: '2.0', id: 42, method: 'tools/call', params: { _meta: META } },
    mismatch(42, "Mcp-Name header value 'other' does not match body value undefined"),
  ],
  [
    'Mcp-Name and a number',
    { 'Mcp-Name': '5' },
    { jsonrpc: '2.0', id: 43, method: 'tools/call', params: { _meta: META, name: 5 } },
    mismatch(43, "Mcp-Name header value '5' does not match body value 5"),
  ],
  [
    'no Mcp-Param-Region',
    { 'Mcp-Name': 'test_x_mcp_header' },
    call(44, { arguments: { region: 'eu' } }),
    mismatch(44, 'Mcp-Param-Region header is missing'),
  ],
  [
    'no Mcp-Param-Region for an object',
    { 'Mcp-Name': 'test_x_mcp_header' },
    call(45, { arguments: { region: { a: 1 } } }),
    mismatch(45, 'Mcp-Param-Region header is missing'),
  ],
  [
    'Mcp-Param-Region other than the argument',
    { 'Mcp-Name': 'test_x_mcp_header', 'Mcp-Param-Region': 'us' },
    call(46, { arguments: { region: 'eu' } }),
    mismatch(46, "Mcp-Param-Region header value 'us' does not match body value 'eu'"),
  ],
  [
    'Mcp-Param-Region and an object',
    { 'Mcp-Name': 'test_x_mcp_header', 'Mcp-Param-Region': 'us' },
    call(47, { arguments: { region: { a: 1 } } }),
    mismatch(47, 'Mcp-Param-Region header value \'us\' does not match body value {"a":1}'),
  ],
  [
    'Mcp-Param-Region and a long argument',
    { 'Mcp-Name': 'test_x_mcp_header', 'Mcp-Param-Region': 'us' },
    call(48, { arguments: { region: LONG } }),
    mismatch(48, `Mcp-Param-Region header value 'us' does not match body value '${LONG.slice(0, 80)}…'`),
  ],
  [
    'Mcp-Param-Region and no argument',
    { 'Mcp-Name': 'test_x_mcp_header', 'Mcp-Param-Region': 'us' },
    call(49, { arguments: {} }),
    mismatch(49, 'Mcp-Param-Region header is present but the argument is not'),
  ],
  [
    'Mcp-Param-Region malformed',
    { 'Mcp-Name': 'test_x_mcp_header', 'Mcp-Param-Region': '=?base64?%%?=' },
    call(50, { arguments: { region: 'eu' } }),
    mismatch(50, 'Mcp-Param-Region header contains invalid characters'),
  ],
];

/**
 * The reference server's features refusing a request (2025-11-25, over stdio), in the words of
 * TypeScript's runtime/features: an unknown tool or prompt -32602 "Unknown tool: <name>" /
 * "Unknown prompt: <name>" with `data.name` (Python and Go had no data, and said "Invalid params:
 * unknown prompt 'nope'" or "… nope"), missing prompt arguments "Missing required argument(s) of
 * prompt <name>: …" with `data.missing` (they said "Invalid params: prompt … needs arguments …"),
 * an unknown resource -32002 "Resource not found" with `data.uri`, as the spec's example (they
 * added ": <uri>"), a subscription to one too, as the resources page's "Error Handling" (they
 * accepted it); a cursor this server did not issue "Invalid cursor: <JSON>" with `data.cursor`,
 * one longer than any it issues (256) refused without being echoed (they said "Invalid params:
 * unknown cursor …", the cursor echoed whatever its length). [what, method, params, answer
 * without id].
 */
const FEATURE_ROWS: Array<[string, string, Json, Json]> = [
  [
    'unknown tool',
    'tools/call',
    { name: 'nope' },
    { code: -32602, message: 'Unknown tool: nope', data: { name: 'nope' } },
  ],
  [
    'unknown prompt',
    'prompts/get',
    { name: 'nope' },
    { code: -32602, message: 'Unknown prompt: nope', data: { name: 'nope' } },
  ],
  [
    'prompt without its arguments',
    'prompts/get',
    { name: 'test_prompt_with_arguments' },
    {
      code: -32602,
      message: 'Missing required arguments of prompt test_prompt_with_arguments: arg1, arg2',
      data: { missing: ['arg1', 'arg2'] },
    },
  ],
  [
    'prompt without one argument',
    'prompts/get',
    { name: 'test_prompt_with_arguments', arguments: { arg1: 'a' } },
    {
      code: -32602,
      message: 'Missing required argument of prompt test_prompt_with_arguments: arg2',
      data: { missing: ['arg2'] },
    },
  ],
  [
    'unknown resource',
    'resources/read',
    { uri: 'test://missing' },
    { code: -32002, message: 'Resource not found', data: { uri: 'test://missing' } },
  ],
  [
    'subscription to an unknown resource',
    'resources/subscribe',
    { uri: 'test://missing' },
    { code: -32002, message: 'Resource not found', data: { uri: 'test://missing' } },
  ],
  [
    'a cursor this server did not issue',
    'tools/list',
    { cursor: 'zzz' },
    { code: -32602, message: 'Invalid cursor: "zzz"', data: { cursor: 'zzz' } },
  ],
  [
    'a cursor longer than any issued',
    'tools/list',
    { cursor: 'c'.repeat(300) },
    { code: -32602, message: 'Invalid cursor (300 characters: not one this server issued)' },
  ],
  // logging/setLevel with a level missing, not a string or not a level: the params check's words and
  // data.errors (Python and Go said "Invalid params: level must be one of debug, …", without data)
  ...(
    [
      ['without a level', {}, '', 'required', "must have required property 'level'"],
      ['with a level not a string', { level: 5 }, '/level', 'type', 'must be string'],
      ['with an unknown level', { level: 'loud' }, '/level', 'enum', 'must be equal to one of the allowed values'],
    ] as const
  ).map(([what, params, path, keyword, message]): [string, string, Json, Json] => [
    `logging/setLevel ${what}`,
    'logging/setLevel',
    params,
    {
      code: -32602,
      message: `Invalid params for logging/setLevel: ${path || '/'} ${message}`,
      data: { errors: [{ path, keyword, message }] },
    },
  ]),
  [
    'completion of an unknown prompt',
    'completion/complete',
    { ref: { type: 'ref/prompt', name: 'nope' }, argument: { name: 'a', value: '' } },
    { code: -32602, message: 'Unknown prompt: nope' },
  ],
  [
    // neither a template nor a resource: as resources/read (docs/guide/completion.md; Python and Go
    // said -32602 "unknown resource template")
    'completion of an unknown resource template',
    'completion/complete',
    { ref: { type: 'ref/resource', uri: 'test://no/{x}' }, argument: { name: 'x', value: '' } },
    { code: -32002, message: 'Resource not found', data: { uri: 'test://no/{x}' } },
  ],
];

const LANGS = [
  ['typescript', () => process.env],
  ['python', () => pythonChildEnv()],
  ['go', () => goEnv()],
] as const;

/** A `serve --stdio` process: send a message, read the next line it writes (undefined: none within `ms`). */
function stdioServe(lang: string, rev: string, env: NodeJS.ProcessEnv) {
  const proc = spawnStdioServe(['--lang', lang, '--rev', rev], { env, stderr: 'ignore' });
  const lines: Json[] = [];
  let wake: (() => void) | undefined;
  onLines(proc.stdout!, (l) => {
    lines.push(JSON.parse(l) as Json);
    wake?.();
  });
  const exited = new Promise((r) => proc.once('exit', r));
  return {
    send: (m: unknown) => proc.stdin!.write(`${JSON.stringify(m)}\n`),
    sendLine: (line: string) => proc.stdin!.write(`${line}\n`),
    next: (ms: number) =>
      new Promise<Json | undefined>((resolve) => {
        if (lines.length) return resolve(lines.shift());
        const t = setTimeout(() => {
          wake = undefined;
          resolve(undefined);
        }, ms);
        wake = () => {
          clearTimeout(t);
          wake = undefined;
          resolve(lines.shift());
        };
      }),
    async stop() {
      proc.stdin!.end();
      proc.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * JSON-RPC batches (JSON-RPC 2.0 §6): 2025-03-26 has them (its basic page: a server MUST support
 * receiving them), so a non-empty batch is served entry by entry and answered with one array
 * once every request of it is answered (any order), nothing for notifications only (over HTTP
 * 202); `[]` is "empty batch" (HTTP 400); invalid entries get the -32600 of a message that came
 * alone on that transport. 2025-06-18 removed them ("protocol version 2025-06-18 has no JSON-RPC
 * batches" over stdio, "batches are not accepted in protocol version 2025-06-18; send one message
 * per POST" over HTTP). Python and Go refused every batch on 2025-03-26. [what, batch, answer
 * over stdio (undefined: none), HTTP status, answer over HTTP].
 */
const PING = (id: number | string) => ({ jsonrpc: '2.0', id, method: 'ping' });
const pong = (id: number | string) => ({ jsonrpc: '2.0', id, result: {} });
const MIXED = [
  PING(31),
  { jsonrpc: '2.0', method: 'notifications/roots/list_changed' },
  5,
  { jsonrpc: '2.0', id: 32, method: 'no/such' },
  { jsonrpc: '1.0', id: 33, method: 'ping' },
  [PING(34)],
  { jsonrpc: '2.0', id: 35, method: 'ping', params: [1] },
];
const mixedAnswer = (notObject: string, nested: string) => [
  pong(31),
  invalid(notObject),
  err(-32601, 'Method not found: no/such', 32),
  invalid('jsonrpc must be "2.0"', 33),
  invalid(nested),
  err(-32602, 'Invalid params: params must be an object', 35),
];
const BATCH_ROWS: Array<[string, unknown, Json | Json[] | undefined, number, Json | Json[] | undefined]> = [
  ['a batch of requests', [PING(30), PING('b')], [pong(30), pong('b')], 200, [pong(30), pong('b')]],
  [
    'a batch of notifications',
    [{ jsonrpc: '2.0', method: 'notifications/roots/list_changed' }],
    undefined,
    202,
    undefined,
  ],
  [
    'a mixed batch',
    MIXED,
    mixedAnswer('message is not a JSON object', 'batch arrays are not supported'),
    200,
    mixedAnswer('body must be a JSON object', 'batches are not accepted; send one message per POST'),
  ],
  [
    'a batch of invalid entries',
    [5],
    [invalid('message is not a JSON object')],
    200,
    [invalid('body must be a JSON object')],
  ],
  ['an empty batch', [], invalid('empty batch'), 400, invalid('empty batch')],
];
const byText = (a: unknown) => (Array.isArray(a) ? a.map((m) => JSON.stringify(m)).sort() : a);

async function postJson(url: string, headers: Record<string, string>, m: unknown, signal?: AbortSignal) {
  const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(m), signal });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

for (const [lang, env] of LANGS) {
  for (const rev of [V25, MODERN]) {
    test(`serve --lang ${lang} --stdio --rev ${rev}: invalid requests answered with the same code, id and words`, async () => {
      const s = stdioServe(lang, rev, env());
      try {
        const modern = rev === MODERN;
        s.send(modern ? { jsonrpc: '2.0', id: 0, method: 'ping', params: { _meta: META } } : INIT);
        assert.ok(await s.next(600_000), `${lang}: no answer to the first request`);
        if (!modern) s.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
        for (const [what, message, answer] of ROWS) {
          s.send(message(modern));
          assert.equal(await s.next(60_000), answer, `${lang} ${rev} ${what}`);
        }
        for (const [what, line, [v25, modernAnswer]] of RAW_ROWS) {
          s.sendLine(line);
          sameAnswer(await s.next(60_000), modern ? modernAnswer : v25, `${lang} ${rev} ${what}`);
        }
        s.send(BOTH);
        // the next answer is that of the request after it
        s.send({ jsonrpc: '2.0', id: 27, method: 'no/such', params: modern ? { _meta: META } : {} });
        const next = await s.next(60_000);
        assert.equal(next, err(-32601, 'Method not found: no/such', 27), `${lang} ${rev} result and error: dropped`);
        if (modern) {
          for (const [what, message, answer] of MODERN_ROWS) {
            s.send(message);
            assert.equal(await s.next(60_000), answer, `${lang} ${rev} ${what}`);
          }
          return;
        }
        for (const [i, [what, method, params, error]] of FEATURE_ROWS.entries()) {
          s.send({ jsonrpc: '2.0', id: 60 + i, method, params });
          assert.equal(await s.next(60_000), { jsonrpc: '2.0', id: 60 + i, error }, `${lang} ${rev} ${what}`);
        }
        // a cursor written with escapes, one a lone surrogate: quoted as TypeScript's JSON.stringify quotes
        // the string it holds (Go quoted the raw text, "a\u0041" escaped; Python put the surrogate in raw)
        s.sendLine(
          String.raw`{"jsonrpc":"2.0","id":59,"method":"tools/list","params":{"cursor":"a\u0041\/\uD800\u00e9\n"}}`,
        );
        const cursor = 'aA/\ud800\u00e9\n';
        assert.equal(
          await s.next(60_000),
          {
            jsonrpc: '2.0',
            id: 59,
            error: { code: -32602, message: `Invalid cursor: ${JSON.stringify(cursor)}`, data: { cursor } },
          },
          `${lang} ${rev} a cursor with escapes`,
        );
        s.send(SAMPLING_CALL);
        assert.is((await s.next(60_000))?.method, 'sampling/createMessage', `${lang}: the call waits for sampling`);
        s.send({ jsonrpc: '2.0', id: 21, method: 'ping' });
        assert.equal(await s.next(60_000), IN_USE, `${lang} reused id`);
      } finally {
        await s.stop();
      }
    });
  }

  test(`serve --lang ${lang} --stdio: JSON-RPC batches served on 2025-03-26, refused on 2025-06-18`, async () => {
    for (const version of ['2025-03-26', '2025-06-18']) {
      const s = stdioServe(lang, V25, env());
      try {
        s.send({ ...INIT, params: { ...INIT.params, protocolVersion: version } });
        assert.is((await s.next(600_000))?.result?.protocolVersion, version, `${lang}: ${version} negotiated`);
        s.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
        if (version === '2025-06-18') {
          s.send([PING(36)]);
          assert.equal(await s.next(60_000), invalid(`protocol version ${version} has no JSON-RPC batches`), lang);
          continue;
        }
        for (const [what, batch, answer] of BATCH_ROWS) {
          s.send(batch);
          // a batch with nothing to answer: the next answer is that of the request after it
          if (!answer) s.send(PING(37));
          assert.equal(byText(await s.next(60_000)), byText(answer ?? pong(37)), `${lang} ${version} ${what}`);
        }
      } finally {
        await s.stop();
      }
    }
  });

  test(`serve --lang ${lang} --http: JSON-RPC batches served in a 2025-03-26 session, refused in a 2025-06-18 one`, async () => {
    const s = await startHttpServeProcess(['--lang', lang, '--rev', V25], env());
    try {
      for (const version of ['2025-03-26', '2025-06-18']) {
        const init = await postJson(s.url, HEADERS, { ...INIT, params: { ...INIT.params, protocolVersion: version } });
        assert.is(JSON.parse(init.text).result?.protocolVersion, version, `${lang}: ${version} negotiated`);
        const session = {
          ...HEADERS,
          'Mcp-Session-Id': init.headers.get('mcp-session-id')!,
          'MCP-Protocol-Version': version,
        };
        await postJson(s.url, session, { jsonrpc: '2.0', method: 'notifications/initialized' });
        if (version === '2025-06-18') {
          const b = await postJson(s.url, session, [PING(36)]);
          assert.is(b.status, 400, `${lang} ${version}: ${b.text}`);
          assert.equal(
            JSON.parse(b.text),
            invalid(`batches are not accepted in protocol version ${version}; send one message per POST`),
            `${lang} ${version}`,
          );
          continue;
        }
        for (const [what, batch, , status, answer] of BATCH_ROWS) {
          const b = await postJson(s.url, session, batch);
          assert.is(b.status, status, `${lang} ${version} ${what}: ${b.text}`);
          assert.equal(b.text ? byText(JSON.parse(b.text)) : undefined, byText(answer), `${lang} ${version} ${what}`);
        }
      }
    } finally {
      await s.stop();
    }
  });

  test(`serve --lang ${lang} --http --rev ${MODERN} (dual-era): invalid requests answered alike in a 2025-11-25 session and statelessly; a reused in-flight id 400 with its id`, async () => {
    const s = await startHttpServeProcess(['--lang', lang, '--rev', MODERN], env());
    const ctl = new AbortController();
    try {
      const init = await postJson(s.url, HEADERS, INIT);
      const session = {
        ...HEADERS,
        'Mcp-Session-Id': init.headers.get('mcp-session-id')!,
        'MCP-Protocol-Version': V25,
      };
      await postJson(s.url, session, { jsonrpc: '2.0', method: 'notifications/initialized' });
      const stateless = { ...HEADERS, 'MCP-Protocol-Version': MODERN };
      for (const [what, message, answer, inSession, statelessStatus] of ROWS) {
        const a = await postJson(s.url, session, message(false));
        assert.is(a.status, inSession, `${lang} session ${what}: ${a.text}`);
        assert.equal(JSON.parse(a.text), answer, `${lang} session ${what}`);
        const m = message(true);
        const method = typeof m.method === 'string' ? m.method : 'tools/list';
        const b = await postJson(s.url, { ...stateless, 'Mcp-Method': method }, m);
        assert.is(b.status, statelessStatus, `${lang} stateless ${what}: ${b.text}`);
        assert.equal(JSON.parse(b.text), answer, `${lang} stateless ${what}`);
      }
      for (const [what, body, , answers] of RAW_ROWS) {
        for (const [i, headers] of [session, { ...stateless, 'Mcp-Method': 'tools/list' }].entries()) {
          const res = await fetch(s.url, { method: 'POST', headers, body });
          const text = await res.text();
          const where = `${lang} ${i ? 'stateless' : 'session'} ${what}`;
          assert.is(res.status, 400, `${where}: ${text}`);
          assert.equal(JSON.parse(text), answers[i], where);
        }
      }
      for (const headers of [session, { ...stateless, 'Mcp-Method': 'tools/list' }]) {
        const b = await postJson(s.url, headers, BOTH);
        assert.is(b.status, 400, `${lang} result and error: ${b.text}`);
        assert.equal(JSON.parse(b.text), BOTH_ANSWER, `${lang} result and error`);
      }
      for (const [what, m, answer] of MODERN_ROWS) {
        const b = await postJson(s.url, { ...stateless, 'Mcp-Method': 'tools/list' }, m);
        assert.is(b.status, 400, `${lang} stateless ${what}: ${b.text}`);
        assert.equal(JSON.parse(b.text), answer, `${lang} stateless ${what}`);
        // the order of the checks (docs/guide/stateless-http.md): no _meta protocol version
        // before the headers, the headers before the rest of _meta
        const ping = await postJson(s.url, { ...stateless, 'Mcp-Method': 'ping' }, m);
        const mismatch = err(
          -32020,
          "Header mismatch: Mcp-Method header value 'ping' does not match body value 'tools/list'",
          m.id,
        );
        assert.is(ping.status, 400, `${lang} stateless ${what}, Mcp-Method ping: ${ping.text}`);
        assert.equal(
          JSON.parse(ping.text),
          m.params._meta ? mismatch : answer,
          `${lang} stateless ${what}, Mcp-Method ping`,
        );
        if (m.params._meta) continue;
        // no _meta version, no MCP-Protocol-Version, no session: the modern side's (dual-era.md)
        const bare = await postJson(s.url, HEADERS, m);
        assert.is(bare.status, 400, `${lang} ${what}, no MCP headers: ${bare.text}`);
        assert.equal(JSON.parse(bare.text), answer, `${lang} ${what}, no MCP headers`);
      }
      // an MCP-Protocol-Version header naming a version not served, no _meta version in the body:
      // -32022 naming the header's version (the transport page's MUST; TypeScript said "missing _meta")
      const old = await postJson(
        s.url,
        { ...stateless, 'MCP-Protocol-Version': '1900-01-01', 'Mcp-Method': 'tools/list' },
        MODERN_ROWS[0][1],
      );
      assert.is(old.status, 400, `${lang} stateless unsupported header version: ${old.text}`);
      const oldAnswer = JSON.parse(old.text);
      assert.equal(
        [oldAnswer.id, oldAnswer.error.code, oldAnswer.error.message, oldAnswer.error.data?.requested],
        [19, -32022, 'Unsupported protocol version', '1900-01-01'],
        `${lang} stateless unsupported header version`,
      );
      assert.ok(oldAnswer.error.data.supported.includes(MODERN), `${lang} supported: ${old.text}`);
      for (const [what, extra, m, answer] of HEADER_ROWS) {
        const b = await postJson(s.url, { ...stateless, 'Mcp-Method': 'tools/call', ...extra }, m);
        assert.is(b.status, 400, `${lang} stateless ${what}: ${b.text}`);
        assert.equal(JSON.parse(b.text), answer, `${lang} stateless ${what}`);
      }
      // a response POSTed to the stateless endpoint (Python and Go said "Bad Request: a client sends
      // no responses in this protocol version")
      const response = await postJson(s.url, stateless, { jsonrpc: '2.0', id: 51, result: {} });
      assert.is(response.status, 400, `${lang} stateless response: ${response.text}`);
      assert.equal(JSON.parse(response.text), invalid('clients send no responses'), `${lang} stateless response`);
      // the call stays in flight (its SSE stream carries the sampling request) until aborted
      const first = fetch(s.url, {
        method: 'POST',
        headers: session,
        body: JSON.stringify(SAMPLING_CALL),
        signal: ctl.signal,
      });
      const res = await first;
      const reader = res.body!.getReader();
      let seen = '';
      while (!seen.includes('sampling/createMessage')) {
        const { value, done } = await reader.read();
        assert.not.ok(done, `${lang}: the call's stream ended: ${seen}`);
        seen += new TextDecoder().decode(value);
      }
      const again = await postJson(s.url, session, { jsonrpc: '2.0', id: 21, method: 'ping' });
      assert.is(again.status, 400, `${lang} reused id: ${again.text}`);
      assert.equal(JSON.parse(again.text), IN_USE, `${lang} reused id`);
    } finally {
      ctl.abort();
      await s.stop();
    }
  });
}

test.run();
