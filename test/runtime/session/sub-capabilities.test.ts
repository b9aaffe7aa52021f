/**
 * Sub-capabilities a request's params need (runtime/protocol/table.ts `missingParamCapability`):
 * a URL-mode elicitation needs `elicitation.url`, a form one `elicitation.form` (an empty
 * `elicitation: {}` is form), sampling with `tools` needs `sampling.tools`. A 2025-11-25 server
 * refuses to send them locally (-32601, nothing sent), a client answers one it did not declare
 * with -32602, and in the stateless revisions an input_required result asking for one gets -32021
 * naming the sub-capability, and a client never answers one.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Client, Server } from '../../../generated/2025-11-25/index.js';
import { Client as DraftClient } from '../../../generated/draft/index.js';
import { CapabilityNotDeclaredError, RpcError } from '../../../runtime/jsonrpc/errors.js';
import { createMemoryPair } from '../../../runtime/transport/memory.js';
import { missingParamCapability } from '../../../runtime/protocol/table.js';
import { inputRequest, inputRequired } from '../../../runtime/stateless/mrtr.js';
import { pair, scriptedServer } from '../stateless/harness.js';

const url = { mode: 'url' as const, message: 'Sign in', url: 'https://example.com/login', elicitationId: 'e1' };
const form = {
  mode: 'form' as const,
  message: 'Name?',
  requestedSchema: { type: 'object' as const, properties: { name: { type: 'string' as const } } },
};
const sampling = {
  messages: [{ role: 'user' as const, content: { type: 'text' as const, text: 'hi' } }],
  maxTokens: 5,
};
const withTools = { ...sampling, tools: [{ name: 'lookup', inputSchema: { type: 'object' as const } }] };

test('missingParamCapability: modes, the empty elicitation object, sampling tools', () => {
  assert.equal(missingParamCapability('elicitation/create', url, { elicitation: { form: {} } }), [
    'elicitation',
    'url',
  ]);
  assert.equal(missingParamCapability('elicitation/create', form, { elicitation: { url: {} } }), [
    'elicitation',
    'form',
  ]);
  assert.is(missingParamCapability('elicitation/create', form, { elicitation: {} }), undefined);
  assert.is(
    missingParamCapability(
      'elicitation/create',
      { message: 'm', requestedSchema: form.requestedSchema },
      { elicitation: {} },
    ),
    undefined,
  );
  assert.equal(missingParamCapability('elicitation/create', url, { elicitation: {} }), ['elicitation', 'url']);
  assert.is(missingParamCapability('elicitation/create', url, { elicitation: { url: {} } }), undefined);
  assert.equal(missingParamCapability('sampling/createMessage', withTools, { sampling: {} }), ['sampling', 'tools']);
  assert.is(missingParamCapability('sampling/createMessage', withTools, { sampling: { tools: {} } }), undefined);
  assert.is(missingParamCapability('sampling/createMessage', sampling, { sampling: {} }), undefined);
  assert.is(missingParamCapability('roots/list', {}, {}), undefined);
});

async function connected(capabilities: Record<string, unknown>) {
  const asked: string[] = [];
  const server = new Server({ serverInfo: { name: 's', version: '1' }, capabilities: {} });
  const client = new Client({
    clientInfo: { name: 'c', version: '1' },
    capabilities,
    handlers: {
      'elicitation/create': (p) => (asked.push(p.mode ?? 'form'), { action: 'accept' }),
      'sampling/createMessage': (p) => (
        asked.push(p.tools ? 'tools' : 'plain'), { role: 'assistant', model: 'm', content: { type: 'text', text: 'x' } }
      ),
    },
  });
  const [a, b] = createMemoryPair();
  await server.connect(b);
  await client.connect(a);
  return { server, client, asked };
}

test('2025-11-25 server: a mode or tools the client did not declare are refused locally (-32601), nothing sent', async () => {
  const { server, client, asked } = await connected({ elicitation: { form: {} }, sampling: {} });
  const e = (await server.elicit(url).catch((x: unknown) => x)) as CapabilityNotDeclaredError;
  assert.instance(e, CapabilityNotDeclaredError);
  assert.is(e.code, -32601);
  assert.equal(e.data, { method: 'elicitation/create', capability: 'elicitation.url' });
  const t = (await server.createMessage(withTools).catch((x: unknown) => x)) as CapabilityNotDeclaredError;
  assert.equal(t.data, { method: 'sampling/createMessage', capability: 'sampling.tools' });
  assert.equal(await server.elicit(form), { action: 'accept' });
  await server.createMessage(sampling);
  assert.equal(asked, ['form', 'plain'], 'only the declared ones reached the client');
  await client.close();
});

test('2025-11-25 client: answers an elicitation of an undeclared mode with -32602, its handler not called', async () => {
  const { server, client, asked } = await connected({ elicitation: {} });
  server.peer.setRemoteCapabilities({ elicitation: { form: {}, url: {} } }); // a server that ignores what the client declared
  const e = (await server.elicit(url).catch((x: unknown) => x)) as RpcError;
  assert.instance(e, RpcError);
  assert.is(e.code, -32602);
  assert.equal(e.data, { capability: 'elicitation.url' });
  assert.equal(await server.elicit(form), { action: 'accept' }, 'an empty elicitation object accepts form mode');
  assert.equal(asked, ['form']);
  await client.close();
});

test('stateless: input_required asking for an undeclared mode gets -32021 naming it; a client never answers one', async () => {
  const { client } = await pair(
    {
      serverInfo: { name: 's', version: '1' },
      capabilities: { tools: {} },
      handlers: { 'tools/call': () => inputRequired({ inputRequests: { login: inputRequest.elicit(url) } }) },
    } as never,
    {
      capabilities: { elicitation: { form: {} } },
      handlers: { 'elicitation/create': () => ({ action: 'accept' }) },
    } as never,
  );
  const e = (await client.callTool({ name: 'x', arguments: {} }).catch((x: unknown) => x)) as RpcError;
  assert.is(e.code, -32021);
  assert.equal(e.data, { requiredCapabilities: { elicitation: { url: {} } } });
  await client.close();
  let answered = 0;
  const { transport, seen } = await scriptedServer(() => ({
    resultType: 'input_required',
    inputRequests: { login: { method: 'elicitation/create', params: url } },
  }));
  const modern = new DraftClient({
    clientInfo: { name: 'c', version: '1' },
    capabilities: { elicitation: { form: {} } },
    handlers: { 'elicitation/create': () => (answered++, { action: 'accept' }) },
  });
  await modern.connect(transport);
  const refused = (await modern.callTool({ name: 'x', arguments: {} }).catch((x: unknown) => x)) as RpcError;
  assert.is(refused.code, -32603);
  assert.match(refused.message, /did not declare capability elicitation\.url/);
  assert.is(answered, 0);
  assert.is(seen.filter((r) => r.method === 'tools/call').length, 1, 'no retry was sent');
  await modern.close();
});

test.run();
