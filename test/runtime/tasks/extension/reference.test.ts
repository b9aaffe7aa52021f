/**
 * The reference server's tasks-extension fixtures (reference/stateless.ts), the ones
 * the conformance suite's tasks scenarios call, on the generated draft Server: their task path
 * and the inline paths the suite does not reach (input_required rounds without the extension).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Server, table } from '../../../../generated/draft/index.js';
import { createReferenceServer } from '../../../../reference/server.js';
import { TASKS_EXTENSION } from '../../../../runtime/tasks/extension.js';
import { createMemoryPair } from '../../../../runtime/transport/memory.js';
import { rawClient, WITH_TASKS, WITHOUT_TASKS } from './support.js';

async function reference() {
  const { server } = createReferenceServer(Server as never, { table });
  const [a, b] = createMemoryPair();
  await server.connect(b);
  return { ...(await rawClient(a)), close: () => server.close() };
}
const accept = (content: Record<string, unknown>) => ({ action: 'accept', content });
const textOf = (r: Record<string, unknown>) => (r.content as Array<{ text: string }>)[0].text;

test('tools/list names every fixture; server/discover declares the extension', async () => {
  const s = await reference();
  const names = ((await s.call('tools/list')).tools as Array<{ name: string }>).map((t) => t.name);
  for (const n of [
    'greet',
    'slow_compute',
    'failing_job',
    'protocol_error_job',
    'confirm_delete',
    'multi_input',
    'test_tool_with_task',
  ])
    assert.ok(names.includes(n), n);
  assert.equal(((await s.call('server/discover')).capabilities as { extensions: unknown }).extensions, {
    [TASKS_EXTENSION]: {},
  });
  await s.close();
});

test('slow_compute: a task that completes; protocol_error_job: failed with -32603; greet: never a task', async () => {
  const s = await reference();
  const created = await s.call('tools/call', { name: 'slow_compute', arguments: { seconds: 0, label: 'now' } });
  assert.is(created.resultType, 'task');
  const done = await s.until(String(created.taskId));
  assert.is(done.status, 'completed');
  assert.is(textOf(done.result as Record<string, unknown>), 'slow_compute now: done after 0 s');
  const failed = await s.until(
    String((await s.call('tools/call', { name: 'protocol_error_job', arguments: {} })).taskId),
  );
  assert.is(failed.status, 'failed');
  assert.is((failed.error as { code: number }).code, -32603);
  assert.equal(await s.call('tools/call', { name: 'greet', arguments: { name: 'Ada' } }), {
    resultType: 'complete',
    content: [{ type: 'text', text: 'Hello, Ada!' }],
  });
  assert.is((await s.send('tools/call', { name: 'failing_job', arguments: {} }, WITHOUT_TASKS)).error?.code, -32021);
  await s.close();
});

test('confirm_delete and multi_input without the extension: input_required rounds, then the answer', async () => {
  const s = await reference();
  const round1 = await s.call(
    'tools/call',
    { name: 'confirm_delete', arguments: { filename: 'a.txt' } },
    WITHOUT_TASKS,
  );
  assert.is(round1.resultType, 'input_required');
  assert.equal(Object.keys(round1.inputRequests as object), ['confirm_delete']);
  assert.is('taskId' in round1, false);
  const yes = await s.call(
    'tools/call',
    {
      name: 'confirm_delete',
      arguments: { filename: 'a.txt' },
      inputResponses: { confirm_delete: accept({ confirm: true }) },
    },
    WITHOUT_TASKS,
  );
  assert.is(textOf(yes), 'Deleted a.txt');
  const no = await s.call(
    'tools/call',
    {
      name: 'confirm_delete',
      arguments: { filename: 'a.txt' },
      inputResponses: { confirm_delete: { action: 'decline' } },
    },
    WITHOUT_TASKS,
  );
  assert.is(textOf(no), 'Kept a.txt');
  const both = await s.call('tools/call', { name: 'multi_input', arguments: {} }, WITHOUT_TASKS);
  assert.equal(Object.keys(both.inputRequests as object).sort(), ['first_input', 'second_input']);
  const answered = await s.call(
    'tools/call',
    {
      name: 'multi_input',
      arguments: {},
      inputResponses: { first_input: accept({ name: 'Ada' }), second_input: accept({ ok: true }) },
    },
    WITHOUT_TASKS,
  );
  assert.is(textOf(answered), 'multi_input: name=Ada, confirmed=true');
  await s.close();
});

test('test_tool_with_task: input_required first (no taskId), then a task whose result names the answer', async () => {
  const s = await reference();
  const round1 = await s.call('tools/call', { name: 'test_tool_with_task', arguments: {} }, WITH_TASKS);
  assert.is(round1.resultType, 'input_required');
  assert.is('taskId' in round1, false);
  const round2 = await s.call(
    'tools/call',
    { name: 'test_tool_with_task', arguments: {}, inputResponses: { user_name: accept({ name: 'Alice' }) } },
    WITH_TASKS,
  );
  assert.is(round2.resultType, 'task');
  assert.is('requestState' in round2, false);
  const done = await s.until(String(round2.taskId));
  assert.match(textOf(done.result as Record<string, unknown>), /^Hello, Alice!/);
  await s.close();
});

test.run();
