/**
 * `mcpgen call` exit codes against `mcpgen serve` child processes: a `tools/call` result with
 * `isError: true` (the reference tool test_error_handling) is printed and exits 4, over stdio and
 * over Streamable HTTP, in both eras; a successful call exits 0.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { bin, root, startServe } from '../../runtime/tasks/serve-process.js';

function call(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, 'call', ...args], { cwd: root, timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }),
    );
  });
}
const tool = (name: string) => ['tools/call', JSON.stringify({ name, arguments: {} })];

for (const rev of ['2025-11-25', 'draft']) {
  test(`--rev ${rev} --stdio: an isError result exits 4 and is printed; a successful one exits 0`, async () => {
    const serve = `"${process.execPath}" "${bin}" serve --stdio --rev ${rev}`;
    const err = await call('--stdio', serve, '--rev', rev, ...tool('test_error_handling'));
    assert.is(err.code, 4, err.stderr);
    assert.is(JSON.parse(err.stdout).isError, true);
    assert.match(err.stderr, /mcpgen call: tool test_error_handling reported an error \(isError: true\)/);
    const ok = await call('--stdio', serve, '--rev', rev, ...tool('test_simple_text'));
    assert.is(ok.code, 0, ok.stderr);
    assert.is(JSON.parse(ok.stdout).content[0].text, 'This is a simple text response for testing.');
  });

  test(`--rev ${rev} --url: an isError result exits 4`, async () => {
    const s = await startServe('--rev', rev);
    try {
      const err = await call('--url', s.url, '--rev', rev, ...tool('test_error_handling'));
      assert.is(err.code, 4, err.stderr);
      assert.is(JSON.parse(err.stdout).isError, true);
    } finally {
      s.proc.kill('SIGTERM');
      await s.exited;
    }
  });
}

test.run();
