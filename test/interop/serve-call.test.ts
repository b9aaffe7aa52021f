/**
 * `mcpgen serve --stdio` and `mcpgen call --stdio` end to end: real processes, real pipes.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = fileURLToPath(new URL('../../bin/mcpgen.js', import.meta.url));
const SERVE = `${JSON.stringify(process.execPath)} ${JSON.stringify(bin)} serve --rev 2025-11-25 --stdio`;

function call(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [bin, 'call', '--stdio', SERVE, ...args],
      { cwd: root, timeout: 30_000 },
      (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
    );
  });
}

test('call tools/list against serve: the reference tools', async () => {
  const r = await call('tools/list');
  assert.is(r.code, 0, r.stderr);
  const names = (JSON.parse(r.stdout) as { tools: { name: string }[] }).tools.map((t) => t.name);
  for (const n of [
    'test_simple_text',
    'test_tool_with_progress',
    'test_tool_with_logging',
    'test_error_handling',
    'test_sampling',
    'test_elicitation',
  ]) {
    assert.ok(names.includes(n), n);
  }
});

test('call tools/call --progress: result on stdout, progress on stderr', async () => {
  const r = await call('tools/call', '{"name":"test_tool_with_progress","arguments":{}}', '--progress');
  assert.is(r.code, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout), { content: [{ type: 'text', text: 'Progress completed' }] });
  const progress = r.stderr
    .split('\n')
    .filter((l) => l.startsWith('progress: '))
    .map((l) => JSON.parse(l.slice(10)).progress);
  assert.equal(progress, [0, 50, 100]);
});

test("call: the server's log messages go to stderr", async () => {
  const r = await call('tools/call', '{"name":"test_tool_with_logging","arguments":{}}');
  assert.is(r.code, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout).content, [{ type: 'text', text: 'Logging completed' }]);
  assert.match(r.stderr, /log info \[reference-server\]: Tool execution started/);
});

test('call: an error response goes to stderr with exit 1 and nothing on stdout', async () => {
  const r = await call('resources/read', '{"uri":"test://missing"}');
  assert.is(r.code, 1);
  assert.is(r.stdout, '');
  assert.match(r.stderr, /resources\/read failed: -32002 Resource not found \{"uri":"test:\/\/missing"\}/);
  const u = await call('tools/call', 'not json');
  assert.is(u.code, 2);
});

test('serve writes nothing but protocol messages on stdout and exits 0 when stdin ends', async () => {
  const child = spawn(process.execPath, [bin, 'serve', '--stdio'], { cwd: root, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  const lines = [
    {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'test_tool_with_logging', arguments: {} } },
  ];
  child.stdin.write(`${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
  await new Promise<void>((r) => {
    const check = () => (out.includes('"id":2') ? r() : setTimeout(check, 10));
    check();
  });
  child.stdin.end();
  const code = await new Promise<number | null>((r) => child.once('exit', r));
  assert.is(code, 0);
  const messages = out
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  for (const m of messages) assert.is(m.jsonrpc, '2.0');
  assert.equal(
    messages.filter((m) => m.method === 'notifications/message').map((m) => (m.params as { data: string }).data),
    ['Tool execution started', 'Tool processing data', 'Tool execution completed'],
  );
  assert.equal(messages.at(-1), {
    jsonrpc: '2.0',
    id: 2,
    result: { content: [{ type: 'text', text: 'Logging completed' }] },
  });
});

test.run();
