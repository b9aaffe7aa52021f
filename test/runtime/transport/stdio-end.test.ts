/**
 * The stdio server's end of input (2025-11-25 basic/lifecycle "Shutdown": the client closes the
 * server's stdin and waits for it to exit): the handlers of requests still in flight are told
 * (`ctx.signal` aborts, as when an HTTP connection closes) and their answers still go out
 * before the server closes, and a request the server would send then fails at once instead of waiting for
 * an answer that cannot come. Real `mcpgen serve --stdio` processes and real pipes.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PassThrough } from 'node:stream';
import { onLines, spawnStdioServe } from '../tasks/serve-process.js';
import { Server } from '../../../generated/2025-11-25/index.js';
import { ServerFeatures } from '../../../runtime/features/server-features.js';
import { StdioServerTransport } from '../../../runtime/transport/stdio.js';
import { ConnectionClosedError } from '../../../runtime/jsonrpc/errors.js';

const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '0' } },
};

test('serve --stdio: when stdin ends, a tools/call in flight is told (ctx.signal aborts) and answered, then the server exits 0', async () => {
  const child = spawnStdioServe(['--rev', '2025-11-25'], { stderr: 'ignore' });
  const lines: Array<{ id?: number; result?: unknown; error?: { code?: number; message?: string } }> = [];
  onLines(child.stdout!, (l) => lines.push(JSON.parse(l)));
  const exited = new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
  child.stdin!.write(`${JSON.stringify(INIT)}\n`);
  // the handshake first, so the call below is in flight when stdin ends
  for (let i = 0; i < 600 && !lines.some((m) => m.id === 1); i++) await new Promise((r) => setTimeout(r, 50));
  // slow_compute waits on ctx.signal between its steps: 60 s unless the signal aborts
  child.stdin!.end(
    [
      JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'slow_compute', arguments: { seconds: 60 } },
      }),
      '',
    ].join('\n'),
  );
  assert.is(await exited, 0);
  const answer = lines.find((m) => m.id === 2);
  assert.ok(answer, `tools/call answered before the exit: ${JSON.stringify(lines)}`);
  // the signal's reason (ConnectionClosedError) is what the handler threw: it goes out as that error
  assert.equal(answer!.error, { code: -32000, message: 'Connection closed' }, JSON.stringify(answer));
});

test("after stdin ended, a request the server sends fails with ConnectionClosedError, the handler's signal has aborted and its call is still answered", async () => {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const out: Array<{ id?: number; result?: { content?: Array<{ text?: string }> } }> = [];
  onLines(stdout, (l) => out.push(JSON.parse(l)));
  let sampling: unknown;
  let reason: unknown;
  const features = new ServerFeatures();
  features.tool({
    name: 'ask',
    inputSchema: { type: 'object' },
    handler: async (_args, ctx) => {
      await new Promise((r) => setTimeout(r, 100));
      try {
        await ctx.sendRequest('sampling/createMessage', { messages: [], maxTokens: 1 });
      } catch (e) {
        sampling = e;
      }
      reason = ctx.signal.aborted ? ctx.signal.reason : 'not aborted';
      return { content: [{ type: 'text', text: 'answered' }] };
    },
  });
  const server = new Server({
    serverInfo: { name: 's', version: '0' },
    capabilities: features.capabilities(),
    handlers: features.handlers(),
  });
  let closed = false;
  const transport = new StdioServerTransport({ stdin, stdout });
  await server.connect(transport);
  const done = new Promise<void>((r) => stdout.once('finish', () => ((closed = true), r())));
  stdin.write(`${JSON.stringify({ ...INIT, params: { ...INIT.params, capabilities: { sampling: {} } } })}\n`);
  stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  stdin.end(
    `${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'ask', arguments: {} } })}\n`,
  );
  await done;
  assert.ok(closed);
  assert.instance(sampling, ConnectionClosedError);
  assert.instance(reason, ConnectionClosedError);
  assert.equal(out.find((m) => m.id === 2)?.result?.content, [{ type: 'text', text: 'answered' }]);
});

test.run();
