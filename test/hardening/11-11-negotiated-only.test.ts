/**
 * Issue 11, finding 11: a session serves exactly the negotiated revision's table and the
 * declared capabilities, on every path. Against `mcpgen serve --stdio` and `--http 0` (default
 * revision 2025-11-25, which negotiates every older handshake revision), for each negotiated
 * revision:
 * - the initialize result advertises only capabilities the revision's ServerCapabilities defines;
 * - every client request method of any revision that is not in this revision's ClientRequest
 *   gets -32601 (tasks/* before 2025-11-25, server/discover, subscriptions/listen…);
 * - a tools/call carrying a newer revision's `params.task` runs as a plain call where the
 *   revision has no tasks (no -32603, no CreateTaskResult), and as a task where it has;
 * - a second initialize is refused with -32600 and changes nothing;
 * - a tool that asks the client for elicitation gets an error result saying the client lacks
 *   it, and the server sends no elicitation/create to a client that did not declare it.
 * Expectations come from the spec's schema.json of each revision.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { servedDuring } from '../runtime/tasks/serve-process.js';
import {
  ALL_REVS,
  HANDSHAKE_REVS,
  HttpWire,
  LegacySseWire,
  StdioWire,
  type Wire,
  clientRequestMethods,
  initialize,
  schemaDefs,
  undefinedMembers,
} from './wire.js';

type Json = Record<string, unknown>;

/** The `mcpgen serve --http 0` the HTTP tests talk to. */
const served = servedDuring(test);

const everyMethod = [...new Set(ALL_REVS.flatMap((r) => clientRequestMethods(r)))].sort();
const hasTasks = (rev: string) => clientRequestMethods(rev).includes('tasks/get');
const hasElicitation = (rev: string) => Object.hasOwn(schemaDefs(rev), 'ElicitRequest');
const errorCode = (r: Json) => (r.error as { code?: number } | undefined)?.code;
const textOf = (r: Json) =>
  ((r.result as Json | undefined)?.content as Array<{ text?: string }> | undefined)?.map((c) => c.text).join(' ') ?? '';

const transports: Array<[string, () => Wire]> = [
  ['stdio', () => new StdioWire()],
  ['http', () => new HttpWire(served().url)],
];

for (const [name, open] of transports) {
  for (const rev of HANDSHAKE_REVS) {
    test(`${name}, ${rev} negotiated: only that revision's methods and capabilities`, async () => {
      const wire = open();
      try {
        const init = await initialize(wire, rev);
        assert.is(init.protocolVersion, rev);
        const defs = schemaDefs(rev);
        assert.equal(
          undefinedMembers(defs, defs.ServerCapabilities, init.capabilities),
          [],
          'advertised capabilities the revision does not define',
        );
        assert.ok(Object.keys(init.capabilities as Json).includes('tools'), 'tools still advertised');

        const own = new Set(clientRequestMethods(rev));
        const foreign = everyMethod.filter((m) => !own.has(m));
        assert.ok(foreign.length > 0);
        for (const m of foreign) {
          const r = await wire.request(m, { taskId: 'x', cursor: 'x' });
          assert.is(errorCode(r), -32601, `${m}: ${JSON.stringify(r)}`);
        }
        for (const m of ['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list']) {
          const r = await wire.request(m, {});
          assert.ok(r.result, `${m}: ${JSON.stringify(r)}`);
        }

        // params.task: a task only where the revision has tasks
        const call = await wire.request('tools/call', {
          name: 'slow_compute',
          arguments: { seconds: 0 },
          task: { ttl: 60_000 },
        });
        assert.not.ok(call.error, `task-augmented tools/call: ${JSON.stringify(call)}`);
        const result = call.result as Json;
        if (hasTasks(rev)) {
          assert.type((result.task as Json).taskId, 'string');
        } else {
          assert.not.ok('task' in result, 'no CreateTaskResult where the revision has no tasks');
          assert.match(textOf(call), /Computed sum 1\.\.1000 = 500500/);
        }

        // elicitation from a client that declared none: refused before it is sent, said in the result
        const confirm = await wire.request('tools/call', { name: 'confirm_job', arguments: { action: 'deploy' } });
        assert.is((confirm.result as Json).isError, true, JSON.stringify(confirm));
        assert.match(textOf(confirm), /elicitation/);
        if (hasElicitation(rev)) assert.match(textOf(confirm), /lacks the elicitation capability/);
        assert.equal(
          wire.serverRequests.map((r) => r.method),
          [],
          'requests sent to the client',
        );
      } finally {
        await wire.close();
      }
    });
  }
}

for (const rev of HANDSHAKE_REVS) {
  test(`stdio, ${rev} negotiated: a second initialize is refused with -32600 and changes nothing`, async () => {
    const wire = new StdioWire();
    try {
      await initialize(wire, rev);
      for (const again of HANDSHAKE_REVS) {
        const r = await wire.request('initialize', {
          protocolVersion: again,
          capabilities: {},
          clientInfo: { name: 'again', version: '0' },
        });
        assert.is(errorCode(r), -32600, `initialize ${again} after ${rev}: ${JSON.stringify(r)}`);
      }
      // still the first revision: its table, not the one asked for last
      const tasks = await wire.request('tasks/list', {});
      assert.is(tasks.error ? errorCode(tasks) : 0, hasTasks(rev) ? 0 : -32601, JSON.stringify(tasks));
      assert.ok((await wire.request('tools/list', {})).result);
    } finally {
      await wire.close();
    }
  });
}

test('http+sse (/sse): a second initialize is refused with -32600 and changes nothing', async () => {
  const wire = await LegacySseWire.open(served().url.replace(/\/mcp$/, '/sse'));
  try {
    const init = await initialize(wire, '2024-11-05');
    assert.is(init.protocolVersion, '2024-11-05');
    const defs = schemaDefs('2024-11-05');
    assert.equal(undefinedMembers(defs, defs.ServerCapabilities, init.capabilities), []);
    const again = await wire.request('initialize', {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'again', version: '0' },
    });
    assert.is(errorCode(again), -32600, JSON.stringify(again));
    assert.is(errorCode(await wire.request('tasks/list', {})), -32601);
    const call = await wire.request('tools/call', {
      name: 'slow_compute',
      arguments: { seconds: 0 },
      task: { ttl: 60_000 },
    });
    assert.match(textOf(call), /Computed sum/);
  } finally {
    await wire.close();
  }
});

test('http: a second initialize on a session is refused (400, -32600)', async () => {
  const wire = new HttpWire(served().url);
  try {
    await initialize(wire, '2024-11-05');
    const r = await wire.post({
      jsonrpc: '2.0',
      id: 77,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'again', version: '0' } },
    });
    assert.is(r.status, 400);
    assert.is(((r.values[0] as Json).error as Json).code, -32600);
    assert.is(errorCode(await wire.request('tasks/list', {})), -32601);
  } finally {
    await wire.close();
  }
});

test('stdio, 2025-11-25: a client that declares elicitation is asked (the check refuses only what was not declared)', async () => {
  const wire = new StdioWire();
  try {
    await initialize(wire, '2025-11-25', { elicitation: { form: {} } });
    const confirm = await wire.request('tools/call', { name: 'confirm_job', arguments: { action: 'deploy' } });
    assert.equal(
      wire.serverRequests.map((r) => r.method),
      ['elicitation/create'],
    );
    // the wire answers every server request with -32601: the tool reports that failure
    assert.is((confirm.result as Json).isError, true);
    assert.match(textOf(confirm), /-32601/);
  } finally {
    await wire.close();
  }
});

test.run();
