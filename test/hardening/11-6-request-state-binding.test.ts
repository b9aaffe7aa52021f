/**
 * Issue 11, finding 6: an input-required `requestState` is bound to the request that issued it
 * (draft basic/patterns/mrtr, Server Requirements 4–5): method and target (tool name, prompt
 * name, resource URI), principal, audience, expiry, key id. A state issued by one tool is refused
 * with -32602 on another tool's round, over `mcpgen serve --rev draft` (stdio and HTTP) and with
 * the runtime's sealer used directly; processes sharing the configured secret accept each
 * other's states, processes with their own random secret do not.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as draft from '../../generated/draft/index.js';
import { ServerFeatures } from '../../runtime/features/server-features.js';
import { inputRequest, inputRequired, readInput } from '../../runtime/stateless/mrtr.js';
import { InvalidRequestStateError, RequestStateSealer, requestTarget } from '../../runtime/stateless/request-state.js';
import type { RequestContext } from '../../runtime/engine/context.js';
import type { ServerSession } from '../../runtime/session/server.js';
import type { ProtocolMaps } from '../../runtime/protocol/table.js';
import { createMemoryPair } from '../../runtime/transport/memory.js';
import { DRAFT, StdioServe, bin, meta, postDraft, root, startHttpServe } from './era-serve.js';

type Obj = Record<string, any>;
const V = draft.protocolVersion;
const M = meta(V);
const ISSUER = 'test_input_required_result_request_state';
const OTHER = 'test_input_required_result_tampered_state';
const CONFIRM = { confirm: { action: 'accept', content: { ok: true } } };
const call = (id: number, name: string, extra: Obj = {}) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: {}, ...extra, _meta: M },
});

/** One transport's way of sending a draft request and getting its answer. */
type Send = (body: Obj) => Promise<Obj>;

/** Gets a state from ISSUER, then presents it to OTHER (refused) and to ISSUER (accepted). */
async function crossToolRound(send: Send): Promise<void> {
  const first = await send(call(1, ISSUER));
  assert.is(first.result?.resultType, 'input_required', JSON.stringify(first));
  const state = first.result.requestState as string;
  assert.type(state, 'string');
  const crossed = await send(call(2, OTHER, { requestState: state, inputResponses: CONFIRM }));
  assert.ok(crossed.error, `a state issued by ${ISSUER} was accepted by ${OTHER}: ${JSON.stringify(crossed)}`);
  assert.is(crossed.error.code, -32602);
  assert.equal(crossed.error.data, { reason: 'request' });
  assert.match(crossed.error.message, /Invalid requestState for tools\/call: issued for another request/);
  const own = await send(call(3, ISSUER, { requestState: state, inputResponses: CONFIRM }));
  assert.equal(own.result?.content, [{ type: 'text', text: 'state-ok: confirmed=true' }], JSON.stringify(own));
  // the multi-round tool's state is refused by the state-checking tool as well, and the reverse
  const round = await send(call(4, 'test_input_required_result_multi_round'));
  const reversed = await send(call(5, ISSUER, { requestState: round.result.requestState, inputResponses: CONFIRM }));
  assert.is(reversed.error?.code, -32602, JSON.stringify(reversed));
  assert.equal(reversed.error.data, { reason: 'request' });
}

test('serve --stdio --rev draft: a state issued by one tool is refused (-32602 "request") on another tool\'s round', async () => {
  const s = new StdioServe(['--rev', DRAFT]);
  try {
    await crossToolRound((body) => s.request(body.id, body.method, body.params));
  } finally {
    await s.close();
  }
});

test('serve --http 0 --rev draft: a state issued by one tool is refused (-32602 "request") on another tool\'s round', async () => {
  const s = await startHttpServe(['--rev', DRAFT]);
  try {
    await crossToolRound((body) => postDraft(s.url, V, body));
  } finally {
    await s.stop();
  }
});

test("serve --http --rev draft: processes sharing MCPGEN_REQUEST_STATE_SECRET (or the secret file) accept each other's states; own random secrets do not", async () => {
  const secret = 'a-deployment-secret-of-32-bytes-or-more!';
  const dir = mkdtempSync(join(tmpdir(), 'mcpgen-state-'));
  const file = join(dir, 'secret');
  writeFileSync(file, `${secret}\n`);
  const env = { ...process.env, MCPGEN_REQUEST_STATE_SECRET: secret };
  const noSecret = { ...process.env };
  delete noSecret.MCPGEN_REQUEST_STATE_SECRET;
  const [a, b, c, d] = await Promise.all([
    startHttpServe(['--rev', DRAFT], env),
    startHttpServe(['--rev', DRAFT, '--request-state-secret-file', file], noSecret),
    startHttpServe(['--rev', DRAFT], noSecret),
    startHttpServe(['--rev', DRAFT], noSecret),
  ]);
  try {
    const issued = await postDraft(a.url, V, call(1, ISSUER));
    const onB = await postDraft(
      b.url,
      V,
      call(2, ISSUER, { requestState: issued.result.requestState, inputResponses: CONFIRM }),
    );
    assert.equal(onB.result?.content, [{ type: 'text', text: 'state-ok: confirmed=true' }], JSON.stringify(onB));
    // and the binding holds across processes too
    const crossed = await postDraft(
      b.url,
      V,
      call(3, OTHER, { requestState: issued.result.requestState, inputResponses: CONFIRM }),
    );
    assert.equal(crossed.error?.data, { reason: 'request' }, JSON.stringify(crossed));
    const own = await postDraft(c.url, V, call(4, ISSUER));
    const onD = await postDraft(
      d.url,
      V,
      call(5, ISSUER, { requestState: own.result.requestState, inputResponses: CONFIRM }),
    );
    assert.is(onD.error?.code, -32602, JSON.stringify(onD));
    assert.equal(onD.error.data, { reason: 'tampered' });
  } finally {
    await Promise.all([a.stop(), b.stop(), c.stop(), d.stop()]);
  }
});

test('serve: a requestState secret shorter than 32 bytes is a usage error (exit 2), never silently replaced', async () => {
  const run = (env: NodeJS.ProcessEnv) =>
    new Promise<{ code: number; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        [bin, 'serve', '--stdio', '--rev', DRAFT],
        { cwd: root, env, timeout: 60_000 },
        (err, _out, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stderr }),
      );
    });
  const r = await run({ ...process.env, MCPGEN_REQUEST_STATE_SECRET: 'short' });
  assert.is(r.code, 2, r.stderr);
  assert.match(r.stderr, /MCPGEN_REQUEST_STATE_SECRET: the requestState secret needs at least 32 bytes, got 5/);
});

// ---- the runtime used directly ----

const SECRET = 'the-runtime-test-secret-of-32-bytes!';
/** A RequestContext-like identity of one request. */
const req = (method: string, params: Obj, info?: Obj): RequestContext =>
  ({ method, params, info, meta: undefined }) as unknown as RequestContext;
const reason = (f: () => unknown): string | undefined => {
  try {
    f();
  } catch (e) {
    if (e instanceof InvalidRequestStateError) {
      assert.is(e.code, -32602);
      return e.reason;
    }
    throw e;
  }
  return undefined;
};

test('sealer: bound by default to method and target (tool name, prompt name, resource URI)', () => {
  const s = new RequestStateSealer({ secret: SECRET });
  const tool = s.seal(req('tools/call', { name: 'a', arguments: {} }), { step: 1 });
  assert.equal(s.verifyRequestState(tool, req('tools/call', { name: 'a', arguments: { x: 1 }, requestState: tool })), {
    step: 1,
  });
  assert.is(
    reason(() => s.verifyRequestState(tool, req('tools/call', { name: 'b' }))),
    'request',
  );
  assert.is(
    reason(() => s.verifyRequestState(tool, req('tools/call', {}))),
    'request',
  );
  assert.is(
    reason(() => s.verifyRequestState(tool, req('prompts/get', { name: 'a' }))),
    'method',
  );
  // the method-only form does not accept a state sealed for a request (no downgrade)
  assert.is(
    reason(() => s.verifyRequestState(tool, 'tools/call')),
    'request',
  );
  const prompt = s.seal(req('prompts/get', { name: 'p' }), null);
  assert.is(
    reason(() => s.verifyRequestState(prompt, req('prompts/get', { name: 'q' }))),
    'request',
  );
  const res = s.seal(req('resources/read', { uri: 'test://a' }), null);
  assert.is(s.verifyRequestState(res, req('resources/read', { uri: 'test://a' })), null);
  assert.is(
    reason(() => s.verifyRequestState(res, req('resources/read', { uri: 'test://b' }))),
    'request',
  );
  assert.is(requestTarget('tools/call', { name: 'x', uri: 'y' }), 'x');
  assert.is(requestTarget('resources/read', { name: 'x', uri: 'y' }), 'y');
  assert.is(requestTarget('tools/call', Object.create({ name: 'inherited' })), undefined);
  // open(): the request's own requestState, undefined when absent
  assert.is(s.open(req('tools/call', { name: 'a' })), undefined);
  assert.equal(s.open(req('tools/call', { name: 'a', requestState: tool })), { step: 1 });
  assert.is(
    reason(() => s.open(req('tools/call', { name: 'b', requestState: tool }))),
    'request',
  );
  assert.is(
    reason(() => s.open(req('tools/call', { name: 'a', requestState: 7 }))),
    'malformed',
  );
});

test('sealer: principal, audience, expiry, key rotation and a size bound', () => {
  let now = 1_000;
  const principal = (r: { info?: { headers?: Obj } }) => r.info?.headers?.['x-user'] as string | undefined;
  const s = new RequestStateSealer({
    secret: SECRET,
    principal,
    audience: 'https://a.example/mcp',
    ttlMs: 1_000,
    now: () => now,
  });
  const alice = { headers: { 'x-user': 'alice' } };
  const st = s.seal(req('tools/call', { name: 't' }, alice), 1);
  assert.is(s.verifyRequestState(st, req('tools/call', { name: 't' }, alice)), 1);
  assert.is(
    reason(() => s.verifyRequestState(st, req('tools/call', { name: 't' }, { headers: { 'x-user': 'mallory' } }))),
    'principal',
  );
  assert.is(
    reason(() => s.verifyRequestState(st, req('tools/call', { name: 't' }))),
    'principal',
  );
  const other = new RequestStateSealer({
    secret: SECRET,
    principal,
    audience: 'https://b.example/mcp',
    now: () => now,
  });
  assert.is(
    reason(() => other.verifyRequestState(st, req('tools/call', { name: 't' }, alice))),
    'audience',
  );
  now += 1_000;
  assert.is(
    reason(() => s.verifyRequestState(st, req('tools/call', { name: 't' }, alice))),
    'expired',
  );
  // rotation: a state of the previous secret verifies, one of an unknown secret does not
  const old = new RequestStateSealer({ secret: SECRET });
  const rotated = new RequestStateSealer({ secret: 'the-next-secret-after-rotation-32b!!', previousSecrets: [SECRET] });
  const oldState = old.seal(req('tools/call', { name: 't' }), 'x');
  assert.is(rotated.verifyRequestState(oldState, req('tools/call', { name: 't' })), 'x');
  assert.is(
    reason(() =>
      new RequestStateSealer({ secret: 'the-next-secret-after-rotation-32b!!' }).verifyRequestState(
        oldState,
        req('tools/call', { name: 't' }),
      ),
    ),
    'tampered',
  );
  // bounded: a long state is refused before decoding; a sealer will not issue one it would refuse
  const small = new RequestStateSealer({ secret: SECRET, maxLength: 200 });
  assert.is(
    reason(() => small.verifyRequestState('A'.repeat(201), 'tools/call')),
    'too_large',
  );
  assert.is(
    reason(() => s.verifyRequestState('A'.repeat(70_000), 'tools/call')),
    'too_large',
  );
  assert.throws(() => small.seal('tools/call', 'x'.repeat(200)), /more than maxLength 200/);
  // a flipped MAC bit
  const good = Buffer.from(old.seal('tools/call', 1), 'base64url');
  good[10] ^= 1;
  assert.is(
    reason(() => old.verifyRequestState(good.toString('base64url'), 'tools/call')),
    'tampered',
  );
  assert.throws(() => new RequestStateSealer({ secret: 'too-short' }), /at least 32 bytes, not 9/);
});

test('ServerSession.requestState: a handler sealing with its ctx gets the binding without naming it', async () => {
  const f = new ServerFeatures();
  const confirm = inputRequest.elicit({
    message: 'ok?',
    requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } },
  });
  for (const name of ['transfer', 'delete_all']) {
    f.tool({
      name,
      handler: (_a, ctx) => {
        const sealer = (ctx.session as ServerSession<ProtocolMaps>).requestState;
        const state = sealer.open<{ tool: string }>(ctx);
        if (!state)
          return inputRequired({
            inputRequests: { ok: confirm },
            requestState: sealer.seal(ctx, { tool: name }),
          }) as never;
        return `${name} done (state of ${state.tool}, answered ${Object.keys(readInput(ctx.params).inputResponses).join(',')})`;
      },
    });
  }
  const server = new draft.Server({
    serverInfo: { name: 's', version: '1' },
    capabilities: f.capabilities(),
    handlers: f.handlers({ table: draft.table }) as never,
    requestStateSecret: SECRET,
  });
  const client = new draft.Client({
    clientInfo: { name: 'c', version: '1' },
    capabilities: { elicitation: {} } as never,
  });
  const [a, b] = createMemoryPair();
  await server.connect(b);
  await client.connect(a);
  const first = await client.peer.request<Obj>('tools/call', { name: 'transfer', arguments: {}, _meta: M });
  assert.is(first.resultType, 'input_required');
  const crossed = await client.peer
    .request('tools/call', {
      name: 'delete_all',
      arguments: {},
      requestState: first.requestState,
      inputResponses: { ok: { action: 'accept', content: {} } },
      _meta: M,
    })
    .then(
      () => undefined,
      (e: { code: number; data: unknown }) => e,
    );
  assert.is(crossed?.code, -32602);
  assert.equal(crossed?.data, { reason: 'request' });
  const own = await client.peer.request<Obj>('tools/call', {
    name: 'transfer',
    arguments: {},
    requestState: first.requestState,
    inputResponses: { ok: { action: 'accept', content: {} } },
    _meta: M,
  });
  assert.equal(own.content, [{ type: 'text', text: 'transfer done (state of transfer, answered ok)' }]);
  await client.close();
});

test.run();
