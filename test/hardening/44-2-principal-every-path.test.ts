/**
 * Issue 44, finding 2: the principal (`ctx.auth`, the verified token of the request) and the
 * session reach every handler on every path of a protected dual-era endpoint: a plain call and
 * a 2025-11-25 task in the legacy era; a plain call, a tasks-extension task, both rounds of an
 * input-required exchange and a subscription's URI check in the modern era. Two principals
 * call at once and never see each other's identity. A task's context was made by copying the
 * request context's fields, which dropped what it serves through getters (`auth`, `session`): a
 * protected tool ran as nobody exactly when the client asked for a task.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as v2025 from '../../generated/2025-11-25/index.js';
import * as v2026 from '../../generated/2026-07-28/index.js';
import type { RequestContext } from '../../runtime/engine/peer.js';
import type { Authorizer } from '../../runtime/auth/types.js';
import { ServerFeatures } from '../../runtime/features/server-features.js';
import { createDualEraHttpHandler } from '../../runtime/stateless/dual-era.js';
import { inputRequest, inputRequired, readInput } from '../../runtime/stateless/mrtr.js';
import { attachTaskReceiver } from '../../runtime/tasks/receiver.js';
import { callWithTask } from '../../runtime/tasks/requestor.js';
import { InMemoryTaskStore } from '../../runtime/stores/tasks.js';
import { isCreateTaskResult, TasksExtensionClient } from '../../runtime/tasks/extension-client.js';
import { TASKS_EXTENSION, TasksExtension } from '../../runtime/tasks/extension.js';
import { createStreamableHttpHandler } from '../../runtime/transport/http/session/server.js';
import { createStatelessHttpHandler } from '../../runtime/transport/http/stateless/server.js';
import { HttpClientTransport } from '../../runtime/transport/http/session/node-client.js';
import { StatelessHttpClientTransport } from '../../runtime/transport/http/stateless/node-client.js';

/** `Authorization: Bearer <name>` is the principal <name> (names of letters only). */
const authorize: Authorizer = async ({ headers }) => {
  const m = /^Bearer ([a-z]+)$/.exec(headers.authorization ?? '');
  if (!m) return { refusal: { status: 401, code: -32000, message: 'Unauthorized' } };
  return { auth: { token: m[1], subject: m[1], scopes: [], claims: { sub: m[1] } } };
};

/** What a handler knows of its caller: `ctx.auth`, `ctx.info.auth`, and whether it has the session. */
const who = (ctx: RequestContext): string =>
  `${ctx.auth?.subject}|${ctx.info?.auth?.subject}|${ctx.session ? 'session' : 'no session'}`;
const text = (t: string) => ({ content: [{ type: 'text' as const, text: t }] });
const textOf = (r: unknown): string => ((r as { content: { text: string }[] }).content[0] ?? { text: '' }).text;

/** The rounds of the input-required tool and the listen requests' URI checks, by principal. */
const rounds: string[] = [];
const subscribeChecks: string[] = [];

let http: HttpServer;
let url = '';
let close: () => Promise<void>;

test.before(async () => {
  // ---- modern era (2026-07-28): one server for every request ----
  const tasks = new TasksExtension<v2026.Protocol>({
    table: v2026.table,
    tools: { whoami: 'optional' },
    pollIntervalMs: 10,
  });
  const modernFeatures = new ServerFeatures<v2026.Protocol>();
  modernFeatures.tool({
    name: 'whoami',
    inputSchema: { type: 'object' },
    handler: (_a, ctx) => tasks.run(ctx, async (task) => text(`${who(task)} ${task.taskId ? 'task' : 'inline'}`)),
  });
  modernFeatures.tool({
    name: 'ask',
    inputSchema: { type: 'object' },
    handler: (_a, ctx) => {
      const answer = readInput(ctx.params).inputResponses.name as { content?: { name?: string } } | undefined;
      rounds.push(`${answer ? 'retry' : 'first'}:${who(ctx)}`);
      if (!answer)
        return inputRequired({
          inputRequests: {
            name: inputRequest.elicit({
              mode: 'form',
              message: 'name?',
              requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
            }),
          },
        }) as never;
      return text(`${who(ctx)} ${answer.content?.name}`);
    },
  });
  modernFeatures.resource({
    uri: 'notes://alice',
    name: 'alice notes',
    read: (uri) => [{ uri, text: 'a' }],
  });
  const modernServer = new v2026.Server({
    serverInfo: { name: 'who', version: '1' },
    capabilities: tasks.capabilities(modernFeatures.capabilities()),
    handlers: tasks.handlers(modernFeatures.handlers({ table: v2026.table })),
    extensionMethods: tasks.methods,
    canSubscribe: (uri, ctx) => {
      subscribeChecks.push(`${uri}:${who(ctx)}`);
      return uri === `notes://${ctx.auth?.subject}`;
    },
  });
  modernFeatures.attach(modernServer);
  const modern = createStatelessHttpHandler({
    tables: [v2026.table],
    toolSchema: (name) => modernFeatures.inputSchema(name),
    authorize,
  });
  await modernServer.connect(modern.transport);

  // ---- legacy era (2025-11-25): a server per session, tasks in one store ----
  const store = new InMemoryTaskStore();
  const legacyFeatures = new ServerFeatures<v2025.Protocol>();
  legacyFeatures.tool({
    name: 'whoami',
    inputSchema: { type: 'object' },
    execution: { taskSupport: 'optional' },
    handler: (_a, ctx) => text(who(ctx)),
  });
  const legacy = createStreamableHttpHandler({
    tables: [v2025.table],
    authorize,
    onSession: async (transport) => {
      const server = new v2025.Server({
        serverInfo: { name: 'who', version: '1' },
        capabilities: legacyFeatures.capabilities(),
        handlers: legacyFeatures.handlers({ table: v2025.table }),
      });
      attachTaskReceiver(server, { store, pollInterval: 10 });
      await server.connect(transport);
    },
  });
  const handler = createDualEraHttpHandler({ modern, legacy });
  http = createServer((req, res) => void handler(req, res));
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  close = async () => {
    await handler.close();
    http.closeAllConnections();
    await new Promise<void>((r) => http.close(() => r()));
  };
});

test.after(async () => {
  await close();
});

const headers = (name: string) => ({ Authorization: `Bearer ${name}` });

test('legacy era: a plain call and a 2025-11-25 task see the principal and the session', async () => {
  const run = async (name: string) => {
    const client = new v2025.Client({ clientInfo: { name, version: '0' } });
    await client.connect(new HttpClientTransport({ url, headers: headers(name) }));
    const plain = textOf(await client.callTool({ name: 'whoami', arguments: {} }));
    const handle = await callWithTask(
      client,
      'tools/call',
      { name: 'whoami', arguments: {} },
      { task: { ttl: 60_000 } },
    );
    assert.ok(handle.taskId, 'the call became a task');
    const asTask = textOf(await handle.result());
    await client.close();
    return [plain, asTask];
  };
  const [alice, bob] = await Promise.all([run('alice'), run('bob')]);
  assert.equal(alice, ['alice|alice|session', 'alice|alice|session']);
  assert.equal(bob, ['bob|bob|session', 'bob|bob|session']);
});

test('modern era: a plain call, a tasks-extension task and both input-required rounds see the principal', async () => {
  const run = async (name: string) => {
    const client = new v2026.Client({
      clientInfo: { name, version: '0' },
      capabilities: { elicitation: { form: {} }, extensions: { [TASKS_EXTENSION]: {} } },
      handlers: { 'elicitation/create': () => ({ action: 'accept', content: { name: `${name}!` } }) },
    });
    await client.connect(new StatelessHttpClientTransport({ url, headers: headers(name) }));
    const answer = await client.callTool({ name: 'whoami', arguments: {} });
    assert.ok(isCreateTaskResult(answer), 'the call became a task');
    const asTask = textOf(await new TasksExtensionClient(client).result(answer));
    const asked = textOf(await client.callTool({ name: 'ask', arguments: {} }));
    await client.close();
    return [asTask, asked];
  };
  rounds.length = 0;
  const [alice, bob] = await Promise.all([run('alice'), run('bob')]);
  assert.equal(alice, ['alice|alice|session task', 'alice|alice|session alice!']);
  assert.equal(bob, ['bob|bob|session task', 'bob|bob|session bob!']);
  assert.equal(
    rounds.sort(),
    ['first:alice|alice|session', 'first:bob|bob|session', 'retry:alice|alice|session', 'retry:bob|bob|session'].sort(),
  );
});

test("modern era: a listen request's URI check sees its principal (alice may subscribe to her notes, bob may not)", async () => {
  subscribeChecks.length = 0;
  const granted: Record<string, unknown> = {};
  for (const name of ['alice', 'bob']) {
    const client = new v2026.Client({ clientInfo: { name, version: '0' } });
    await client.connect(new StatelessHttpClientTransport({ url, headers: headers(name) }));
    const sub = client.listen({ resourceSubscriptions: ['notes://alice'] });
    granted[name] = await sub.acknowledged;
    await sub.close();
    await client.close();
  }
  assert.equal(granted, { alice: { resourceSubscriptions: ['notes://alice'] }, bob: {} });
  assert.equal(subscribeChecks, ['notes://alice:alice|alice|session', 'notes://alice:bob|bob|session']);
});

test.run();
