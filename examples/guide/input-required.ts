// Guide: input-required (docs/guide/input-required.md). Draft multi round-trip requests over
// stateless HTTP: a tool answers input_required, the client answers the embedded requests and
// retries with the sealed requestState, until the tool completes.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RpcError, ServerFeatures } from '@mcpgen/runtime';
import { StatelessHttpClientTransport, createStatelessHttpHandler } from '@mcpgen/runtime/http/stateless';
import { inputRequest, inputRequired, readInput } from '@mcpgen/runtime/stateless';
import {
  Client,
  Server,
  table,
  type ElicitResult,
  type CreateMessageResult,
  type InputRequiredResult,
  type Protocol,
} from '../../generated/draft/index.js';

// ---- the server ----
const features = new ServerFeatures<Protocol>();
features.tool({
  name: 'deploy',
  inputSchema: { type: 'object', properties: { service: { type: 'string' } }, required: ['service'] },
  handler: async ({ service }, ctx) => {
    const { inputResponses } = readInput(ctx.params);
    // what earlier rounds established, verified: sealed for this tool, this server, 5 minutes
    const state = server.requestState.open<{ step: 'confirm' | 'notes'; approvedBy?: string }>(ctx);
    if (!state) {
      return inputRequired<InputRequiredResult>({
        inputRequests: {
          confirm: inputRequest.elicit({
            mode: 'form',
            message: `Deploy ${service} to production?`,
            requestedSchema: { type: 'object', properties: { approver: { type: 'string' } }, required: ['approver'] },
          }),
        },
        requestState: server.requestState.seal(ctx, { step: 'confirm' }),
      });
    }
    if (state.step === 'confirm') {
      const answer = inputResponses.confirm as ElicitResult | undefined;
      if (answer?.action !== 'accept') return { content: [{ type: 'text', text: `${service}: not deployed` }] };
      return inputRequired<InputRequiredResult>({
        inputRequests: {
          notes: inputRequest.sample({
            messages: [{ role: 'user', content: { type: 'text', text: `Release notes for ${service}` } }],
            maxTokens: 100,
          }),
        },
        requestState: server.requestState.seal(ctx, { step: 'notes', approvedBy: String(answer.content?.approver) }),
      });
    }
    const notes = inputResponses.notes as CreateMessageResult;
    const block = Array.isArray(notes.content) ? notes.content[0] : notes.content;
    const text = block?.type === 'text' ? block.text : '';
    return { content: [{ type: 'text', text: `${service} deployed, approved by ${state.approvedBy}: ${text}` }] };
  },
});
features.tool({
  name: 'status',
  inputSchema: { type: 'object' },
  handler: (_args, ctx) => {
    server.requestState.open(ctx); // no rounds of its own, but a state sent here is checked too
    return 'all green';
  },
});

const server = new Server({
  serverInfo: { name: 'deployer', version: '1.0.0' },
  capabilities: features.capabilities(),
  handlers: features.handlers({ table }),
  requestStateSecret: 'a shared secret of at least 32 bytes!!', // every process of the endpoint: the same one
});
const endpoint = createStatelessHttpHandler({ tables: [table], toolSchema: (name) => features.inputSchema(name) });
await server.connect(endpoint.transport);
const http = createServer(endpoint);
await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;

// ---- the client: its handlers answer the embedded requests; retries are automatic ----
// every HTTP request the client sends, and what each tools/call carried
const methods: string[] = [];
const posted: { id: unknown; requestState?: string; inputResponses?: Record<string, unknown> }[] = [];
const recording: typeof fetch = async (input, init) => {
  const body = JSON.parse(String(init?.body)) as {
    id: unknown;
    method: string;
    params: { requestState?: string; inputResponses?: Record<string, unknown> };
  };
  methods.push(body.method);
  if (body.method === 'tools/call')
    posted.push({ id: body.id, requestState: body.params.requestState, inputResponses: body.params.inputResponses });
  return fetch(input, init);
};
const client = new Client({
  clientInfo: { name: 'ops-console', version: '1.0.0' },
  capabilities: { elicitation: { form: {} }, sampling: {} }, // sent in every request's _meta
  handlers: {
    'elicitation/create': () => ({ action: 'accept', content: { approver: 'ada' } }),
    'sampling/createMessage': () => ({
      role: 'assistant',
      model: 'local-model',
      content: { type: 'text', text: 'fixes the login bug' },
    }),
  },
});
await client.connect(new StatelessHttpClientTransport({ url, fetch: recording }));

const result = await client.callTool({ name: 'deploy', arguments: { service: 'api' } });
assert.deepEqual(result.content, [{ type: 'text', text: 'api deployed, approved by ada: fixes the login bug' }]);

// The call made four HTTP requests: the call and its two retries, each with its own JSON-RPC id
// (each retry echoes the last requestState), then tools/list for the tool's outputSchema, which
// the client checks the result against (server/discover went before, when connecting).
assert.deepEqual(methods, ['server/discover', 'tools/call', 'tools/call', 'tools/call', 'tools/list']);
assert.equal(posted.length, 3);
assert.equal(new Set(posted.map((p) => p.id)).size, 3);
assert.equal(posted[0].requestState, undefined);
assert.deepEqual(posted[1].inputResponses, { confirm: { action: 'accept', content: { approver: 'ada' } } });
assert.equal(typeof posted[1].requestState, 'string');
assert.deepEqual(Object.keys(posted[2].inputResponses ?? {}), ['notes']);
assert.notEqual(posted[2].requestState, posted[1].requestState);

// A state that was altered, or sealed for another tool, is refused with -32602.
const forged = `${posted[2].requestState!.slice(0, -2)}AA`;
const tampered = await client
  .callTool({ name: 'deploy', arguments: { service: 'api' }, requestState: forged })
  .catch((e: unknown) => e);
assert.ok(tampered instanceof RpcError);
assert.equal(tampered.code, -32602);
assert.deepEqual(tampered.data, { reason: 'tampered' });
const elsewhere = await client
  .callTool({ name: 'status', arguments: {}, requestState: posted[1].requestState })
  .catch((e: unknown) => e);
assert.ok(elsewhere instanceof RpcError);
assert.deepEqual(elsewhere.data, { reason: 'request' });

// A client that cannot elicit is never sent the form: -32021 names the capability it lacks.
const bare = new Client({ clientInfo: { name: 'script', version: '1.0.0' } });
await bare.connect(new StatelessHttpClientTransport({ url }));
const missing = await bare.callTool({ name: 'deploy', arguments: { service: 'api' } }).catch((e: unknown) => e);
assert.ok(missing instanceof RpcError);
assert.equal(missing.code, -32021);
assert.deepEqual(missing.data, { requiredCapabilities: { elicitation: {} } });

await bare.close();
await client.close();
await server.close();
http.closeAllConnections();
await new Promise<void>((resolve) => http.close(() => resolve()));
console.log('ok input-required');
