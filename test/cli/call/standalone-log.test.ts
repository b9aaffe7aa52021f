/**
 * `mcpgen call --url` opens the standalone GET stream (2025-11-25 basic/transports, "Listening
 * for Messages from the Server") before its request, so log messages a server sends outside the
 * request's stream print on stderr as they do over stdio: the reference tool
 * test_tool_with_logging logs through its session (no related request), which over Streamable
 * HTTP goes to the GET stream.
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
const logLines = (stderr: string) => stderr.split('\n').filter((l) => l.startsWith('log '));
const expected = ['Tool execution started', 'Tool processing data', 'Tool execution completed'].map(
  (m) => `log info [reference-server]: ${m}`,
);
const params = JSON.stringify({ name: 'test_tool_with_logging', arguments: {} });

test('--url 2025-11-25: the log messages sent on the standalone stream print, as over --stdio', async () => {
  const s = await startServe('--rev', '2025-11-25');
  try {
    const http = await call('--url', s.url, '--rev', '2025-11-25', 'tools/call', params);
    assert.is(http.code, 0, http.stderr);
    assert.is(JSON.parse(http.stdout).content[0].text, 'Logging completed');
    assert.equal(logLines(http.stderr), expected);
  } finally {
    s.proc.kill('SIGTERM');
    await s.exited;
  }
  const stdio = await call(
    '--stdio',
    `"${process.execPath}" "${bin}" serve --stdio --rev 2025-11-25`,
    '--rev',
    '2025-11-25',
    'tools/call',
    params,
  );
  assert.is(stdio.code, 0, stdio.stderr);
  assert.equal(logLines(stdio.stderr), expected);
});

test.run();
