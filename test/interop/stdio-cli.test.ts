/**
 * `mcpgen serve --stdio` and `mcpgen call --stdio` as processes on real pipes: the exact
 * `-32700` reply to a line that is not JSON (no `id`: the error-id rule of runtime/jsonrpc/message.ts), and a clean one-line
 * error when the server command dies before or while the client writes to it.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = fileURLToPath(new URL('../../bin/mcpgen.js', import.meta.url));

test('serve --stdio: a line that is not JSON gets exactly one -32700 reply with "id": null, then serving goes on', async () => {
  const child = spawn(process.execPath, [bin, 'serve', '--stdio'], { cwd: root, stdio: ['pipe', 'pipe', 'ignore'] });
  let out = '';
  child.stdout.on('data', (c: Buffer) => void (out += c.toString()));
  child.stdin.write('not json\n{"jsonrpc":"2.0","id":1,"method":"ping"}\n');
  const end = Date.now() + 20_000;
  while (out.split('\n').length < 3 && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
  child.stdin.end();
  await new Promise((r) => child.once('close', r));
  const lines = out.split('\n');
  assert.match(
    lines[0],
    /^\{"jsonrpc":"2\.0","error":\{"code":-32700,"message":"Parse error: line is not JSON[^\n]*"\}\}$/,
  );
  assert.equal(Object.keys(JSON.parse(lines[0])), ['jsonrpc', 'error']);
  assert.is(lines[1], '{"jsonrpc":"2.0","id":1,"result":{}}');
});

function call(command: string): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [bin, 'call', '--stdio', command, 'tools/list'],
      // ten at once, each two Node processes: minutes on a loaded runner; a kill says so in stderr
      { cwd: root, timeout: 180_000 },
      (err, _stdout, stderr) =>
        resolve({
          code: err ? (typeof err.code === 'number' ? err.code : -1) : 0,
          stderr: err?.killed ? `killed after 180 s (${err.signal}); ${stderr}` : stderr,
        }),
    );
  });
}

for (const command of ['false', 'echo hello']) {
  test(`call --stdio "${command}": ten runs, each a one-line error and exit 1, never a stack trace`, async () => {
    const runs = await Promise.all(Array.from({ length: 10 }, () => call(command)));
    for (const r of runs) {
      assert.is(r.code, 1, r.stderr);
      assert.not.match(r.stderr, /^\s+at |Error: Connection closed: write|node:internal|Node\.js v/m);
      const failures = r.stderr.split('\n').filter((l) => l.startsWith('mcpgen call: '));
      assert.is(failures.length, 1, r.stderr);
      assert.match(failures[0], /^mcpgen call: connecting \(initialize\) failed: .*Connection closed/);
    }
    if (command === 'false') for (const r of runs) assert.match(r.stderr, /server process exited with code 1/);
  });
}

test.run();
