/**
 * The generated TypeScript clients against the Python reference server, over real pipes and
 * sockets: 2025-11-25 (handshake) and 2026-07-28 (stateless) over stdio (`mcpgen serve --lang
 * python --stdio`) and over Streamable HTTP (the Python server's dual-era endpoint).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { Client } from '../../generated/2025-11-25/index.js';
import { Client as Client2026 } from '../../generated/2026-07-28/index.js';
import { HttpClientTransport } from '../../runtime/transport/http/session/node-client.js';
import { StatelessHttpClientTransport } from '../../runtime/transport/http/stateless/node-client.js';
import { StdioClientTransport } from '../../runtime/transport/stdio.js';
import { commandServer } from '../conformance/language.js';
import { ROOT, pythonBin, pythonChildEnv } from './support.js';

type Tools = { tools: Array<{ name: string }> };
type Text = { content: Array<{ type: string; text?: string }> };

async function exercise(client: {
  listTools(p?: object): Promise<unknown>;
  callTool(p: object, o?: object): Promise<unknown>;
  readResource(p: object): Promise<unknown>;
}): Promise<void> {
  const tools = (await client.listTools({})) as Tools;
  assert.ok(tools.tools.some((t) => t.name === 'echo'));
  const echoed = (await client.callTool({ name: 'echo', arguments: { text: 'from typescript ☃' } })) as Text;
  assert.is(echoed.content[0].text, 'from typescript ☃');
  const progress: number[] = [];
  const done = (await client.callTool(
    { name: 'test_tool_with_progress', arguments: {} },
    { onProgress: (p: { progress: number }) => progress.push(p.progress) },
  )) as Text;
  assert.is(done.content[0].text, 'Progress completed');
  assert.equal(progress, [0, 50, 100]);
  const read = (await client.readResource({ uri: 'test://static-text' })) as { contents: Array<{ text?: string }> };
  assert.is(read.contents[0].text, 'This is the content of the static text resource.');
}

const stdioArgs = (rev: string) => [
  join(ROOT, 'bin', 'mcpgen.js'),
  'serve',
  '--lang',
  'python',
  '--stdio',
  '--rev',
  rev,
];

test('the generated 2025-11-25 client against the Python server over stdio', async () => {
  const client = new Client({ clientInfo: { name: 'ts', version: '1' } });
  const server = await client.connect(
    new StdioClientTransport({ command: process.execPath, args: stdioArgs('2025-11-25'), cwd: ROOT }),
  );
  assert.is(server.serverInfo?.name, 'mcpgen-reference-server');
  assert.is(server.protocolVersion, '2025-11-25');
  await exercise(client as never);
  await client.close();
});

test('the generated 2026-07-28 client against the Python server over stdio', async () => {
  const client = new Client2026({ clientInfo: { name: 'ts', version: '1' } });
  const server = await client.connect(
    new StdioClientTransport({ command: process.execPath, args: stdioArgs('2026-07-28'), cwd: ROOT }),
  );
  assert.is(server.protocolVersion, '2026-07-28');
  await exercise(client as never);
  await client.close();
});

test('the generated clients of both eras against the Python dual-era endpoint over HTTP', async () => {
  const served = await commandServer(
    pythonBin(),
    ['-m', 'mcpgen_reference', '--rev', '2026-07-28', '--http', '0'],
    pythonChildEnv(),
  );
  try {
    const legacy = new Client({ clientInfo: { name: 'ts', version: '1' } });
    const transport = new HttpClientTransport({ url: served.url });
    const s1 = await legacy.connect(transport);
    assert.is(s1.protocolVersion, '2025-11-25');
    assert.ok(transport.sessionId, 'a session id');
    await exercise(legacy as never);
    await legacy.close();
    const modern = new Client2026({ clientInfo: { name: 'ts', version: '1' } });
    const s2 = await modern.connect(new StatelessHttpClientTransport({ url: served.url }));
    assert.is(s2.protocolVersion, '2026-07-28');
    await exercise(modern as never);
    await modern.close();
  } finally {
    await served.stop();
  }
});

test.run();
