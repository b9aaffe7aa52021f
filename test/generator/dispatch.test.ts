/**
 * createServerDispatch of generated/2025-11-25 over its real table and validators: the JSON-RPC
 * error each failure maps to (JSON-RPC 2.0 §5.1) and what reaches the peer.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { ServerHandlers } from '../../generated/2025-11-25/dispatch.gen.js';
import { createServerDispatch } from '../../generated/2025-11-25/dispatch.gen.js';
import { ErrorCode, RpcError } from '../../runtime/jsonrpc/errors.js';
import type { ValidationError } from '../../runtime/protocol/table.js';
import { completeServerHandlers } from './handlers.js';

const test = suite('generator: createServerDispatch error mapping');

/** The RpcError a dispatch rejects with (fails when it resolves). */
async function rejection(p: Promise<unknown>): Promise<RpcError> {
  try {
    const v = await p;
    assert.unreachable(`resolved with ${JSON.stringify(v)}`);
  } catch (e) {
    assert.instance(e, RpcError, String(e));
    return e as RpcError;
  }
  throw new Error('unreachable');
}

const table = (over: Partial<ServerHandlers>): ServerHandlers =>
  ({ ...completeServerHandlers, ...over }) as ServerHandlers;

test('a valid call reaches its handler with params and context, and its result comes back', async () => {
  const seen: unknown[] = [];
  const dispatch = createServerDispatch<{ user: string }>(
    table({
      'tools/call': (params, ctx) => {
        seen.push(params, ctx);
        return { content: [{ type: 'text', text: `hi ${params.name}` }] };
      },
    }) as ServerHandlers<{ user: string }>,
  );
  const result = await dispatch('tools/call', { name: 'greet', arguments: {} }, { user: 'u1' });
  assert.equal(result, { content: [{ type: 'text', text: 'hi greet' }] });
  assert.equal(seen, [{ name: 'greet', arguments: {} }, { user: 'u1' }]);
});

test('-32601 for a method the revision does not have, and for a client-only method name', async () => {
  const dispatch = createServerDispatch(completeServerHandlers);
  for (const method of ['tools/run', 'sampling/createMessage', '__proto__', 'toString']) {
    const e = await rejection(dispatch(method, {}, undefined));
    assert.is(e.code, ErrorCode.MethodNotFound, method);
    assert.is(e.code, -32601);
    assert.match(e.message, method);
  }
});

test('-32602 for invalid params; data.errors says where', async () => {
  let called = 0;
  const dispatch = createServerDispatch(table({ 'tools/call': () => (called++, { content: [] }) }));
  const missing = await rejection(dispatch('tools/call', { arguments: {} }, undefined));
  assert.is(missing.code, -32602);
  const errors = (missing.data as { errors: ValidationError[] }).errors;
  assert.ok(Array.isArray(errors) && errors.length > 0);
  assert.ok(
    errors.some((x) => x.params?.missingProperty === 'name'),
    JSON.stringify(errors),
  );

  const wrongType = await rejection(dispatch('tools/call', { name: 42 }, undefined));
  assert.is(wrongType.code, -32602);
  assert.ok((wrongType.data as { errors: ValidationError[] }).errors.some((x) => x.instancePath === '/name'));
  assert.match(wrongType.message, '/name');

  const absent = await rejection(dispatch('tools/call', undefined, undefined));
  assert.is(absent.code, -32602);
  assert.ok((absent.data as { errors: ValidationError[] }).errors.length > 0);
  assert.is(called, 0, 'the handler must not run on invalid params');
});

test('-32603 when a handler throws a plain Error: generic message, no stack, no detail', async () => {
  const internal: Array<[string, unknown]> = [];
  const secret = new Error('connection string postgres://admin:hunter2@db');
  const dispatch = createServerDispatch(
    table({
      'tools/list': () => {
        throw secret;
      },
    }),
    { onInternalError: (method, error) => internal.push([method, error]) },
  );
  const e = await rejection(dispatch('tools/list', {}, undefined));
  assert.is(e.code, -32603);
  assert.is(e.message, 'Internal error');
  const wire = JSON.stringify(e.toJSON());
  assert.equal(JSON.parse(wire), { code: -32603, message: 'Internal error' });
  assert.not.match(wire, 'hunter2');
  assert.not.match(wire, 'stack');
  assert.not.match(wire, 'dispatch');
  // the real failure goes to the host, not the peer
  assert.equal(internal, [['tools/list', secret]]);
});

test('-32603 when a handler throws a non-Error value or rejects', async () => {
  const dispatch = createServerDispatch(
    table({
      'prompts/list': () => {
        throw 'a string';
      },
      'resources/list': async () => Promise.reject(new TypeError('x is undefined')),
    }),
  );
  for (const m of ['prompts/list', 'resources/list']) {
    const e = await rejection(dispatch(m, {}, undefined));
    assert.is(e.code, -32603, m);
    assert.is(e.message, 'Internal error', m);
    assert.is(e.data, undefined, m);
  }
});

test('-32603 when a handler returns a result that fails its schema (and passes with validateResults: false)', async () => {
  const internal: unknown[] = [];
  const handlers = table({ 'tools/call': () => ({ content: 'not an array' }) as never });
  const dispatch = createServerDispatch(handlers, { onInternalError: (_m, err) => internal.push(err) });
  const e = await rejection(dispatch('tools/call', { name: 'x' }, undefined));
  assert.is(e.code, -32603);
  assert.is(e.message, 'Internal error');
  assert.is(e.data, undefined);
  assert.is(internal.length, 1);
  assert.match(String((internal[0] as Error).message), 'tools/call');

  const lax = createServerDispatch(handlers, { validateResults: false });
  assert.equal(await lax('tools/call', { name: 'x' }, undefined), { content: 'not an array' });
});

test('a thrown RpcError reaches the peer as it is', async () => {
  const thrown = new RpcError(-32042, 'URL elicitation required', {
    elicitations: [{ mode: 'url', url: 'https://example.com/auth' }],
  });
  const app = new RpcError(-31999, 'application error');
  const dispatch = createServerDispatch(
    table({
      'tools/call': () => {
        throw thrown;
      },
      'resources/read': async () => {
        throw app;
      },
    }),
  );
  const e = await rejection(dispatch('tools/call', { name: 'x' }, undefined));
  assert.is(e, thrown);
  assert.equal(e.toJSON(), {
    code: -32042,
    message: 'URL elicitation required',
    data: { elicitations: [{ mode: 'url', url: 'https://example.com/auth' }] },
  });
  assert.is(await rejection(dispatch('resources/read', { uri: 'file:///x' }, undefined)), app);
});

test('task-augmented tools/call may be answered with a CreateTaskResult', async () => {
  const dispatch = createServerDispatch(completeServerHandlers);
  const r = (await dispatch('tools/call', { name: 'slow', task: { ttl: 1000 } }, undefined)) as {
    task: { taskId: string };
  };
  assert.is(r.task.taskId, 't1');
});

test.run();
