/**
 * Server side of `structuredContent` (ServerFeatures, runtime/features/tools.ts): what it may be
 * follows the negotiated revision's schema (`CallToolResult.structuredContent`: any JSON value in
 * the stateless revisions, a JSON object in 2025-11-25), and falsy values (`[]`, `null`, `0`,
 * `false`, `''`) are values, not "absent". A server child process over stdio
 * (test/fixtures/features-output-server.ts), a generated Client.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fileURLToPath } from 'node:url';
import { RpcError } from '../../../runtime/jsonrpc/errors.js';
import { StdioClientTransport } from '../../../runtime/transport/stdio.js';
import * as handshake from '../../../generated/2025-11-25/index.js';
import * as stateless from '../../../generated/draft/index.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));

async function connect(rev: '2025-11-25' | 'draft') {
  const Client = rev === 'draft' ? stateless.Client : handshake.Client;
  const client = new Client({ clientInfo: { name: 'values', version: '1.0.0' }, timeout: 30_000 });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', 'test/fixtures/features-output-server.ts', rev],
      cwd: root,
      stderr: 'ignore',
    }),
  );
  const call = (name: string) => client.callTool({ name, arguments: {} } as never) as Promise<Record<string, unknown>>;
  return { client, call };
}

async function refusal(p: Promise<unknown>): Promise<RpcError> {
  try {
    await p;
  } catch (e) {
    assert.instance(e, RpcError, String(e));
    return e as RpcError;
  }
  assert.unreachable('expected an error, the call resolved');
  throw new Error('unreachable');
}

test('draft: outputSchema { type: "array" } and structuredContent [] is answered, not -32603', async () => {
  const { client, call } = await connect('draft');
  try {
    const r = await call('empty_list');
    assert.equal(r.structuredContent, []);
    assert.is(r.isError, undefined);
  } finally {
    await client.close();
  }
});

test('draft: null, 0, false and "" are values of structuredContent', async () => {
  const { client, call } = await connect('draft');
  try {
    assert.is((await call('null_value')).structuredContent, null);
    assert.is((await call('zero')).structuredContent, 0);
    assert.is((await call('false_value')).structuredContent, false);
    assert.is((await call('empty_string')).structuredContent, '');
    assert.equal((await call('empty_object')).structuredContent, {});
  } finally {
    await client.close();
  }
});

for (const rev of ['draft', '2025-11-25'] as const) {
  test(`${rev}: absent structuredContent (omitted or undefined) is still -32603 naming the tool`, async () => {
    const { client, call } = await connect(rev);
    try {
      for (const name of ['omitted', 'undefined_value']) {
        const e = await refusal(call(name));
        assert.is(e.code, -32603);
        assert.is(e.message, `Tool ${name} has an outputSchema but returned no structuredContent`);
      }
      assert.equal((await call('empty_object')).structuredContent, {});
    } finally {
      await client.close();
    }
  });
}

test('draft: a value failing the outputSchema is -32603 naming the tool and the path', async () => {
  const { client, call } = await connect('draft');
  try {
    const e = await refusal(call('wrong_kind'));
    assert.is(e.code, -32603);
    assert.match(
      e.message,
      /^Tool wrong_kind returned structuredContent that fails its outputSchema: \(structuredContent\): must be array$/,
    );
  } finally {
    await client.close();
  }
});

test.run();
