import { execFileSync } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  InMemoryTaskStore,
  InvalidCursorError,
  TaskNotFoundError,
  TaskTransitionError,
  type TaskEvent,
  type TaskStatus,
  canTransition,
  isTerminal,
} from '../../../runtime/stores/tasks.js';

const ALL: TaskStatus[] = ['working', 'input_required', 'completed', 'failed', 'cancelled'];
const LEGAL = new Set([
  'working>working',
  'working>input_required',
  'working>completed',
  'working>failed',
  'working>cancelled',
  'input_required>input_required',
  'input_required>working',
  'input_required>completed',
  'input_required>failed',
  'input_required>cancelled',
]);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

/** A task of `owner` brought to `status` through legal moves. */
async function taskIn(store: InMemoryTaskStore, status: TaskStatus, owner = 'o') {
  const t = await store.create(owner, { ttl: null });
  if (status !== 'working') await store.update(owner, t.taskId, { status });
  return t.taskId;
}

test('canTransition: the table of legal moves (every pair)', () => {
  for (const from of ALL)
    for (const to of ALL) assert.is(canTransition(from, to), LEGAL.has(`${from}>${to}`), `${from} → ${to}`);
  assert.equal(ALL.filter(isTerminal), ['completed', 'failed', 'cancelled']);
});

for (const from of ALL) {
  for (const to of ALL) {
    const legal = LEGAL.has(`${from}>${to}`);
    test(`store: ${from} → ${to} is ${legal ? 'applied' : 'refused'}`, async () => {
      const store = new InMemoryTaskStore();
      const id = await taskIn(store, from);
      const before = (await store.get('o', id))!;
      await sleep(2);
      if (legal) {
        const after = await store.update('o', id, { status: to, statusMessage: 'msg' });
        assert.is(after.status, to);
        assert.is(after.statusMessage, 'msg');
        assert.ok(after.lastUpdatedAt > before.lastUpdatedAt, 'lastUpdatedAt moves');
        assert.is(after.createdAt, before.createdAt);
      } else {
        const err = await store.update('o', id, { status: to, statusMessage: 'msg' }).catch((e: unknown) => e);
        assert.instance(err, TaskTransitionError);
        assert.is((err as TaskTransitionError).code, -32602);
        assert.is((err as TaskTransitionError).from, from);
        assert.is((err as TaskTransitionError).to, to);
        assert.equal(await store.get('o', id), before, 'nothing changed');
      }
    });
  }
}

test('store: a new task is working with id, ISO timestamps, ttl (null kept), pollInterval', async () => {
  const store = new InMemoryTaskStore();
  const a = await store.create('o', { ttl: null, pollInterval: 500 });
  const b = await store.create('o', { ttl: 60_000, statusMessage: 'started' });
  assert.is(a.status, 'working');
  assert.type(a.taskId, 'string');
  assert.is.not(a.taskId, b.taskId);
  assert.match(a.createdAt, ISO);
  assert.is(a.createdAt, a.lastUpdatedAt);
  assert.ok('ttl' in a && a.ttl === null);
  assert.is(JSON.parse(JSON.stringify(a)).ttl, null, 'null survives the wire');
  assert.is(a.pollInterval, 500);
  assert.is(b.ttl, 60_000);
  assert.is(b.statusMessage, 'started');
  await assert.not.throws(() => store.create('o', { ttl: 0 }));
  const bad = await store.create('o', { ttl: -1 }).catch((e: unknown) => e);
  assert.instance(bad, RangeError);
});

test('store: the outcome is kept with the terminal status only; statusMessage null removes it', async () => {
  const store = new InMemoryTaskStore();
  const id = await taskIn(store, 'working');
  await store.update('o', id, {
    status: 'working',
    statusMessage: 'half',
    outcome: { kind: 'result', result: { x: 1 } },
  });
  assert.is(await store.outcome('o', id), undefined);
  await store.update('o', id, {
    status: 'completed',
    statusMessage: null,
    outcome: { kind: 'result', result: { x: 2 } },
  });
  assert.equal(await store.outcome('o', id), { kind: 'result', result: { x: 2 } });
  assert.not.ok('statusMessage' in (await store.get('o', id))!);
  const refused = await store
    .update('o', id, { status: 'failed', outcome: { kind: 'error', error: { code: 1, message: 'late' } } })
    .catch((e: unknown) => e);
  assert.instance(refused, TaskTransitionError);
  assert.equal(await store.outcome('o', id), { kind: 'result', result: { x: 2 } }, 'a refused update stores nothing');
});

test('store: ttl expiry deletes the task (timer) and reports it; "expired" is remembered', async () => {
  const store = new InMemoryTaskStore();
  const events: TaskEvent[] = [];
  store.subscribe((e) => events.push(e));
  const short = await store.create('o', { ttl: 20 });
  const forever = await store.create('o', { ttl: null });
  assert.ok(await store.get('o', short.taskId));
  await sleep(60);
  assert.is(store.size, 1);
  assert.is(await store.get('o', short.taskId), undefined);
  assert.ok(await store.get('o', forever.taskId), 'ttl null never expires');
  assert.ok(events.some((e) => e.type === 'expired' && e.task.taskId === short.taskId));
  assert.ok(await store.expired('o', short.taskId));
  assert.not.ok(await store.expired('other', short.taskId));
  const err = await store.update('o', short.taskId, { status: 'completed' }).catch((e: unknown) => e);
  assert.instance(err, TaskNotFoundError);
  assert.match((err as Error).message, /expired/);
  assert.equal(
    (await store.list('o')).tasks.map((t) => t.taskId),
    [forever.taskId],
  );
});

test('store: an overdue task is gone on lookup even before its timer (clock)', async () => {
  let now = 1_000_000;
  const store = new InMemoryTaskStore({ now: () => now });
  const t = await store.create('o', { ttl: 50_000 });
  now += 49_999;
  assert.ok(await store.get('o', t.taskId));
  now += 1;
  assert.is(await store.get('o', t.taskId), undefined);
  assert.equal((await store.list('o')).tasks, []);
  store.clear();
});

test("store: expiry timers are unref'd (a task with a one-hour ttl does not keep a process alive)", () => {
  const url = new URL('../../../runtime/stores/tasks.ts', import.meta.url).href;
  const script = `const { InMemoryTaskStore } = await import(${JSON.stringify(url)}); await new InMemoryTaskStore().create('o', { ttl: 3600000 }); console.log('created');`;
  const started = Date.now();
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    encoding: 'utf8',
    timeout: 20_000,
  });
  assert.is(out.trim(), 'created');
  assert.ok(Date.now() - started < 20_000);
});

test('store: owners are isolated for get, update, outcome, list and delete', async () => {
  const store = new InMemoryTaskStore();
  const a = await store.create('alice', { ttl: null });
  await store.create('bob', { ttl: null });
  assert.is(await store.get('bob', a.taskId), undefined);
  assert.instance(
    await store.update('bob', a.taskId, { status: 'cancelled' }).catch((e: unknown) => e),
    TaskNotFoundError,
  );
  assert.is(await store.outcome('bob', a.taskId), undefined);
  assert.not.ok(await store.delete('bob', a.taskId));
  assert.equal(
    (await store.list('alice')).tasks.map((t) => t.taskId),
    [a.taskId],
  );
  assert.is((await store.list('bob')).tasks.length, 1);
  assert.is((await store.get('alice', a.taskId))!.status, 'working');
  assert.ok(await store.delete('alice', a.taskId));
  assert.is(await store.get('alice', a.taskId), undefined);
});

test('store: list pages in creation order with opaque cursors; a bad cursor is -32602', async () => {
  const store = new InMemoryTaskStore({ pageSize: 2 });
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) ids.push((await store.create('o', { ttl: null })).taskId);
  const seen: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await store.list('o', { cursor });
    seen.push(...page.tasks.map((t) => t.taskId));
    cursor = page.nextCursor;
    pages++;
  } while (cursor);
  assert.equal(seen, ids);
  assert.is(pages, 3);
  const first = await store.list('o');
  await store.delete('o', ids[2]);
  const next = await store.list('o', { cursor: first.nextCursor });
  assert.equal(
    next.tasks.map((t) => t.taskId),
    [ids[3], ids[4]],
    'a deletion between pages skips nothing',
  );
  assert.is(next.nextCursor, undefined);
  for (const bad of ['not-a-cursor', '', 'dGFza3M6OTk5', '!!']) {
    const err = await store.list('o', { cursor: bad }).catch((e: unknown) => e);
    assert.instance(err, InvalidCursorError, bad);
    assert.is((err as InvalidCursorError).code, -32602);
  }
  // a cursor longer than any issued is not echoed in the error (message or data)
  const long = 'A'.repeat(100_000);
  const err = (await store.list('o', { cursor: long }).catch((e: unknown) => e)) as InvalidCursorError;
  assert.instance(err, InvalidCursorError);
  assert.is(err.message, 'Invalid cursor (100000 characters: not one this server issued)');
  assert.equal(err.data, { length: 100000 });
  const short = (await store.list('o', { cursor: '!!' }).catch((e: unknown) => e)) as InvalidCursorError;
  assert.is(short.message, 'Invalid cursor: "!!"');
  assert.equal(short.data, { cursor: '!!' });
});

test.run();
