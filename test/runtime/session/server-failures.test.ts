/**
 * A server's own failures are answered and explained: a prompt and a resource read that throw,
 * a result JSON cannot express (a cycle) and a tool's structuredContent that fails its
 * outputSchema are each answered -32603 naming the handler (`prompt broken`, `resource
 * mem://broken`, `tool loop`, `Tool shape`), never with the error's text, and each is logged to
 * stderr by default with the handler's name and the error (the thrown one with its stack), in
 * both eras; a cyclic result is answered (not left to the client's timeout) over stdio,
 * Streamable HTTP (JSON and SSE answers) and stateless HTTP; the server goes on serving.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as draft from '../../../generated/draft/index.js';
import * as v2025 from '../../../generated/2025-11-25/index.js';
import { RpcError } from '../../../runtime/jsonrpc/errors.js';
import { StdioClientTransport } from '../../../runtime/transport/stdio.js';
import { HttpClientTransport, createStreamableHttpHandler } from '../../../runtime/transport/http/session/index.js';
import {
  StatelessHttpClientTransport,
  createStatelessHttpHandler,
} from '../../../runtime/transport/http/stateless/index.js';
import { SECRET, failingServer } from '../../fixtures/failing-server.js';
import { ROOT } from '../../generator/support.js';

const test = suite('server failures: answered -32603 naming the handler, logged to stderr by default');
const FIXTURE = join(ROOT, 'test', 'fixtures', 'failing-server.ts');

type AnyClient = InstanceType<typeof v2025.Client> | InstanceType<typeof draft.Client>;

/** The rejection of `p` (an RpcError), or a failure when it resolves. */
async function refusal(p: Promise<unknown>): Promise<RpcError> {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  assert.instance(e, RpcError);
  return e as RpcError;
}

/** The four failures through `client`: each -32603 naming its handler, the secret never on the wire. */
async function failures(client: AnyClient): Promise<void> {
  const c = client as InstanceType<typeof v2025.Client>;
  const prompt = await refusal(c.getPrompt({ name: 'broken' }));
  assert.equal([prompt.code, prompt.message], [-32603, 'Internal error: prompt broken failed']);
  const read = await refusal(c.readResource({ uri: 'mem://broken' }));
  assert.equal([read.code, read.message], [-32603, 'Internal error: resource mem://broken failed']);
  const loop = await refusal(c.callTool({ name: 'loop', arguments: {} }));
  assert.equal(
    [loop.code, loop.message],
    [-32603, 'Internal error: tool loop returned a result that cannot be serialised as JSON'],
  );
  const shape = await refusal(c.callTool({ name: 'shape', arguments: {} }));
  assert.is(shape.code, -32603);
  assert.match(shape.message, 'Tool shape returned structuredContent that fails its outputSchema');
  for (const e of [prompt, read, loop, shape]) assert.not.match(JSON.stringify(e.toJSON()), 'hunter2');
  // and it goes on serving
  assert.equal((await c.callTool({ name: 'fine', arguments: {} })).content, [{ type: 'text', text: 'ok' }]);
}

for (const revision of ['2025-11-25', 'draft'] as const) {
  test(`${revision} over stdio: each failure answered, and logged on stderr with the handler and the error`, async () => {
    let stderr = '';
    const g = revision === 'draft' ? draft : v2025;
    const client = new g.Client({ clientInfo: { name: 't', version: '1' } });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: ['--import', 'tsx', FIXTURE, revision],
        stderr: 'pipe',
        onStderr: (c) => (stderr += c.toString('utf8')),
      }),
    );
    try {
      await failures(client);
    } finally {
      await client.close();
    }
    const lines = stderr.split('\n');
    const line = (needle: string) => {
      const found = lines.find((l) => l.startsWith('mcpgen: ') && l.includes(needle));
      assert.ok(found, `no stderr line with ${needle} in:\n${stderr}`);
      return found;
    };
    const prompt = line('"handler":"prompt broken"');
    assert.match(prompt, 'mcpgen: request handler failed {"method":"prompts/get","handler":"prompt broken"');
    assert.match(prompt, `"error":"${SECRET}"`);
    // the stack follows, on the lines after
    const at = lines.indexOf(prompt);
    assert.match(lines[at + 1], `Error: ${SECRET}`);
    assert.match(lines.slice(at + 2, at + 6).join('\n'), 'failing-server.ts');
    assert.match(line('"handler":"resource mem://broken"'), `"error":"${SECRET}"`);
    assert.match(line('"handler":"tool loop"'), 'mcpgen: result cannot be serialised as JSON');
    assert.match(line('"handler":"tool loop"'), 'circular');
    assert.match(line('"tool":"shape"'), 'mcpgen: tool handler failed');
    assert.match(line('"tool":"shape"'), 'fails its outputSchema');
  });
}

test('a cyclic result over HTTP: answered -32603 (JSON and SSE answers of Streamable HTTP, stateless HTTP), logged', async () => {
  const logged: string[] = [];
  const logger = { error: (m: string, d?: Record<string, unknown>) => void logged.push(`${m} ${JSON.stringify(d)}`) };
  // Streamable HTTP, 2025-11-25
  const http = createServer(
    createStreamableHttpHandler({
      tables: [v2025.table],
      onSession: (t) => failingServer('2025-11-25', logger).connect(t),
    }),
  );
  await new Promise<void>((done) => http.listen(0, '127.0.0.1', done));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  const client = new v2025.Client({ clientInfo: { name: 't', version: '1' } });
  await client.connect(new HttpClientTransport({ url }));
  try {
    const json = await refusal(client.callTool({ name: 'loop', arguments: {} }));
    assert.is(json.message, 'Internal error: tool loop returned a result that cannot be serialised as JSON');
    // with a progress token the answer is an SSE stream, opened by the progress notification
    let progressed = 0;
    const sse = await refusal(
      client.callTool({ name: 'loop', arguments: {} }, { onProgress: () => void progressed++ }),
    );
    assert.is(sse.message, 'Internal error: tool loop returned a result that cannot be serialised as JSON');
    assert.is(progressed, 1, 'the answer came on the SSE stream the progress notification opened');
    assert.equal((await client.callTool({ name: 'fine', arguments: {} })).content, [{ type: 'text', text: 'ok' }]);
  } finally {
    await client.close();
    http.closeAllConnections();
    await new Promise<void>((done) => http.close(() => done()));
  }
  // stateless HTTP, draft
  const endpoint = createStatelessHttpHandler({ tables: [draft.table] });
  await failingServer('draft', logger).connect(endpoint.transport);
  const http2 = createServer(endpoint);
  await new Promise<void>((done) => http2.listen(0, '127.0.0.1', done));
  const modern = new draft.Client({ clientInfo: { name: 't', version: '1' } });
  await modern.connect(
    new StatelessHttpClientTransport({ url: `http://127.0.0.1:${(http2.address() as AddressInfo).port}/mcp` }),
  );
  try {
    const e = await refusal(modern.callTool({ name: 'loop', arguments: {} }));
    assert.is(e.message, 'Internal error: tool loop returned a result that cannot be serialised as JSON');
    assert.equal((await modern.callTool({ name: 'fine', arguments: {} })).content, [{ type: 'text', text: 'ok' }]);
  } finally {
    await modern.close();
    await endpoint.close();
    http2.closeAllConnections();
    await new Promise<void>((done) => http2.close(() => done()));
  }
  assert.is(logged.filter((l) => l.startsWith('result cannot be serialised as JSON')).length, 3, logged.join('\n'));
});

test.run();
