/**
 * A session lost with a call in flight (2025-11-25 basic/transports, "Session Management"; case
 * 006): `mcpgen serve --http` (a real process, SSE replies) is killed (SIGKILL) while a
 * `tools/call` streams its progress, and started again on the same port, sessions gone. The
 * call's stream, resumed, gets 404: the call fails "may have run" (ConnectionClosedError, cause
 * SessionExpiredError), and a call made as soon as it failed waits for the new session the
 * client starts, rather than being posted without one (a 400, "Mcp-Session-Id header is
 * required"). Both client forms (node:http, fetch).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Client } from '../../../../../generated/2025-11-25/index.js';
import { ConnectionClosedError } from '../../../../../runtime/jsonrpc/errors.js';
import { HttpClientTransport, SessionExpiredError } from '../../../../../runtime/transport/http/session/node-client.js';
import { HttpClientTransport as FetchHttpClientTransport } from '../../../../../runtime/transport/http/session/fetch-client.js';
import { bin, root, START_TIMEOUT_MS, waitForUrl } from '../../../tasks/serve-process.js';

async function serve(port: number): Promise<{ proc: ChildProcess; url: string }> {
  const proc = spawn(
    process.execPath,
    [bin, 'serve', '--http', String(port), '--rev', '2025-11-25', '--reply', 'sse'],
    {
      cwd: root,
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
  return { proc, url: await waitForUrl(proc, exited, START_TIMEOUT_MS) };
}

const kill = (proc: ChildProcess) =>
  new Promise<void>((r) => {
    if (proc.exitCode !== null || proc.signalCode !== null) return r();
    proc.once('exit', () => r());
    proc.kill('SIGKILL');
  });

for (const form of ['node', 'fetch'] as const) {
  test(`${form}: after the session is lost with a call in flight, the next call goes on a new session`, async () => {
    let server = await serve(0);
    const port = Number(new URL(server.url).port);
    const client = new Client({ clientInfo: { name: 'expiry', version: '1' } });
    // resumed until the new process listens, however long its start takes on a loaded machine;
    // no standalone GET stream: the call's own stream is the one that meets the 404
    const options = {
      url: server.url,
      standaloneStream: false,
      reconnect: { initialDelayMs: 100, maxDelayMs: 300, maxRetries: 1000, refusedForMs: 120_000 },
    };
    await client.connect(
      form === 'node'
        ? new HttpClientTransport(options)
        : new FetchHttpClientTransport({ ...options, fetch: globalThis.fetch }),
    );
    let restarted: Promise<void> | undefined;
    try {
      // awaited directly, as a caller would: what it sends next is sent as soon as it can run
      let lost: unknown = 'resolved';
      try {
        await client.callTool(
          { name: 'slow_compute', arguments: { seconds: 30 } },
          {
            timeout: 60_000,
            onProgress: () => {
              if (restarted) return;
              restarted = kill(server.proc).then(async () => {
                server = await serve(port);
              });
            },
          },
        );
      } catch (e) {
        lost = e;
      }
      // sent as soon as the first call failed: it must wait for the new session
      const next = client.callTool({ name: 'echo', arguments: { text: 'again' } }, { timeout: 15_000 });
      assert.instance(lost, ConnectionClosedError);
      assert.instance((lost as ConnectionClosedError).cause, SessionExpiredError);
      assert.equal((await next).content, [{ type: 'text', text: 'again' }]);
    } finally {
      await restarted;
      await client.close().catch(() => undefined);
      await kill(server.proc);
    }
  });
}

test.run();
