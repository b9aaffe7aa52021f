/**
 * Issue 42: the reference server (`mcpgen serve`) speaks each era's own fixtures.
 * - A 2026-07-28 client lists the tools of the dual-era server (`--rev draft`, over stdio and
 *   Streamable HTTP) and calls every one as a modern client does (arguments, input rounds
 *   answered, tasks polled, a log level and a progress token on every call): none answers
 *   "not a … request of protocol version", none does nothing (each ends in content, and the
 *   logging and progress fixtures send their messages).
 * - 2025-11-25 over Streamable HTTP with the standalone GET stream open: a tool's log and
 *   progress messages arrive on its own POST's SSE reply, none on the GET stream.
 * - The dual-era endpoint's 405 says what is true for the request (GET and DELETE need a
 *   2025-11-25 session's id), where a modern-only endpoint's says POST only.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SseParser } from '../../runtime/codec/sse.js';
import { encodeHeaderValue } from '../../runtime/transport/http/stateless/headers.js';
import { DRAFT, StdioServe, meta, startHttpServe } from './era-serve.js';

type Obj = Record<string, any>;
const TASKS = 'io.modelcontextprotocol/tasks';
const MODERN_META: Obj = {
  ...meta('2026-07-28', { elicitation: {}, sampling: {}, roots: {}, extensions: { [TASKS]: {} } }),
  'io.modelcontextprotocol/logLevel': 'debug',
};

/** The tools the 2026-07-28 era of the reference server lists (the conformance suites' 2026-07-28 fixtures). */
const MODERN_TOOLS = [
  'echo',
  'test_simple_text',
  'test_image_content',
  'test_audio_content',
  'test_embedded_resource',
  'test_multiple_content_types',
  'json_schema_2020_12_tool',
  'test_tool_with_progress',
  'test_error_handling',
  'test_missing_capability',
  'test_streaming_elicitation',
  'test_logging_tool',
  'test_trigger_tool_change',
  'test_trigger_prompt_change',
  'test_x_mcp_header',
  'test_input_required_result_elicitation',
  'test_input_required_result_sampling',
  'test_input_required_result_list_roots',
  'test_input_required_result_request_state',
  'test_input_required_result_multiple_inputs',
  'test_input_required_result_multi_round',
  'test_input_required_result_tampered_state',
  'test_input_required_result_capabilities',
  'greet',
  'slow_compute',
  'failing_job',
  'protocol_error_job',
  'confirm_delete',
  'multi_input',
  'test_tool_with_task',
];
/** The 2025-11-25 era's: the same base, the session fixtures, and the 2025-11-25 task tools. */
const LEGACY_TOOLS = [
  'echo',
  'test_simple_text',
  'test_image_content',
  'test_audio_content',
  'test_embedded_resource',
  'test_multiple_content_types',
  'json_schema_2020_12_tool',
  'test_tool_with_progress',
  'test_error_handling',
  'test_reconnection',
  'test_tool_with_logging',
  'test_sampling',
  'test_elicitation',
  'test_elicitation_sep1034_defaults',
  'test_elicitation_sep1330_enums',
  'slow_compute',
  'failing_job',
  'confirm_job',
  'batch_job',
];

/** Arguments a client fills in from each tool's input schema. */
const ARGS: Record<string, Obj> = {
  echo: { text: 'hello' },
  json_schema_2020_12_tool: { name: 'Ada', contactMethod: 'email', email: 'ada@example.com' },
  test_x_mcp_header: { region: 'eu-west' },
  greet: { name: 'Ada' },
  slow_compute: { seconds: 0 },
  confirm_delete: { filename: 'a.txt' },
};

/** What a client answers to an input request (elicitation accepted with every field filled, sampling, roots). */
function inputResponse(request: Obj): Obj {
  if (request.method === 'sampling/createMessage')
    return { role: 'assistant', content: { type: 'text', text: 'Paris' }, model: 'm', stopReason: 'endTurn' };
  if (request.method === 'roots/list') return { roots: [{ uri: 'file:///work', name: 'work' }] };
  const content: Obj = {};
  for (const [k, s] of Object.entries((request.params?.requestedSchema?.properties ?? {}) as Obj))
    content[k] = s.type === 'boolean' ? true : s.type === 'number' || s.type === 'integer' ? 1 : `${k}-value`;
  return { action: 'accept', content };
}

/** One request's answer and the messages that came before it on its stream. */
interface Exchange {
  answer: Obj;
  notifications: Obj[];
}
type Ask = (id: string, method: string, params: Obj, headers?: Record<string, string>) => Promise<Exchange>;

/** A modern request over stdio: the notifications written between it and its answer. */
function stdioAsk(s: StdioServe): Ask {
  return async (id, method, params) => {
    const before = s.received.length;
    const answer = await s.request(id, method, params);
    const notifications = s.received.slice(before).filter((m) => m.method && m.id === undefined);
    return { answer, notifications };
  };
}

/** A modern request as one POST (its SSE reply read whole). */
function httpAsk(url: string): Ask {
  return async (id, method, params, extra = {}) => {
    // Mcp-Name: the tool or prompt name, the resource URI, the task id (tasks extension)
    const name = params.name ?? params.uri ?? params.taskId;
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      ...(typeof name === 'string' ? { 'mcp-name': encodeHeaderValue(name) } : {}),
      ...extra,
    };
    const res = await fetch(url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
      signal: AbortSignal.timeout(30_000),
    });
    const messages = await messagesOf(res);
    const answer = messages.find((m) => m.id === id && !m.method);
    if (!answer) throw new Error(`${method} ${id}: no answer (${res.status}): ${JSON.stringify(messages)}`);
    return { answer, notifications: messages.filter((m) => m.method && m.id === undefined) };
  };
}

/** The JSON-RPC messages of a POST's reply (JSON or SSE). */
async function messagesOf(res: Response): Promise<Obj[]> {
  const text = await res.text();
  if ((res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    const p = new SseParser();
    return [...p.push(Buffer.from(text)), ...p.end()].filter((e) => e.data).map((e) => JSON.parse(e.data) as Obj);
  }
  return text.trim() ? [JSON.parse(text) as Obj] : [];
}

/**
 * Calls `name` as a 2026-07-28 client: answers its input rounds (up to 5), polls its task to the
 * end. Resolves with the final tool result (or the JSON-RPC error) and every notification of
 * the exchanges.
 */
async function callModern(ask: Ask, name: string, n: number): Promise<{ outcome: Obj; notifications: Obj[] }> {
  const notifications: Obj[] = [];
  let params: Obj = { name, arguments: ARGS[name] ?? {}, _meta: { ...MODERN_META, progressToken: `p-${name}` } };
  const extra: Record<string, string> = name === 'test_x_mcp_header' ? { 'mcp-param-region': 'eu-west' } : {};
  for (let round = 0; round < 5; round++) {
    const r = await ask(`${name}-${n}-${round}`, 'tools/call', params, extra);
    notifications.push(...r.notifications);
    if (r.answer.error) return { outcome: { error: r.answer.error }, notifications };
    const result = r.answer.result as Obj;
    if (result.resultType === 'input_required') {
      const inputResponses: Obj = {};
      for (const [k, req] of Object.entries(result.inputRequests as Obj)) inputResponses[k] = inputResponse(req);
      params = {
        ...params,
        inputResponses,
        ...(result.requestState === undefined ? {} : { requestState: result.requestState }),
      };
      continue;
    }
    if (result.resultType === 'task') {
      const end = Date.now() + 20_000;
      for (let poll = 0; Date.now() < end; poll++) {
        const g = await ask(`${name}-${n}-get-${poll}`, 'tasks/get', { taskId: result.taskId, _meta: MODERN_META });
        if (g.answer.error) return { outcome: { error: g.answer.error }, notifications };
        const t = g.answer.result as Obj;
        if (t.status === 'completed') return { outcome: t.result, notifications };
        if (t.status === 'failed') return { outcome: { error: t.error }, notifications };
        if (t.status === 'input_required' && t.inputRequests) {
          // the task asks through tasks/get; the client answers with tasks/update
          const inputResponses: Obj = {};
          for (const [k, req] of Object.entries(t.inputRequests as Obj)) inputResponses[k] = inputResponse(req);
          const u = await ask(`${name}-${n}-update-${poll}`, 'tasks/update', {
            taskId: result.taskId,
            inputResponses,
            _meta: MODERN_META,
          });
          if (u.answer.error) return { outcome: { error: u.answer.error }, notifications };
          continue;
        }
        await new Promise((r) => setTimeout(r, 200));
      }
      return { outcome: { error: { message: `task of ${name} never ended` } }, notifications };
    }
    return { outcome: result, notifications };
  }
  return { outcome: { error: { message: `${name} still asked for input after 5 rounds` } }, notifications };
}

/** Lists as a 2026-07-28 client and calls every listed tool; returns the failures found. */
async function everyModernTool(ask: Ask): Promise<string[]> {
  const list = await ask('list', 'tools/list', { _meta: MODERN_META });
  const names = (list.answer.result.tools as Obj[]).map((t) => t.name as string);
  assert.equal([...names].sort(), [...MODERN_TOOLS].sort(), 'the tools a 2026-07-28 client lists');
  const failures: string[] = [];
  let n = 0;
  for (const name of names) {
    const { outcome, notifications } = await callModern(ask, name, n++);
    const text = JSON.stringify(outcome);
    if (/not a (server|client) request of protocol version/.test(text)) failures.push(`${name}: ${text}`);
    // the tools meant to fail do so with their own error, every other one ends with content
    if (name === 'protocol_error_job') {
      if (outcome.error?.code !== -32603) failures.push(`${name}: ${text}`);
      continue;
    }
    if (outcome.error || !Array.isArray(outcome.content) || outcome.content.length === 0) {
      failures.push(`${name}: no content: ${text.slice(0, 300)}`);
      continue;
    }
    const expectError = name === 'test_error_handling' || name === 'failing_job';
    if ((outcome.isError === true) !== expectError) failures.push(`${name}: isError ${outcome.isError}: ${text}`);
    const logs = notifications.filter((m) => m.method === 'notifications/message');
    const progress = notifications.filter((m) => m.method === 'notifications/progress');
    if (name === 'test_logging_tool' && logs.length !== 3) failures.push(`${name}: ${logs.length} log messages`);
    if (name === 'test_tool_with_progress' && progress.length !== 3)
      failures.push(`${name}: ${progress.length} progress notifications`);
  }
  // the list changes the trigger tools made are undone
  for (const name of ['test_trigger_tool_change', 'test_trigger_prompt_change']) await callModern(ask, name, n++);
  return failures;
}

test('a 2026-07-28 client over stdio (serve --stdio --rev draft): every listed tool works in its era', async () => {
  const s = new StdioServe(['--rev', DRAFT]);
  try {
    assert.equal(await everyModernTool(stdioAsk(s)), []);
    // a 2025-11-25 client of the same process lists the session fixtures
    const init = await s.request('init', 'initialize', {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'legacy', version: '1' },
    });
    assert.is(init.result?.protocolVersion, '2025-11-25');
    s.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const legacy = await s.request('legacy-list', 'tools/list');
    assert.equal(
      (legacy.result.tools as Obj[]).map((t) => t.name),
      LEGACY_TOOLS,
    );
  } finally {
    await s.close();
  }
});

test('a 2026-07-28 client over Streamable HTTP (serve --http --rev draft): every listed tool works in its era', async () => {
  const served = await startHttpServe(['--rev', DRAFT]);
  try {
    assert.equal(await everyModernTool(httpAsk(served.url)), []);
  } finally {
    await served.stop();
  }
});

/** A 2025-11-25 session over Streamable HTTP: initialize, initialized; returns its POST helper. */
async function legacySession(url: string) {
  const base = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const init = await fetch(url, {
    method: 'POST',
    headers: base,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'legacy', version: '1' } },
    }),
  });
  await init.text();
  const sid = init.headers.get('mcp-session-id');
  assert.ok(sid, 'no session id');
  const headers = { ...base, 'mcp-session-id': sid!, 'mcp-protocol-version': '2025-11-25' };
  const post = (body: Obj) => fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
  await (await post({ jsonrpc: '2.0', method: 'notifications/initialized' })).text();
  return { sid: sid!, post };
}

for (const rev of ['2025-11-25', DRAFT]) {
  test(`2025-11-25 over Streamable HTTP (serve --rev ${rev}), GET stream open: a call's logs and progress arrive on its own POST stream, none on the GET stream`, async () => {
    const served = await startHttpServe(['--rev', rev]);
    const get = new AbortController();
    try {
      const { sid, post } = await legacySession(served.url);
      // the standalone GET stream, read in the background
      const res = await fetch(served.url, {
        method: 'GET',
        headers: { accept: 'text/event-stream', 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' },
        signal: get.signal,
      });
      assert.is(res.status, 200);
      const onGet: Obj[] = [];
      const parser = new SseParser();
      const reading = (async () => {
        try {
          for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>)
            for (const ev of parser.push(Buffer.from(chunk))) if (ev.data) onGet.push(JSON.parse(ev.data) as Obj);
        } catch {
          /* aborted at the end */
        }
      })();
      const logging = await post({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'test_tool_with_logging', arguments: {} },
      });
      assert.match(logging.headers.get('content-type') ?? '', /^text\/event-stream/);
      const onPost = await messagesOf(logging);
      assert.equal(
        onPost.filter((m) => m.method === 'notifications/message').map((m) => m.params.data),
        ['Tool execution started', 'Tool processing data', 'Tool execution completed'],
      );
      assert.equal(onPost.at(-1)?.result?.content, [{ type: 'text', text: 'Logging completed' }]);
      const progress = await messagesOf(
        await post({
          jsonrpc: '2.0',
          id: 2,
          method: 'tools/call',
          params: { name: 'test_tool_with_progress', arguments: {}, _meta: { progressToken: 'p2' } },
        }),
      );
      assert.equal(
        progress.filter((m) => m.method === 'notifications/progress').map((m) => m.params.progress),
        [0, 50, 100],
      );
      // anything sent on the GET stream has arrived by the time a later ping is answered
      await messagesOf(await post({ jsonrpc: '2.0', id: 3, method: 'ping' }));
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(
        onGet.filter((m) => m.method === 'notifications/message' || m.method === 'notifications/progress'),
        [],
      );
      get.abort();
      await reading;
    } finally {
      get.abort();
      await served.stop();
    }
  });
}

test('the dual-era endpoint: a GET or DELETE without Mcp-Session-Id is refused saying it needs a session begun by initialize; modern-only says POST only', async () => {
  const dual = await startHttpServe(['--rev', DRAFT]);
  try {
    for (const method of ['GET', 'DELETE']) {
      const r = await fetch(dual.url, { method, headers: { accept: 'text/event-stream, application/json' } });
      assert.is(r.status, 405, method);
      assert.is(r.headers.get('allow'), 'POST');
      const body = (await r.json()) as Obj;
      assert.match(body.error.message, new RegExp(`^Method not allowed: ${method} without Mcp-Session-Id`));
      assert.match(
        body.error.message,
        /a session begun by initialize and needs its Mcp-Session-Id; stateless requests are POSTs/,
      );
      assert.not.match(body.error.message, /POST only/);
    }
    const put = await fetch(dual.url, { method: 'PUT' });
    assert.is(put.status, 405);
    assert.is(put.headers.get('allow'), 'GET, POST, DELETE');
    assert.match(((await put.json()) as Obj).error.message, /takes POST, and GET and DELETE with the Mcp-Session-Id/);
    // with a session's id the GET is served (the 2025-11-25 stream)
    const { sid } = await legacySession(dual.url);
    const ac = new AbortController();
    const stream = await fetch(dual.url, {
      method: 'GET',
      headers: { accept: 'text/event-stream', 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' },
      signal: ac.signal,
    });
    assert.is(stream.status, 200);
    ac.abort();
    // a foreign Origin is still refused before the method
    const foreign = await fetch(dual.url, { method: 'GET', headers: { origin: 'http://evil.example' } });
    assert.is(foreign.status, 403);
  } finally {
    await dual.stop();
  }
  const modernOnly = await startHttpServe(['--rev', DRAFT, '--modern-only']);
  try {
    const r = await fetch(modernOnly.url, { method: 'GET' });
    assert.is(r.status, 405);
    assert.match(((await r.json()) as Obj).error.message, /POST only/);
  } finally {
    await modernOnly.stop();
  }
});

test.run();
