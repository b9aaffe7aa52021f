/**
 * Issue 11, finding 5: inherited properties are never taken as data. Every name
 * `Object.prototype` has (`constructor`, `toString`, `__proto__`, `hasOwnProperty`, `valueOf`,
 * …) is sent where a peer names something — method names, tool, prompt and completion-argument
 * names, resource URIs, task ids, session ids, header-mirrored argument names, input-request
 * keys — over stdio and HTTP of both eras against `mcpgen serve`, and to the runtime used
 * directly; each must be answered exactly like a name nothing is registered under (the
 * control), or, where such names are registered, like any other registered name. Schemas see
 * own properties only (ajv `ownProperties`, tool schemas and the generated validators), and a
 * `__proto__` key in JSON is a key, never a prototype.
 */
import { STATELESS_TABLES } from '../runtime/transport/http/tables.js';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { emitValidators, namesPrototypeMember } from '../../generator/emit/validators.js';
import { DEFAULT_EMIT_OPTIONS } from '../../generator/emit/common.js';
import { pinnedModel } from '../generator/support.js';
import * as draft from '../../generated/draft/index.js';
import * as v2025 from '../../generated/2025-11-25/index.js';
import { RpcError } from '../../runtime/jsonrpc/errors.js';
import { ServerFeatures } from '../../runtime/features/server-features.js';
import { inputRequest, inputRequired } from '../../runtime/stateless/mrtr.js';
import type { RequestHandler } from '../../runtime/engine/peer.js';
import type { ProtocolTable } from '../../runtime/protocol/table.js';
import { attachTaskReceiver } from '../../runtime/tasks/receiver.js';
import { createMemoryPair } from '../../runtime/transport/memory.js';
import { createStatelessHttpHandler } from '../../runtime/transport/http/stateless/server.js';
import { StatelessHttpClientTransport } from '../../runtime/transport/http/stateless/node-client.js';
import { startServe, type Served } from '../runtime/tasks/serve-process.js';
import {
  type Ask,
  CONTROL,
  LEGACY,
  NAMES,
  type Probe,
  StdioServe,
  TASKS_EXTENSION,
  differences,
  listen,
  metaOf,
  openSession,
  postRaw,
  sessionAsk,
  statelessAsk,
  statelessHeaders,
  stdioAsk,
} from './11-5-serve.js';

type Obj = Record<string, unknown>;
const TEMPLATE_REF = { type: 'ref/resource', uri: 'test://template/{id}/data' };
const PROMPT_REF = { type: 'ref/prompt', name: 'test_prompt_with_arguments' };
const TASKS_CAPS = { extensions: { [TASKS_EXTENSION]: {} } };
/** An object whose own keys are every name of {@link NAMES} (`__proto__` included, as JSON.parse makes it). */
const allOwn = (value: (name: string, i: number) => unknown): Obj =>
  JSON.parse(JSON.stringify(Object.fromEntries(NAMES.map((n, i) => [n, value(n, i)]))));

/** The probes of the stateless era (`_meta` added by the asker). */
const MODERN: Array<[string, (n: string) => Probe]> = [
  ['method', (n) => ({ method: n, params: {} })],
  ['tools/call name', (n) => ({ method: 'tools/call', params: { name: n, arguments: {} }, mcpName: n })],
  ['prompts/get name', (n) => ({ method: 'prompts/get', params: { name: n }, mcpName: n })],
  ['resources/read uri', (n) => ({ method: 'resources/read', params: { uri: `test://${n}` }, mcpName: `test://${n}` })],
  [
    'completion/complete argument of a template',
    (n) => ({ method: 'completion/complete', params: { ref: TEMPLATE_REF, argument: { name: n, value: '' } } }),
  ],
  [
    'completion/complete argument of a prompt',
    (n) => ({ method: 'completion/complete', params: { ref: PROMPT_REF, argument: { name: n, value: '' } } }),
  ],
];
/** Stateless probes of the tasks extension (the request declares it). */
const MODERN_TASKS: Array<[string, (n: string) => Probe]> = [
  [
    'tools/call name (tasks extension)',
    (n) => ({ method: 'tools/call', params: { name: n, arguments: {} }, mcpName: n }),
  ],
  ['tasks/get taskId', (n) => ({ method: 'tasks/get', params: { taskId: n }, mcpName: n })],
  ['tasks/update taskId', (n) => ({ method: 'tasks/update', params: { taskId: n, inputResponses: {} }, mcpName: n })],
  ['tasks/cancel taskId', (n) => ({ method: 'tasks/cancel', params: { taskId: n }, mcpName: n })],
];
/** The probes of a 2025-11-25 session. */
const LEGACY_PROBES: Array<[string, (n: string) => Probe]> = [
  ['method', (n) => ({ method: n, params: {} })],
  ['tools/call name', (n) => ({ method: 'tools/call', params: { name: n, arguments: {} } })],
  [
    'task-augmented tools/call name',
    (n) => ({ method: 'tools/call', params: { name: n, arguments: {}, task: { ttl: 60_000 } } }),
  ],
  ['prompts/get name', (n) => ({ method: 'prompts/get', params: { name: n } })],
  ['resources/read uri', (n) => ({ method: 'resources/read', params: { uri: `test://${n}` } })],
  ['resources/subscribe uri', (n) => ({ method: 'resources/subscribe', params: { uri: `test://${n}` } })],
  [
    'completion/complete argument of a template',
    (n) => ({ method: 'completion/complete', params: { ref: TEMPLATE_REF, argument: { name: n, value: '' } } }),
  ],
  [
    'completion/complete argument of a prompt',
    (n) => ({ method: 'completion/complete', params: { ref: PROMPT_REF, argument: { name: n, value: '' } } }),
  ],
  ['tasks/get taskId', (n) => ({ method: 'tasks/get', params: { taskId: n } })],
  ['tasks/result taskId', (n) => ({ method: 'tasks/result', params: { taskId: n } })],
  ['tasks/cancel taskId', (n) => ({ method: 'tasks/cancel', params: { taskId: n } })],
];

async function allDifferences(ask: Ask, probes: Array<[string, (n: string) => Probe]>): Promise<string[]> {
  const out: string[] = [];
  for (const [what, make] of probes) out.push(...(await differences(ask, what, make)));
  return out;
}

/** The control outcomes must be the answers the spec gives an unknown name (so "like the control" means refused). */
async function controls(
  ask: Ask,
  probes: Array<[string, (n: string) => Probe]>,
): Promise<Record<string, number | string>> {
  const out: Record<string, number | string> = {};
  for (const [what, make] of probes) {
    const o = await ask(make(CONTROL));
    out[what] = o.error ? o.error.code : JSON.stringify(o.result);
  }
  return out;
}

let served: Served | undefined;
const serveDraft = async () => (served ??= await startServe('--rev', 'draft'));

test('serve --http (draft), stateless requests: every Object.prototype name as a method, tool, prompt, URI, completion argument or task id is answered like an unknown one; a "__proto__" capability key declares nothing', async () => {
  const s = await serveDraft();
  const ask = statelessAsk(s.url);
  assert.equal(await controls(ask, MODERN), {
    method: -32601,
    'tools/call name': -32602,
    'prompts/get name': -32602,
    'resources/read uri': -32602,
    // a name that is no variable of the template is invalid params (completion page, Error Handling)
    'completion/complete argument of a template': -32602,
    'completion/complete argument of a prompt': JSON.stringify({ resultType: 'complete', completion: { values: [] } }),
  });
  assert.equal((await ask(MODERN[0][1](CONTROL))).status, 404, 'an unknown method is HTTP 404');
  assert.equal(await allDifferences(ask, MODERN), []);
  const withTasks = statelessAsk(s.url, TASKS_CAPS);
  assert.equal(await controls(withTasks, MODERN_TASKS), {
    'tools/call name (tasks extension)': -32602,
    'tasks/get taskId': -32602,
    'tasks/update taskId': -32602,
    'tasks/cancel taskId': -32602,
  });
  assert.equal(await allDifferences(withTasks, MODERN_TASKS), []);
  // a "__proto__" key in the client capabilities (JSON.parse makes it an own key) declares nothing
  const hidden = JSON.parse('{"__proto__":{"sampling":{},"elicitation":{},"roots":{}}}');
  for (const tool of [
    'test_missing_capability',
    'test_input_required_result_elicitation',
    'test_input_required_result_sampling',
  ]) {
    const probe: Probe = { method: 'tools/call', params: { name: tool, arguments: {} }, mcpName: tool };
    const plain = await statelessAsk(s.url, {})(probe);
    assert.equal(await statelessAsk(s.url, hidden)(probe), plain, tool);
    assert.equal(plain.error?.code, -32021, `${tool}: ${JSON.stringify(plain)}`);
  }
});

test('serve --http (draft), 2025-11-25 sessions: every Object.prototype name as a method, tool (with a task too), prompt, URI, completion argument, task id or session id is answered like an unknown one; a "__proto__" capability key declares nothing', async () => {
  const s = await serveDraft();
  const sid = await openSession(s.url, { tasks: {} });
  const ask = sessionAsk(s.url, sid);
  const c = await controls(ask, LEGACY_PROBES);
  assert.equal(c.method, -32601);
  assert.equal(c['tools/call name'], -32602);
  assert.equal(c['task-augmented tools/call name'], -32601, 'an unknown tool has no task support');
  assert.equal(c['resources/read uri'], -32002);
  assert.equal(c['tasks/get taskId'], -32602);
  assert.equal(await allDifferences(ask, LEGACY_PROBES), []);
  // session ids
  const bySession: Ask = async (p) => {
    const r = await postRaw(
      s.url,
      {
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        'Mcp-Session-Id': p.params.sid as string,
        'MCP-Protocol-Version': LEGACY,
      },
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    );
    return { status: r.status, error: r.body?.error };
  };
  const unknownSession = await bySession({ method: 'tools/list', params: { sid: CONTROL } });
  assert.is(unknownSession.status, 404);
  assert.equal(
    await differences(bySession, 'Mcp-Session-Id', (n) => ({ method: 'tools/list', params: { sid: n } })),
    [],
  );
  // a "__proto__" key in initialize's capabilities declares nothing: no elicitation/create or sampling/createMessage is sent
  const hidden = await openSession(s.url, '{"__proto__":{"elicitation":{},"sampling":{}}}');
  const plain = await openSession(s.url, {});
  for (const tool of ['test_elicitation', 'test_sampling']) {
    const probe: Probe = {
      method: 'tools/call',
      params: { name: tool, arguments: tool === 'test_sampling' ? { prompt: 'hi' } : { message: 'hi' } },
    };
    const a = await sessionAsk(s.url, plain)(probe);
    assert.equal(await sessionAsk(s.url, hidden)(probe), a, tool);
    assert.ok(
      JSON.stringify(a).includes('-32601'),
      `${tool}: refused locally for the undeclared capability: ${JSON.stringify(a)}`,
    );
  }
});

test('serve --stdio (draft), stateless requests: every Object.prototype name is answered like an unknown one', async () => {
  const s = StdioServe.start('--rev', 'draft');
  try {
    const ask = stdioAsk(s, metaOf());
    assert.equal((await ask(MODERN[0][1](CONTROL))).error?.code, -32601);
    assert.equal(await allDifferences(ask, MODERN), []);
    assert.equal(await allDifferences(stdioAsk(s, metaOf(TASKS_CAPS)), MODERN_TASKS), []);
  } finally {
    await s.stop();
  }
});

test('serve --stdio (draft), a 2025-11-25 connection: every Object.prototype name is answered like an unknown one', async () => {
  const s = StdioServe.start('--rev', 'draft');
  try {
    const init = await s.request('initialize', {
      protocolVersion: LEGACY,
      capabilities: { tasks: {} },
      clientInfo: { name: 'hardening', version: '1' },
    });
    assert.is((init.result as Obj).protocolVersion, LEGACY);
    s.notify('notifications/initialized');
    const ask = stdioAsk(s);
    assert.equal((await ask(LEGACY_PROBES[2][1](CONTROL))).error?.code, -32601);
    assert.equal(await allDifferences(ask, LEGACY_PROBES), []);
  } finally {
    await s.stop();
  }
});

// ---- the runtime used directly --------------------------------------------------------------

/** Outcome of one request through a client's engine. */
const engineAsk =
  (request: (method: string, params: Obj) => Promise<unknown>): Ask =>
  async (p) => {
    try {
      return { result: await request(p.method, p.params) };
    } catch (e) {
      if (!(e instanceof RpcError)) throw e;
      return { error: { code: e.code, message: e.message, ...(e.data === undefined ? {} : { data: e.data }) } };
    }
  };

test("runtime, 2025-11-25 over a memory pair: tools named like Object.prototype members are tools like any other, and a task receiver's tools record gives them no task support", async () => {
  const f = new ServerFeatures();
  for (const n of [...NAMES, CONTROL]) f.tool({ name: n, handler: () => `tool ${n}` });
  const server = new v2025.Server({
    serverInfo: { name: 'own', version: '1' },
    capabilities: f.capabilities(),
    handlers: f.handlers() as never,
  });
  attachTaskReceiver(server, { tools: { some_other_tool: 'optional' }, pollInterval: 20 });
  const client = new v2025.Client({ clientInfo: { name: 'own', version: '1' } });
  const [a, b] = createMemoryPair();
  await server.connect(b);
  await client.connect(a);
  try {
    const ask = engineAsk((m, p) => client.peer.request(m, p));
    const probes: Array<[string, (n: string) => Probe]> = [
      ['method', (n) => ({ method: n, params: {} })],
      ['tools/call', (n) => ({ method: 'tools/call', params: { name: n, arguments: {} } })],
      [
        'task-augmented tools/call',
        (n) => ({ method: 'tools/call', params: { name: n, arguments: {}, task: { ttl: 1000 } } }),
      ],
      ['tasks/get', (n) => ({ method: 'tasks/get', params: { taskId: n } })],
    ];
    assert.equal(await controls(ask, probes), {
      method: -32601,
      'tools/call': JSON.stringify({ content: [{ type: 'text', text: `tool ${CONTROL}` }] }),
      'task-augmented tools/call': -32601,
      'tasks/get': -32602,
    });
    assert.equal(await allDifferences(ask, probes), []);
    const listed = ((await client.peer.request('tools/list', {})) as { tools: Array<{ name: string }> }).tools.map(
      (t) => t.name,
    );
    assert.equal(listed.sort(), [...NAMES, CONTROL].sort());
  } finally {
    await client.close();
    await server.close();
  }
});

interface Stateless {
  url: string;
  headers: Obj[];
  client: draft.Client;
  close(): Promise<void>;
}

/** A draft Server (ServerFeatures `f`, or raw `handlers`) behind the stateless handler on 127.0.0.1, and a draft Client connected to it. */
async function stateless(
  f: ServerFeatures | undefined,
  handlers?: Record<string, RequestHandler>,
  clientHandlers?: Obj,
): Promise<Stateless> {
  const handler = createStatelessHttpHandler({ tables: STATELESS_TABLES, toolSchema: (n) => f?.inputSchema(n) });
  const server = new draft.Server({
    serverInfo: { name: 'own', version: '1' },
    capabilities: f ? f.capabilities() : { tools: {} },
    handlers: (handlers ?? f!.handlers({ table: draft.table })) as never,
  });
  await server.connect(handler.transport);
  const l = await listen(handler);
  const client = new draft.Client({
    clientInfo: { name: 'own', version: '1' },
    capabilities: clientHandlers ? { elicitation: {} } : {},
    handlers: clientHandlers as never,
    cache: false,
  });
  await client.connect(new StatelessHttpClientTransport({ url: l.url }));
  return {
    url: l.url,
    headers: l.headers as Obj[],
    client,
    close: async () => {
      await client.close();
      await server.close();
      await l.close();
    },
  };
}

const textOf = (r: unknown) =>
  ((r as { content?: Array<{ text?: string }> }).content ?? []).map((c) => c.text ?? '').join('');

test('runtime, tool schemas see own properties only: required and properties named like Object.prototype members are not met by inherited ones (stateless HTTP)', async () => {
  const f = new ServerFeatures();
  f.tool({
    name: 'needs_all',
    inputSchema: { type: 'object', required: [...NAMES] },
    handler: (a: Obj) => Object.keys(a).sort().join(','),
  });
  f.tool({
    name: 'typed_all',
    inputSchema: { type: 'object', properties: allOwn(() => ({ type: 'string' })) },
    handler: (a: Obj) => Object.keys(a).sort().join(','),
  });
  f.tool({
    name: 'closed_all',
    inputSchema: { type: 'object', properties: allOwn(() => ({ type: 'string' })), additionalProperties: false },
    handler: (a: Obj) => Object.keys(a).sort().join(','),
  });
  const s = await stateless(f);
  try {
    const none = (await s.client.callTool({ name: 'needs_all', arguments: {} })) as Obj;
    assert.is(none.isError, true, `{} must not satisfy required ${JSON.stringify(NAMES)}: ${JSON.stringify(none)}`);
    for (const n of NAMES)
      assert.ok(textOf(none).includes(`${n}: is required`), `${n} reported missing: ${textOf(none)}`);
    const all = (await s.client.callTool({ name: 'needs_all', arguments: allOwn((n) => `v-${n}`) })) as Obj;
    assert.is(all.isError, undefined, JSON.stringify(all));
    assert.is(textOf(all), [...NAMES].sort().join(','));
    const untyped = (await s.client.callTool({ name: 'typed_all', arguments: {} })) as Obj;
    assert.is(untyped.isError, undefined, `absent properties are not the inherited ones: ${JSON.stringify(untyped)}`);
    const wrong = (await s.client.callTool({ name: 'typed_all', arguments: allOwn(() => 7) })) as Obj;
    assert.is(wrong.isError, true);
    for (const n of NAMES) assert.ok(textOf(wrong).includes(`${n}: must be string`), `${n}: ${textOf(wrong)}`);
    // declared properties (`__proto__` among them) are not additional ones; an undeclared one is
    const closed = (await s.client.callTool({ name: 'closed_all', arguments: allOwn((n) => `v-${n}`) })) as Obj;
    assert.is(textOf(closed), [...NAMES].sort().join(','), JSON.stringify(closed));
    const extra = (await s.client.callTool({ name: 'closed_all', arguments: { other: 'x' } })) as Obj;
    assert.is(extra.isError, true);
    assert.ok(textOf(extra).includes('other: is not allowed'), textOf(extra));
  } finally {
    await s.close();
  }
});

test('runtime, prompts: required arguments named like Object.prototype members are missing unless given (stateless HTTP)', async () => {
  const f = new ServerFeatures();
  f.prompt({
    name: 'all_args',
    arguments: NAMES.map((n) => ({ name: n, required: true })),
    get: (a) => [{ role: 'user', content: { type: 'text', text: Object.keys(a).sort().join(',') } }],
  });
  const s = await stateless(f);
  try {
    const refused = await engineAsk((m, p) => s.client.request(m as never, p as never))({
      method: 'prompts/get',
      params: { name: 'all_args', arguments: {} },
    });
    assert.is(refused.error?.code, -32602, JSON.stringify(refused));
    assert.equal((refused.error!.data as { missing?: string[] }).missing, [...NAMES]);
    const given = (await s.client.getPrompt({
      name: 'all_args',
      arguments: allOwn((n) => `v-${n}`) as Record<string, string>,
    })) as { messages: Array<{ content: { text: string } }> };
    assert.is(given.messages[0].content.text, [...NAMES].sort().join(','));
  } finally {
    await s.close();
  }
});

test('runtime, x-mcp-header on arguments named like Object.prototype members: an absent argument sends no header and needs none; a present one is mirrored', async () => {
  const f = new ServerFeatures();
  const schema = { type: 'object', properties: allOwn((_n, i) => ({ type: 'string', 'x-mcp-header': `P${i}` })) };
  f.tool({ name: 'headers_all', inputSchema: schema, handler: (a: Obj) => Object.keys(a).sort().join(',') });
  const s = await stateless(f);
  try {
    await s.client.listTools({});
    const before = s.headers.length;
    const none = (await s.client.callTool({ name: 'headers_all', arguments: {} })) as Obj;
    assert.is(none.isError, undefined, JSON.stringify(none));
    const sent = s.headers.slice(before).map((h) => Object.keys(h).filter((k) => k.startsWith('mcp-param-')));
    assert.equal(sent, [[]], 'no Mcp-Param-* header for absent arguments');
    const at = s.headers.length;
    const all = (await s.client.callTool({ name: 'headers_all', arguments: allOwn((n) => `v-${n}`) })) as Obj;
    assert.is(textOf(all), [...NAMES].sort().join(','));
    const mirrored = s.headers[at];
    NAMES.forEach((n, i) => {
      assert.is(mirrored[`mcp-param-p${i}`], `v-${n}`, n);
    });
    // a raw request without Mcp-Param-* headers and without the arguments is accepted
    const raw = await postRaw(s.url, statelessHeaders({ method: 'tools/call', params: {}, mcpName: 'headers_all' }), {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'headers_all', arguments: {}, _meta: metaOf() },
    });
    assert.is(raw.status, 200, JSON.stringify(raw.body));
    assert.is(raw.body.result.isError, undefined, JSON.stringify(raw.body));
  } finally {
    await s.close();
  }
});

test('runtime, "__proto__" keys from JSON stay keys: an input request keyed "__proto__" is answered under that key; __proto__ in arguments and _meta passes the client\'s and server\'s copies unchanged', async () => {
  const asked: unknown[] = [];
  const handlers: Record<string, RequestHandler> = {
    'tools/list': () => ({
      tools: [
        { name: 'ask', inputSchema: { type: 'object' } },
        { name: 'echo_params', inputSchema: { type: 'object' } },
      ],
    }),
    'tools/call': (p: Obj) => {
      if (p.name === 'echo_params') {
        const args = p.arguments as Obj;
        const meta = p._meta as Obj;
        const seen = {
          own: Object.hasOwn(args, '__proto__'),
          plain: Object.getPrototypeOf(args) === Object.prototype,
          // biome-ignore lint/suspicious/noProto: an own property named __proto__, the subject of the test
          value: args.__proto__,
          meta: Object.hasOwn(meta, '__proto__'),
          version: meta['io.modelcontextprotocol/protocolVersion'],
        };
        return { content: [{ type: 'text', text: JSON.stringify(seen) }] };
      }
      const r = p.inputResponses as Obj | undefined;
      asked.push(r === undefined ? null : Object.keys(r));
      if (r && Object.hasOwn(r, '__proto__'))
        // biome-ignore lint/suspicious/noProto: an own property named __proto__, the subject of the test
        return { content: [{ type: 'text', text: `answered ${JSON.stringify(r.__proto__)}` }] };
      return inputRequired({
        inputRequests: {
          ['__proto__']: inputRequest.elicit({
            message: 'Name?',
            requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
          }),
        },
      });
    },
  };
  const s = await stateless(undefined, handlers, {
    'elicitation/create': () => ({ action: 'accept', content: { name: 'Ada' } }),
  });
  try {
    const r = await s.client.callTool({ name: 'ask', arguments: {} });
    assert.is(textOf(r), 'answered {"action":"accept","content":{"name":"Ada"}}');
    assert.equal(asked, [null, ['__proto__']]);
    const echoed = await s.client.callTool({
      name: 'echo_params',
      arguments: JSON.parse('{"__proto__":{"x":1}}'),
      _meta: JSON.parse('{"__proto__":{"io.modelcontextprotocol/protocolVersion":"1999-01-01"}}'),
    } as never);
    assert.equal(JSON.parse(textOf(echoed)), {
      own: true,
      plain: true,
      value: { x: 1 },
      meta: true,
      version: '2026-07-28',
    });
  } finally {
    await s.close();
  }
});

const revisions = readdirSync(fileURLToPath(new URL('../../generated', import.meta.url)))
  .filter((r) => /^\d{4}-\d{2}-\d{2}$|^draft$/.test(r))
  .sort();

test('generated validators: a member named like an Object.prototype member is an own property, or absent (every revision, and a schema that names one)', async () => {
  assert.ok(revisions.length >= 6, revisions.join(','));
  for (const rev of revisions) {
    const { table } = (await import(`../../generated/${rev}/index.js`)) as { table: ProtocolTable };
    const entry = table.requests.clientToServer['tools/call'];
    const params = JSON.parse('{"name":"echo","arguments":{}}') as Obj;
    params._meta = metaOf();
    assert.ok(entry.params!(params), `${rev}: own params are valid`);
    const { name: _, ...nameless } = params;
    for (const key of NAMES)
      assert.not.ok(
        entry.params!({ ...JSON.parse(`{${JSON.stringify(key)}:"echo"}`), ...nameless }),
        `${rev}: ${key} is no name`,
      );
  }
  // A revision whose schema names `constructor`: its validators read own properties only.
  const model = pinnedModel('2025-11-25');
  const schema = {
    type: 'object',
    required: ['constructor', 'toString'],
    properties: { constructor: {}, toString: {}, valueOf: { type: 'string' } },
  };
  assert.not.ok(
    namesPrototypeMember(Object.values(model.types).map((t) => t.schema)),
    'the upstream schema names no prototype member',
  );
  model.types.PrototypeNames = { ...model.types.Implementation, name: 'PrototypeNames', schema };
  const files = emitValidators(model, DEFAULT_EMIT_OPTIONS);
  // beside the generated revisions, so the default runtime import resolves
  const dir = mkdtempSync(fileURLToPath(new URL('../../generated/.own-properties-', import.meta.url)));
  try {
    const file = join(dir, 'validators.gen.js');
    writeFileSync(file, files.get('validators.gen.js')!);
    const V = (await import(pathToFileURL(file).href)) as Record<string, (v: unknown) => boolean>;
    assert.not.ok(V.PrototypeNames!({}), 'inherited constructor and toString are not members');
    assert.not.ok(V.PrototypeNames!(JSON.parse('{"constructor":"a"}')), 'toString missing');
    assert.ok(V.PrototypeNames!(JSON.parse('{"constructor":"a","toString":"b"}')), 'own members');
    assert.not.ok(
      V.PrototypeNames!(JSON.parse('{"constructor":1,"toString":"b","valueOf":2}')),
      'own members are checked',
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.after(async () => {
  await served?.stop();
});

test.run();
