/**
 * The client's output check of `tools/call` (2025-11-25 server/tools, "Output Schema": clients
 * SHOULD validate structured results against the tool's outputSchema), in both eras, against a
 * real server child process over stdio (test/fixtures/output-schema-server.ts): conforming,
 * not conforming, missing, `isError` with and without structured content, non-object values where
 * the revision allows them, the listing made once on demand and refreshed on list_changed.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fileURLToPath } from 'node:url';
import { OutputSchemaError } from '../../../runtime/session/output-schema-error.js';
import { StdioClientTransport } from '../../../runtime/transport/stdio.js';
import * as handshake from '../../../generated/2025-11-25/index.js';
import * as stateless from '../../../generated/draft/index.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
type Call = (name: string, args: Record<string, unknown>) => Promise<Record<string, unknown>>;

async function connect(rev: '2025-11-25' | 'draft', options: { checkToolOutput?: boolean } = {}) {
  const Client = rev === 'draft' ? stateless.Client : handshake.Client;
  const client = new Client({ clientInfo: { name: 'output-check', version: '1.0.0' }, timeout: 30_000, ...options });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', 'test/fixtures/output-schema-server.ts', rev],
    cwd: root,
    stderr: 'ignore',
  });
  await client.connect(transport);
  const call: Call = (name, args) =>
    client.callTool({ name, arguments: args } as never) as Promise<Record<string, unknown>>;
  const listed = async () =>
    JSON.parse(((await call('stats', {})).content as { text: string }[])[0].text).listed as number;
  return { client, call, listed };
}

async function rejection(p: Promise<unknown>): Promise<OutputSchemaError> {
  try {
    await p;
  } catch (e) {
    assert.instance(e, OutputSchemaError, String(e));
    return e as OutputSchemaError;
  }
  assert.unreachable('expected an OutputSchemaError, the call resolved');
  throw new Error('unreachable');
}

for (const rev of ['2025-11-25', 'draft'] as const) {
  test(`${rev}: a conforming result resolves; tools/list is read once, on demand, and then cached`, async () => {
    const { client, call, listed } = await connect(rev);
    try {
      const r = await call('sum', { value: { sum: 3 } });
      assert.equal(r.structuredContent, { sum: 3 });
      await call('sum', { value: { sum: 4 } });
      assert.equal((await call('plain', { value: { not: 'checked' } })).structuredContent, { not: 'checked' });
      assert.equal(await listed(), 1);
    } finally {
      await client.close();
    }
  });

  test(`${rev}: not conforming → OutputSchemaError naming the tool and the failing path`, async () => {
    const { client, call } = await connect(rev);
    try {
      const e = await rejection(call('sum', { value: { sum: 'three' } }));
      assert.is(e.tool, 'sum');
      assert.is(e.reason, 'invalid');
      assert.equal(e.issues, ['sum: must be number']);
      assert.is(e.code, -32603);
      assert.match(e.message, /tool sum returned structuredContent that fails its outputSchema: sum: must be number/);
      assert.equal((e.result as { structuredContent: unknown }).structuredContent, { sum: 'three' });
      const missing = await rejection(call('sum', { value: {} }));
      assert.equal(missing.issues, ['sum: is required']);
    } finally {
      await client.close();
    }
  });

  test(`${rev}: outputSchema declared and no structuredContent → OutputSchemaError (missing)`, async () => {
    const { client, call } = await connect(rev);
    try {
      const e = await rejection(call('sum', { omit: true }));
      assert.is(e.reason, 'missing');
      assert.match(e.message, /tool sum has an outputSchema but its result has no structuredContent/);
    } finally {
      await client.close();
    }
  });

  test(`${rev}: an isError result is returned as it is, with or without structured content`, async () => {
    const { client, call } = await connect(rev);
    try {
      const a = await call('sum', { isError: true, omit: true });
      assert.is(a.isError, true);
      assert.not.ok('structuredContent' in a);
      const b = await call('sum', { isError: true, value: { reason: 'overflow' } });
      assert.is(b.isError, true);
      assert.equal(b.structuredContent, { reason: 'overflow' });
    } finally {
      await client.close();
    }
  });

  test(`${rev}: calls in flight at once, with and without options, are each checked against their own tool's schema`, async () => {
    const { client } = await connect(rev);
    try {
      const call = (name: string, value: unknown, options?: { timeout: number }) =>
        client.callTool({ name, arguments: { value } } as never, options) as Promise<Record<string, unknown>>;
      const settled = await Promise.allSettled([
        call('sum', { sum: 'three' }),
        call('plain', { sum: 'three' }),
        call('sum', { sum: 'four' }, { timeout: 20_000 }),
        call('plain', { sum: 'four' }, { timeout: 20_000 }),
        call('sum', { sum: 5 }),
      ]);
      const seen = settled.map((s) =>
        s.status === 'fulfilled'
          ? ['ok', s.value.structuredContent]
          : [(s.reason as OutputSchemaError).tool, (s.reason as OutputSchemaError).issues],
      );
      assert.equal(seen, [
        ['sum', ['sum: must be number']],
        ['ok', { sum: 'three' }],
        ['sum', ['sum: must be number']],
        ['ok', { sum: 'four' }],
        ['ok', { sum: 5 }],
      ]);
    } finally {
      await client.close();
    }
  });

  test(`${rev}: checkToolOutput: false returns a non-conforming result unchecked`, async () => {
    const { client, call, listed } = await connect(rev, { checkToolOutput: false });
    try {
      const r = await call('sum', { value: { sum: 'three' } });
      assert.equal(r.structuredContent, { sum: 'three' });
      assert.is(await listed(), 0);
    } finally {
      await client.close();
    }
  });
}

test('draft: structuredContent may be any JSON value; falsy values are values, checked against the schema', async () => {
  const { client, call } = await connect('draft');
  try {
    assert.equal((await call('list', { value: [] })).structuredContent, []);
    assert.equal((await call('list', { value: [1, 2] })).structuredContent, [1, 2]);
    assert.is((await call('nothing', { value: null })).structuredContent, null);
    assert.is((await call('zero', { value: 0 })).structuredContent, 0);
    assert.is((await call('no', { value: false })).structuredContent, false);
    const e = await rejection(call('list', { value: [1, 'x'] }));
    assert.equal(e.issues, ['1: must be integer']);
    const f = await rejection(call('zero', { value: 1 }));
    assert.equal(f.issues, ['(structuredContent): must be <= 0']);
    const g = await rejection(call('no', { value: true }));
    assert.is(g.reason, 'invalid');
  } finally {
    await client.close();
  }
});

test('2025-11-25: notifications/tools/list_changed makes the client list again (the new outputSchema applies)', async () => {
  const { client, call, listed } = await connect('2025-11-25');
  try {
    await call('sum', { value: { sum: 1 } });
    assert.is(await listed(), 1);
    await call('retype', {});
    // the notification travels before the result of retype: the next call lists again
    const e = await rejection(call('sum', { value: { sum: 1 } }));
    assert.equal(e.issues, ['sum: must be string']);
    assert.equal((await call('sum', { value: { sum: 'one' } })).structuredContent, { sum: 'one' });
    assert.is(await listed(), 2);
  } finally {
    await client.close();
  }
});

test.run();
