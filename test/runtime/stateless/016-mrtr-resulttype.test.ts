/**
 * Case 016: results of stateless revisions are decoded by `resultType` (absent → complete,
 * unknown → invalid), each input_required round is retried with a new id, the exact
 * requestState and inputResponses keyed like inputRequests, the client stops after
 * maxInputRounds (default 10), and the server only sends well-formed InputRequiredResults.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Client } from '../../../generated/draft/index.js';
import { InvalidResultError, RpcError } from '../../../runtime/jsonrpc/errors.js';
import { MaxInputRoundsError, inputRequired } from '../../../runtime/stateless/mrtr.js';
import { InputRequestError } from '../../../runtime/stateless/input-rounds.js';
import { pair, scriptedServer, type SeenRequest } from './harness.js';

const approve = {
  method: 'elicitation/create',
  params: {
    mode: 'form',
    message: 'Deploy to staging?',
    requestedSchema: { type: 'object', properties: { approved: { type: 'boolean' } }, required: ['approved'] },
  },
};
const R1 = {
  resultType: 'input_required',
  _meta: {},
  inputRequests: { approve_deploy: approve },
  requestState: 'b3BhcXVlLTE=',
};
const R2 = { resultType: 'input_required', requestState: 'c3RhdGUtMg==' };
const R3 = { content: [{ type: 'text', text: 'deployed' }] };

function client(extra: Partial<ConstructorParameters<typeof Client>[0]> = {}, elicited: unknown[] = []) {
  return new Client({
    clientInfo: { name: 'c', version: '0' },
    capabilities: { elicitation: { form: {} } },
    // the scripted servers answer by position and serve no tools/list: no output-schema listing
    checkToolOutput: false,
    handlers: {
      'elicitation/create': (p) => {
        elicited.push(p);
        return { action: 'accept', content: { approved: true } };
      },
    },
    ...extra,
  });
}
const calls = (seen: SeenRequest[], method = 'tools/call') => seen.filter((r) => r.method === method);
const deploy = { name: 'deploy', arguments: { env: 'staging' } };

test('016 R1-R3: new id per retry, exact requestState, inputResponses by key, absent resultType is complete', async () => {
  const script = [R1, R2, R3];
  const { transport, seen } = await scriptedServer((_req, n) => script[n]);
  const elicited: unknown[] = [];
  const c = client({}, elicited);
  await c.connect(transport);
  const res = await c.callTool(deploy);
  assert.equal(res.content, [{ type: 'text', text: 'deployed' }]);
  assert.is(res.resultType, 'complete');
  assert.equal(elicited, [approve.params]);
  const [first, second, third] = calls(seen);
  assert.is(new Set([first.id, second.id, third.id]).size, 3);
  for (const r of [first, second, third]) {
    assert.is(r.params.name, 'deploy');
    assert.equal(r.params.arguments, { env: 'staging' });
    assert.is((r.params._meta as Record<string, unknown>)['io.modelcontextprotocol/protocolVersion'], '2026-07-28');
  }
  assert.not.ok('requestState' in first.params);
  assert.not.ok('inputResponses' in first.params);
  assert.is(second.params.requestState, 'b3BhcXVlLTE=');
  assert.equal(second.params.inputResponses, { approve_deploy: { action: 'accept', content: { approved: true } } });
  assert.is(third.params.requestState, 'c3RhdGUtMg==');
  assert.not.ok('inputResponses' in third.params, 'a state-only round sends no new inputResponses');
  await c.close();
});

test('016 S4: input_required without requestState: the retry has no requestState field', async () => {
  const script = [
    { resultType: 'input_required', inputRequests: { approve_deploy: approve } },
    { resultType: 'complete', content: [] },
  ];
  const { transport, seen } = await scriptedServer((_r, n) => script[n]);
  const c = client();
  await c.connect(transport);
  await c.callTool(deploy);
  const retry = calls(seen)[1];
  assert.not.ok('requestState' in retry.params);
  assert.ok('inputResponses' in retry.params);
  await c.close();
});

test('016 S5: unknown or non-string resultType is an invalid result, not success, and is not retried', async () => {
  for (const resultType of ['totally_new', 42, null, '']) {
    const { transport, seen } = await scriptedServer(() => ({ resultType, content: [] }));
    const c = client();
    await c.connect(transport);
    const err = await c.callTool(deploy).catch((e: unknown) => e);
    assert.instance(err, InvalidResultError, String(resultType));
    assert.match((err as Error).message, /resultType/);
    assert.is(calls(seen).length, 1);
    await c.close();
  }
});

test('016: input_required on a method that does not support it, or with neither field, is invalid', async () => {
  const { transport } = await scriptedServer((req) =>
    req.method === 'tools/list'
      ? { resultType: 'input_required', requestState: 'x' }
      : { resultType: 'input_required', _meta: {} },
  );
  const c = client();
  await c.connect(transport);
  const list = await c.listTools({}).catch((e: unknown) => e);
  assert.instance(list, InvalidResultError);
  assert.match((list as Error).message, /tools\/list cannot be answered with input_required/);
  const call = await c.callTool(deploy).catch((e: unknown) => e);
  assert.instance(call, InvalidResultError);
  await c.close();
});

test('016 S6: input_required forever stops after 10 rounds by default, with method and count in the error', async () => {
  const { transport, seen } = await scriptedServer(() => R2);
  const c = client();
  await c.connect(transport);
  const err = await c.callTool(deploy).catch((e: unknown) => e);
  assert.instance(err, MaxInputRoundsError);
  assert.is((err as MaxInputRoundsError).method, 'tools/call');
  assert.is((err as MaxInputRoundsError).rounds, 10);
  assert.match((err as Error).message, /tools\/call.*10 rounds/);
  assert.is(calls(seen).length, 11, 'the first request and 10 retries');
  await c.close();
});

test('016 S6: maxInputRounds is configurable (also for prompts/get and resources/read)', async () => {
  const { transport, seen } = await scriptedServer(() => R2);
  const c = client({ maxInputRounds: 2 });
  await c.connect(transport);
  const err = await c.getPrompt({ name: 'p' }).catch((e: unknown) => e);
  assert.instance(err, MaxInputRoundsError);
  assert.match((err as Error).message, /prompts\/get.*2 rounds/);
  assert.is(calls(seen, 'prompts/get').length, 3);
  const err2 = await c.readResource({ uri: 'file:///a' }).catch((e: unknown) => e);
  assert.instance(err2, MaxInputRoundsError);
  await c.close();
});

test('016 S7: an input request for an undeclared capability fails the call naming it; no handler call, no retry', async () => {
  const sample = { method: 'sampling/createMessage', params: { messages: [], maxTokens: 10 } };
  const { transport, seen } = await scriptedServer(() => ({
    resultType: 'input_required',
    inputRequests: { s: sample },
    requestState: 'x',
  }));
  let called = false;
  const c = client({
    handlers: {
      'sampling/createMessage': () => {
        called = true;
        return { role: 'assistant', content: { type: 'text', text: '' }, model: 'm' };
      },
    },
  });
  await c.connect(transport);
  const err = await c.callTool(deploy).catch((e: unknown) => e);
  assert.instance(err, InputRequestError);
  assert.match((err as Error).message, /did not declare capability sampling/);
  assert.is(called, false);
  assert.is(calls(seen).length, 1);
  await c.close();
});

test('016: declared but no handler, an invalid embedded request, an invalid handler answer: InputRequestError', async () => {
  const scripts: Array<[Record<string, unknown>, RegExp, Partial<ConstructorParameters<typeof Client>[0]>]> = [
    [
      { resultType: 'input_required', inputRequests: { r: { method: 'roots/list' } } },
      /no handler/,
      { capabilities: { roots: {} }, handlers: {} },
    ],
    [
      { resultType: 'input_required', inputRequests: { e: { method: 'elicitation/create', params: { message: 1 } } } },
      /invalid params/,
      {},
    ],
    [
      { resultType: 'input_required', inputRequests: { t: { method: 'tools/list', params: {} } } },
      /not an input request/,
      {},
    ],
    [
      { resultType: 'input_required', inputRequests: { e: approve } },
      /invalid result/,
      { handlers: { 'elicitation/create': () => ({ action: 'maybe' }) as never } },
    ],
  ];
  for (const [answer, why, opts] of scripts) {
    const { transport } = await scriptedServer(() => answer);
    const c = client(opts);
    await c.connect(transport);
    const err = await c.callTool(deploy).catch((e: unknown) => e);
    assert.instance(err, InputRequestError);
    assert.match((err as Error).message, why);
    await c.close();
  }
});

test('016: requestState of one request is never attached to a concurrent one', async () => {
  const { transport, seen } = await scriptedServer((req) => {
    if (req.method === 'tools/list') return { resultType: 'complete', tools: [], ttlMs: 0, cacheScope: 'private' };
    return req.params.requestState ? R3 : R1;
  });
  const c = client();
  await c.connect(transport);
  await Promise.all([c.callTool(deploy), c.listTools({}), c.callTool({ name: 'other' }), c.listTools({ cursor: 'x' })]);
  for (const r of calls(seen, 'tools/list')) {
    assert.not.ok('requestState' in r.params);
    assert.not.ok('inputResponses' in r.params);
  }
  const firstOther = calls(seen).find((r) => r.params.name === 'other')!;
  assert.not.ok('requestState' in firstOther.params);
  await c.close();
});

test('016 server side: InputRequiredResult only for supported methods, with a field, for declared capabilities', async () => {
  assert.throws(() => inputRequired({}), /inputRequests or requestState/);
  assert.throws(() => inputRequired({ inputRequests: {} }), /inputRequests or requestState/);
  const { client: c, server } = await pair(
    {
      serverInfo: { name: 's', version: '1' },
      capabilities: { tools: {}, prompts: {} },
      handlers: {
        'tools/call': (p) =>
          p.name === 'empty'
            ? ({ resultType: 'input_required' } as never)
            : inputRequired({ inputRequests: { a: approve } }),
        'prompts/list': () => ({ resultType: 'input_required', requestState: 'x' }) as never,
        'prompts/get': () => ({ messages: [] }) as never,
      },
    },
    { capabilities: {} },
  );
  const missing = await c.callTool({ name: 'x' }).catch((e: unknown) => e);
  assert.instance(missing, RpcError);
  assert.is((missing as RpcError).code, -32021);
  assert.equal((missing as RpcError).data, { requiredCapabilities: { elicitation: {} } });
  const empty = await c.callTool({ name: 'empty' }).catch((e: unknown) => e);
  assert.is((empty as RpcError).code, -32603);
  assert.match((empty as Error).message, /without inputRequests or requestState/);
  const list = await c.listPrompts({}).catch((e: unknown) => e);
  assert.is((list as RpcError).code, -32603);
  assert.match((list as Error).message, /prompts\/list cannot be answered with input_required/);
  // a handler result without resultType goes out as complete
  const raw = await c.peer.request<Record<string, unknown>>('prompts/get', {
    name: 'p',
    _meta: {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': {},
    },
  });
  assert.is(raw.resultType, 'complete');
  await c.close();
  void server;
});

test.run();
