/**
 * Multi round-trip requests end to end with the generated draft Client and Server: elicitation,
 * sampling and roots, several inputs in one round, several rounds, re-asking for a missing
 * answer, and sealed requestState (tampered, expired, other method, other binding).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { inputRequest, inputRequired, readInput, requireClientCapabilities } from '../../../runtime/stateless/mrtr.js';
import { InvalidRequestStateError, RequestStateSealer } from '../../../runtime/stateless/request-state.js';
import { RequestAbortedError, type RpcError } from '../../../runtime/jsonrpc/errors.js';
import { pair } from './harness.js';

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
};
const approveParams = {
  mode: 'form',
  message: 'Deploy?',
  requestedSchema: { type: 'object', properties: { approved: { type: 'boolean' } }, required: ['approved'] },
};
const sampleParams = { messages: [{ role: 'user', content: { type: 'text', text: 'Summarise' } }], maxTokens: 50 };
const text = (t: string) => ({ resultType: 'complete' as const, content: [{ type: 'text' as const, text: t }] });

/** The rejection of `p` (fails the test when it resolves). */
const failure = (p: Promise<unknown>): Promise<RpcError> =>
  p.then(
    () => {
      throw new Error('expected a failure');
    },
    (e: unknown) => e as RpcError,
  );

let clock = 1_000_000;
const sealer = new RequestStateSealer({
  secret: 'a-server-secret-of-at-least-32-bytes!',
  ttlMs: 60_000,
  now: () => clock,
});

const serverOptions = {
  serverInfo: { name: 's', version: '1' },
  capabilities: { tools: {}, prompts: {} },
  handlers: {
    'tools/call': (p: { name: string; inputResponses?: unknown; requestState?: string }) => {
      const { inputResponses, requestState } = readInput(p as never);
      if (p.name === 'deploy') {
        if (!requestState)
          return inputRequired({
            inputRequests: { approve: inputRequest.elicit(approveParams) },
            requestState: sealer.seal('tools/call', { step: 1 }),
          });
        const st = sealer.verifyRequestState<{ step: number; approved?: boolean }>(requestState, 'tools/call');
        if (st.step === 1) {
          const answer = inputResponses.approve as { action?: string; content?: { approved?: boolean } } | undefined;
          // a missing answer is asked for again (mrtr page, Error Handling)
          if (!answer)
            return inputRequired({ inputRequests: { approve: inputRequest.elicit(approveParams) }, requestState });
          if (!answer.content?.approved) return text('cancelled');
          return inputRequired({
            inputRequests: { summary: inputRequest.sample(sampleParams) },
            requestState: sealer.seal('tools/call', { step: 2 }),
          });
        }
        const summary = inputResponses.summary as { content: { text: string } };
        return text(`deployed: ${summary.content.text}`);
      }
      if (p.name === 'all') {
        if (!requestState) {
          return inputRequired({
            inputRequests: {
              who: inputRequest.elicit({ ...approveParams, message: 'Who?' }),
              llm: inputRequest.sample(sampleParams),
              roots: inputRequest.roots(),
            },
            requestState: sealer.seal('tools/call', null, { binding: 'all' }),
          });
        }
        sealer.verifyRequestState(requestState, 'tools/call', { binding: 'all' });
        const roots = (inputResponses.roots as { roots: Array<{ uri: string }> }).roots.map((r) => r.uri);
        return text(`${Object.keys(inputResponses).sort().join(',')} ${roots.join(',')}`);
      }
      return text('plain');
    },
    'prompts/get': (p: { requestState?: string }) => {
      if (p.requestState) sealer.verifyRequestState(p.requestState, 'prompts/get');
      return { resultType: 'complete', messages: [] };
    },
  },
} as never;

const elicited: string[] = [];
const clientOptions = {
  capabilities: { elicitation: { form: {} }, sampling: {}, roots: {} },
  handlers: {
    'elicitation/create': (p: { message: string }) => {
      elicited.push(p.message);
      return { action: 'accept' as const, content: { approved: true } };
    },
    'sampling/createMessage': () => ({
      role: 'assistant' as const,
      content: { type: 'text' as const, text: 'all good' },
      model: 'test-model',
    }),
    'roots/list': () => ({ roots: [{ uri: 'file:///work', name: 'work' }] }),
  },
} as never;

test('mrtr: elicitation, then sampling in a second round, then the result', async () => {
  elicited.length = 0;
  const { client } = await pair(serverOptions, clientOptions);
  const res = await client.callTool({ name: 'deploy' });
  assert.equal(res.content, [{ type: 'text', text: 'deployed: all good' }]);
  assert.equal(elicited, ['Deploy?']);
  await client.close();
});

test('mrtr: elicitation, sampling and roots answered in one round, keyed like the requests', async () => {
  const { client } = await pair(serverOptions, clientOptions);
  const res = await client.callTool({ name: 'all' });
  assert.equal(res.content, [{ type: 'text', text: 'llm,roots,who file:///work' }]);
  await client.close();
});

test('mrtr: a retry without the answer is asked again; a declined elicitation ends the call', async () => {
  const { client } = await pair(serverOptions, clientOptions);
  const state = sealer.seal('tools/call', { step: 1 });
  const again = await client.peer.request<Record<string, unknown>>('tools/call', {
    name: 'deploy',
    requestState: state,
    _meta: META,
  });
  assert.is(again.resultType, 'input_required');
  assert.ok((again.inputRequests as Record<string, unknown>).approve);
  const declined = await client.peer.request<Record<string, unknown>>('tools/call', {
    name: 'deploy',
    requestState: state,
    inputResponses: { approve: { action: 'decline' } },
    _meta: META,
  });
  assert.equal(declined.content, [{ type: 'text', text: 'cancelled' }]);
  await client.close();
});

test('mrtr: tampered, expired, other-method and other-binding requestState get -32602', async () => {
  const { client } = await pair(serverOptions, clientOptions);
  const call = (name: string, requestState: string) =>
    failure(client.peer.request('tools/call', { name, requestState, _meta: META }));
  const good = sealer.seal('tools/call', { step: 2 });
  const bytes = Buffer.from(good, 'base64url');
  bytes[bytes.length - 3] ^= 1;
  const tampered = await call('deploy', bytes.toString('base64url'));
  assert.is(tampered.code, -32602);
  assert.equal(tampered.data, { reason: 'tampered' });
  assert.equal((await call('deploy', 'not base64 !')).data, { reason: 'malformed' });
  assert.equal((await call('deploy', 'AAAA')).data, { reason: 'malformed' });
  const forged = new RequestStateSealer({ secret: 'another-secret-another-secret-xx' }).seal('tools/call', { step: 2 });
  assert.equal((await call('deploy', forged)).data, { reason: 'tampered' });
  clock += 60_001;
  const expired = await call('deploy', good);
  assert.equal(expired.data, { reason: 'expired' });
  assert.match(expired.message, /Invalid requestState for tools\/call: expired/);
  const fresh = sealer.seal('tools/call', null);
  const other = await failure(client.peer.request('prompts/get', { name: 'p', requestState: fresh, _meta: META }));
  assert.is(other.code, -32602);
  assert.equal(other.data, { reason: 'method' });
  assert.equal((await call('all', fresh)).data, { reason: 'binding' });
  await client.close();
});

test('mrtr: sealer round trip, per-server random secret, ttl override', () => {
  const s = new RequestStateSealer({ now: () => 0 });
  const t = s.seal('tools/call', { a: [1, 'x'] }, { ttlMs: 10 });
  assert.match(t, /^[A-Za-z0-9_-]+$/);
  assert.equal(s.verifyRequestState(t, 'tools/call'), { a: [1, 'x'] });
  assert.throws(
    () => new RequestStateSealer().verifyRequestState(t, 'tools/call'),
    (e: unknown) => e instanceof InvalidRequestStateError && e.reason === 'tampered',
  );
  assert.throws(() => new RequestStateSealer({ now: () => 10 }).verifyRequestState(t, 'tools/call'));
  assert.throws(() => new RequestStateSealer({ secret: '' }), /empty/);
});

test('mrtr: ServerSession.requestState uses requestStateSecret, so instances sharing it accept each other', async () => {
  const { server: s1 } = await pair({
    serverInfo: { name: 'a', version: '1' },
    requestStateSecret: 'shared-secret-shared-secret-shared',
  } as never);
  const { server: s2 } = await pair({
    serverInfo: { name: 'b', version: '1' },
    requestStateSecret: 'shared-secret-shared-secret-shared',
  } as never);
  const { server: s3 } = await pair({ serverInfo: { name: 'c', version: '1' } } as never);
  const st = s1.requestState.seal('tools/call', 7);
  assert.is(s2.requestState.verifyRequestState(st, 'tools/call'), 7);
  assert.throws(() => s3.requestState.verifyRequestState(st, 'tools/call'));
});

test('mrtr: aborting while the user answers sends no retry and rejects with RequestAbortedError', async () => {
  const ac = new AbortController();
  let calls = 0;
  const { client } = await pair(
    {
      serverInfo: { name: 's', version: '1' },
      capabilities: { tools: {} },
      handlers: {
        'tools/call': () => (calls++, inputRequired({ inputRequests: { a: inputRequest.elicit(approveParams) } })),
      },
    } as never,
    {
      capabilities: { elicitation: {} },
      handlers: {
        'elicitation/create': (_p: unknown, ctx: { signal: AbortSignal }) => {
          assert.is(ctx.signal, ac.signal);
          ac.abort('user closed the dialog');
          return { action: 'cancel' };
        },
      },
    } as never,
  );
  const err = await failure(client.callTool({ name: 'x' }, { signal: ac.signal }));
  assert.instance(err, RequestAbortedError);
  assert.match(err.message, /user closed the dialog/);
  assert.is(calls, 1);
  await client.close();
});

test('-32021: a handler requiring a capability the request did not declare', async () => {
  const { client } = await pair(
    {
      serverInfo: { name: 's', version: '1' },
      capabilities: { tools: {} },
      handlers: {
        'tools/call': (_p: unknown, ctx: never) => {
          requireClientCapabilities(ctx, { elicitation: {}, roots: {} });
          return text('ok');
        },
      },
    } as never,
    { capabilities: { roots: {} } },
  );
  const err = await failure(client.callTool({ name: 'x' }));
  assert.is(err.code, -32021);
  assert.equal(err.data, { requiredCapabilities: { elicitation: {} } });
  await client.close();
  const { client: c2 } = await pair(
    {
      serverInfo: { name: 's', version: '1' },
      capabilities: { tools: {} },
      handlers: {
        'tools/call': (_p: unknown, ctx: never) => (requireClientCapabilities(ctx, { elicitation: {} }), text('ok')),
      },
    } as never,
    { capabilities: { elicitation: {} } },
  );
  assert.equal((await c2.callTool({ name: 'x' })).content, [{ type: 'text', text: 'ok' }]);
  await c2.close();
});

test.run();
