/**
 * Many sessions of one server definition (reference/server.ts `referenceDefinition`,
 * one options object) over the memory pair, 2025-11-25: each session keeps its own negotiated
 * client, logging level (server/utilities/logging), sampling and elicitation peer, and task
 * receiver; the handler tables are shared.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Client, Server } from '../../../generated/2025-11-25/index.js';
import { type ServerClass, referenceDefinition } from '../../../reference/server.js';
import { attachTaskReceiver } from '../../../runtime/tasks/receiver.js';
import { createMemoryPair } from '../../../runtime/transport/memory.js';

const definition = () => referenceDefinition(Server as unknown as ServerClass, { progressDelayMs: 0 });

async function open(d: ReturnType<typeof definition>, name: string) {
  const [a, b] = createMemoryPair();
  const server = d.createSession();
  await server.connect(b);
  const logs: unknown[] = [];
  const client = new Client({
    clientInfo: { name, version: '1' },
    capabilities: { sampling: {}, elicitation: { form: {} } },
    handlers: {
      'sampling/createMessage': () => ({
        role: 'assistant',
        model: name,
        content: { type: 'text', text: `from ${name}` },
      }),
      'elicitation/create': () => ({ action: 'accept', content: { username: name, email: `${name}@example.com` } }),
    },
    notificationHandlers: { 'notifications/message': (p) => void logs.push(p.data) },
  });
  await client.connect(a);
  return { server, client, logs };
}

const textOf = (r: { content: unknown[] }) => (r.content[0] as { text: string }).text;

test('sessions of one definition share handler tables and keep their own client, log level, sampling and elicitation', async () => {
  const d = definition();
  const a = await open(d, 'alpha');
  const b = await open(d, 'beta');
  assert.is(a.server.options.handlers, b.server.options.handlers, 'one handler table');
  assert.is(a.server.client?.clientInfo?.name, 'alpha');
  assert.is(b.server.client?.clientInfo?.name, 'beta');

  await a.client.setLevel({ level: 'error' });
  await a.client.callTool({ name: 'test_tool_with_logging', arguments: {} });
  await b.client.callTool({ name: 'test_tool_with_logging', arguments: {} });
  await new Promise((r) => setTimeout(r, 10));
  assert.equal(a.logs, [], 'alpha set level error: info messages filtered');
  assert.equal(b.logs, ['Tool execution started', 'Tool processing data', 'Tool execution completed']);

  const [sa, sb] = await Promise.all([
    a.client.callTool({ name: 'test_sampling', arguments: { prompt: 'hi' } }),
    b.client.callTool({ name: 'test_sampling', arguments: { prompt: 'hi' } }),
  ]);
  assert.is(textOf(sa as never), 'LLM response: from alpha');
  assert.is(textOf(sb as never), 'LLM response: from beta');
  const [ea, eb] = await Promise.all([
    a.client.callTool({ name: 'test_elicitation', arguments: { message: 'who?' } }),
    b.client.callTool({ name: 'test_elicitation', arguments: { message: 'who?' } }),
  ]);
  assert.match(textOf(ea as never), /"username":"alpha"/);
  assert.match(textOf(eb as never), /"username":"beta"/);
  await a.client.close();
  await b.client.close();
});

test('a task receiver attached to one session of a definition leaves the others without tasks', async () => {
  // without the reference task tools, which declare tasks on every session
  const d = referenceDefinition(Server as unknown as ServerClass, { progressDelayMs: 0, taskTools: false });
  const withTasks = d.createSession();
  attachTaskReceiver(withTasks, { methods: ['tools/call'] });
  const plain = d.createSession();
  assert.ok(withTasks.options.capabilities?.tasks, 'the receiver declared tasks on its session');
  assert.not.ok(plain.options.capabilities?.tasks, 'the other session declares none');
  assert.not.ok(d.options.capabilities?.tasks, 'the definition is unchanged');
  assert.is.not(withTasks.options.handlers, plain.options.handlers);
  assert.is(plain.options.handlers, d.options.handlers);
  const [a1, b1] = createMemoryPair();
  const [a2, b2] = createMemoryPair();
  await withTasks.connect(b1);
  await plain.connect(b2);
  const c1 = new Client({ clientInfo: { name: 'c1', version: '1' } });
  const c2 = new Client({ clientInfo: { name: 'c2', version: '1' } });
  assert.ok((await c1.connect(a1)).capabilities.tasks);
  assert.not.ok((await c2.connect(a2)).capabilities.tasks);
  const refused = await c2.request('tasks/list' as never, {} as never).then(
    () => undefined,
    (e: { code?: number }) => e.code,
  );
  assert.is(refused, -32601);
  await c1.close();
  await c2.close();
});

test.run();
