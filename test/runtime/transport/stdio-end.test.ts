/**
 * The stdio server's end of input (2025-11-25 basic/lifecycle "Shutdown": the client closes the
 * server's stdin and waits for it to exit): requests still in flight are answered before the
 * server closes, and a request the server would send then fails at once instead of waiting for
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

test('serve --stdio: a tools/call in flight when stdin ends is answered, then the server exits 0', async () => {
  const child = spawnStdioServe(['--rev', '2025-11-25'], { stderr: 'ignore' });
  const lines: Array<{ id?: number; result?: { content?: Array<{ text?: string }> }; error?: unknown }> = [];
  onLines(child.stdout!, (l) => lines.push(JSON.parse(l)));
  const exited = new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
  child.stdin!.write(`${JSON.stringify(INIT)}\n`);
  // the handshake first, so the call below is in flight when stdin ends
  for (let i = 0; i < 600 && !lines.some((m) => m.id === 1); i++) await new Promise((r) => setTimeout(r, 50));
  child.stdin!.end(
    [
      JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'slow_compute', arguments: { seconds: 0.5 } },
      }),
      '',
    ].join('\n'),
  );
  assert.is(await exited, 0);
  const answer = lines.find((m) => m.id === 2);
  assert.ok(answer, `tools/call answered before the exit: ${JSON.stringify(lines)}`);
  assert.is(answer!.error, undefined, JSON.stringify(answer));
  assert.match(answer!.result!.content![0]!.text!, /Computed sum|done/);
});

test('after stdin ended, a request the server sends fails with ConnectionClosedError and the call in flight is still answered', async () => {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const out: Array<{ id?: number; result?: { content?: Array<{ text?: string }> } }> = [];
  onLines(stdout, (l) => out.push(JSON.parse(l)));
  let sampling: unknown;
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
  assert.equal(out.find((m) => m.id === 2)?.result?.content, [{ type: 'text', text: 'answered' }]);
});

test.run();
