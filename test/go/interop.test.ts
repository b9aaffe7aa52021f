/**
 * The Go SDK against the other languages' peers, over real pipes and sockets, in both eras
 * (2025-11-25 with initialize and a session, 2026-07-28 stateless):
 * - the Go client (go/reference/cmd/interop-client) against the TypeScript reference server
 *   (`mcpgen serve`, stdio and Streamable HTTP) and the Python one (`python -m mcpgen_reference`);
 * - the generated TypeScript clients and the Python client (`python -m
 *   mcpgen_reference.interop_client`) against the Go reference server (`mcpgen serve --lang go`,
 *   stdio, and the Go dual-era HTTP endpoint).
 * Each client checks the same fixtures: echo (text outside ASCII), echo with an argument of the
 * wrong type (a tool execution error), test_tool_with_progress (progress 0, 50, 100),
 * test://static-text, test_prompt_with_arguments. go-sdk ↔ Go runs in go test
 * (go/reference/interop, through test/go/sdk.test.ts).
 */
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Client } from '../../generated/2025-11-25/index.js';
import { Client as Client2026 } from '../../generated/2026-07-28/index.js';
import { HttpClientTransport } from '../../runtime/transport/http/session/node-client.js';
import { StatelessHttpClientTransport } from '../../runtime/transport/http/stateless/node-client.js';
import { StdioClientTransport } from '../../runtime/transport/stdio.js';
import { commandServer } from '../conformance/language.js';
import { pythonBin, pythonChildEnv } from '../python/support.js';
import { ROOT, buildGoCommand, run } from './support.js';

const REVS = ['2025-11-25', '2026-07-28'] as const;
const MCPGEN = [join(ROOT, 'bin', 'mcpgen.js')];
const ECHOED = 'héllo "☃"\n';

const interopClient = await buildGoCommand('interop-client');
const goServer = await buildGoCommand('mcpgen-reference');

/** Runs a client command; asserts it exits 0 printing its `ok` line for rev and transport. */
async function client(
  cmd: string,
  args: string[],
  rev: string,
  transport: string,
  server: string,
  env?: NodeJS.ProcessEnv,
): Promise<void> {
  const r = await run(cmd, args, ROOT, 120_000, env);
  assert.is(r.status, 0, r.output);
  assert.ok(
    r.stdout.includes(`ok ${rev} ${transport} server=${server} protocolVersion=${rev}`),
    `${cmd} ${args.join(' ')}:\n${r.output}`,
  );
}

async function withServer(
  cmd: string,
  args: string[],
  env: NodeJS.ProcessEnv | undefined,
  fn: (url: string) => Promise<void>,
): Promise<void> {
  const served = await commandServer(cmd, args, env);
  try {
    await fn(served.url);
  } finally {
    await served.stop();
  }
}

// ---- the Go client against the TypeScript and Python reference servers ----

for (const rev of REVS) {
  test(`Go client ${rev} → TypeScript server (mcpgen serve) over stdio`, () =>
    client(
      interopClient,
      ['--rev', rev, '--', process.execPath, ...MCPGEN, 'serve', '--stdio', '--rev', rev],
      rev,
      'stdio',
      'mcpgen-reference-server',
    ));
  test(`Go client ${rev} → Python server over stdio`, () =>
    client(
      interopClient,
      ['--rev', rev, '--', pythonBin(), '-m', 'mcpgen_reference', '--stdio', '--rev', rev],
      rev,
      'stdio',
      'mcpgen-reference-server',
      pythonChildEnv(),
    ));
}

test('Go client of both eras → TypeScript dual-era endpoint (mcpgen serve --http)', () =>
  withServer(process.execPath, [...MCPGEN, 'serve', '--rev', '2026-07-28', '--http', '0'], undefined, async (url) => {
    for (const rev of REVS)
      await client(interopClient, ['--rev', rev, '--url', url], rev, 'http', 'mcpgen-reference-server');
  }));

test('Go client of both eras → Python dual-era endpoint', () =>
  withServer(
    pythonBin(),
    ['-m', 'mcpgen_reference', '--rev', '2026-07-28', '--http', '0'],
    pythonChildEnv(),
    async (url) => {
      for (const rev of REVS)
        await client(interopClient, ['--rev', rev, '--url', url], rev, 'http', 'mcpgen-reference-server');
    },
  ));

// ---- the Python client against the Go reference server ----

for (const rev of REVS)
  test(`Python client ${rev} → Go server (mcpgen serve --lang go) over stdio`, () =>
    client(
      pythonBin(),
      [
        '-m',
        'mcpgen_reference.interop_client',
        '--rev',
        rev,
        '--',
        process.execPath,
        ...MCPGEN,
        'serve',
        '--lang',
        'go',
        '--stdio',
        '--rev',
        rev,
      ],
      rev,
      'stdio',
      'mcpgen-reference-server',
      pythonChildEnv(),
    ));

test('Python client of both eras → Go dual-era endpoint', () =>
  withServer(goServer, ['--rev', '2026-07-28', '--http', '0'], undefined, async (url) => {
    for (const rev of REVS)
      await client(
        pythonBin(),
        ['-m', 'mcpgen_reference.interop_client', '--rev', rev, '--url', url],
        rev,
        'http',
        'mcpgen-reference-server',
        pythonChildEnv(),
      );
  }));

// ---- the generated TypeScript clients against the Go reference server ----

type Text = { content: Array<{ type: string; text?: string }>; isError?: boolean };

async function exercise(c: {
  listTools(p?: object): Promise<unknown>;
  callTool(p: object, o?: object): Promise<unknown>;
  readResource(p: object): Promise<unknown>;
  getPrompt(p: object): Promise<unknown>;
}): Promise<void> {
  const tools = (await c.listTools({})) as { tools: Array<{ name: string }> };
  const names = tools.tools.map((t) => t.name);
  assert.ok(names.includes('echo') && names.includes('test_tool_with_progress'), names.join(' '));
  const echoed = (await c.callTool({ name: 'echo', arguments: { text: ECHOED } })) as Text;
  assert.equal(echoed.content, [{ type: 'text', text: ECHOED }]);
  assert.not.ok(echoed.isError);
  const bad = (await c.callTool({ name: 'echo', arguments: { text: 5 } })) as Text;
  assert.is(bad.isError, true);
  const progress: number[] = [];
  const done = (await c.callTool(
    { name: 'test_tool_with_progress', arguments: {} },
    { onProgress: (p: { progress: number }) => progress.push(p.progress) },
  )) as Text;
  assert.is(done.content[0].text, 'Progress completed');
  assert.equal(progress, [0, 50, 100]);
  const read = (await c.readResource({ uri: 'test://static-text' })) as { contents: Array<{ text?: string }> };
  assert.is(read.contents.length, 1);
  assert.is(read.contents[0].text, 'This is the content of the static text resource.');
  const prompt = (await c.getPrompt({ name: 'test_prompt_with_arguments', arguments: { arg1: 'a', arg2: 'b' } })) as {
    messages: Array<{ content: { text?: string } }>;
  };
  assert.is(prompt.messages[0].content.text, "Prompt with arguments: arg1='a', arg2='b'");
}

const goStdio = (rev: string) =>
  new StdioClientTransport({
    command: process.execPath,
    args: [...MCPGEN, 'serve', '--lang', 'go', '--stdio', '--rev', rev],
    cwd: ROOT,
  });

test('TypeScript client 2025-11-25 → Go server (mcpgen serve --lang go) over stdio', async () => {
  const c = new Client({ clientInfo: { name: 'ts', version: '1' } });
  const server = await c.connect(goStdio('2025-11-25'));
  assert.is(server.serverInfo?.name, 'mcpgen-reference-server');
  assert.is(server.protocolVersion, '2025-11-25');
  await exercise(c as never);
  await c.close();
});

test('TypeScript client 2026-07-28 → Go server (mcpgen serve --lang go) over stdio', async () => {
  const c = new Client2026({ clientInfo: { name: 'ts', version: '1' } });
  const server = await c.connect(goStdio('2026-07-28'));
  assert.is(server.serverInfo?.name, 'mcpgen-reference-server');
  assert.is(server.protocolVersion, '2026-07-28');
  await exercise(c as never);
  await c.close();
});

test('TypeScript clients of both eras → Go dual-era endpoint over HTTP', () =>
  withServer(goServer, ['--rev', '2026-07-28', '--http', '0'], undefined, async (url) => {
    const legacy = new Client({ clientInfo: { name: 'ts', version: '1' } });
    const transport = new HttpClientTransport({ url });
    const s1 = await legacy.connect(transport);
    assert.is(s1.protocolVersion, '2025-11-25');
    assert.ok(transport.sessionId, 'a session id');
    await exercise(legacy as never);
    await legacy.close();
    const modern = new Client2026({ clientInfo: { name: 'ts', version: '1' } });
    const s2 = await modern.connect(new StatelessHttpClientTransport({ url }));
    assert.is(s2.protocolVersion, '2026-07-28');
    await exercise(modern as never);
    await modern.close();
  }));

test.run();
