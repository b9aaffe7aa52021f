/**
 * `mcpgen call --url` opens the standalone GET stream (2025-11-25 basic/transports, "Listening
 * for Messages from the Server") before its request, so log messages a server sends outside the
 * request's stream print on stderr as they do over stdio. The server here logs through its
 * session (`server.log`, no related request), which over Streamable HTTP goes to the GET stream;
 * the reference server's test_tool_with_logging logs on behalf of its request (on the POST's
 * own stream), and those print too.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server, table, type Protocol } from '../../../generated/2025-11-25/index.js';
import { ServerFeatures } from '../../../runtime/features/server-features.js';
import { createStreamableHttpHandler } from '../../../runtime/transport/http/session/server.js';
import { bin, root, startServe } from '../../runtime/tasks/serve-process.js';

function call(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, 'call', ...args], { cwd: root, timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }),
    );
  });
}
const logLines = (stderr: string) => stderr.split('\n').filter((l) => l.startsWith('log '));
const MESSAGES = ['Tool execution started', 'Tool processing data', 'Tool execution completed'];
const expected = (logger: string) => MESSAGES.map((m) => `log info [${logger}]: ${m}`);

test('--url 2025-11-25: the log messages a server sends on the standalone stream print, as over --stdio', async () => {
  const handler = createStreamableHttpHandler({
    tables: [table],
    onSession: async (transport) => {
      const features = new ServerFeatures<Protocol>();
      let server: Server | undefined;
      features.tool({
        name: 'log_through_session',
        inputSchema: { type: 'object' },
        handler: async () => {
          // through the session, no related request: the GET stream
          for (const m of MESSAGES) await server!.log('info', m, 'session');
          return { content: [{ type: 'text', text: 'Logging completed' }] };
        },
      });
      server = new Server({
        serverInfo: { name: 'session-logger', version: '1.0.0' },
        capabilities: { ...features.capabilities(), logging: {} },
        handlers: features.handlers(),
      });
      await server.connect(transport);
    },
  });
  const http = createServer(handler);
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  try {
    const r = await call(
      '--url',
      url,
      '--rev',
      '2025-11-25',
      'tools/call',
      JSON.stringify({ name: 'log_through_session', arguments: {} }),
    );
    assert.is(r.code, 0, r.stderr);
    assert.is(JSON.parse(r.stdout).content[0].text, 'Logging completed');
    assert.equal(logLines(r.stderr), expected('session'), r.stderr);
  } finally {
    await handler.close();
    await new Promise((r) => http.close(r));
  }
});

test('--url and --stdio 2025-11-25: the logs of test_tool_with_logging (on its own request stream) print', async () => {
  const params = JSON.stringify({ name: 'test_tool_with_logging', arguments: {} });
  const s = await startServe('--rev', '2025-11-25');
  try {
    const http = await call('--url', s.url, '--rev', '2025-11-25', 'tools/call', params);
    assert.is(http.code, 0, http.stderr);
    assert.is(JSON.parse(http.stdout).content[0].text, 'Logging completed');
    assert.equal(logLines(http.stderr), expected('reference-server'));
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
  assert.equal(logLines(stdio.stderr), expected('reference-server'));
});

test.run();
