/**
 * One process of the chaos deployment (./chaos.ts): what `mcpgen serve --rev 2025-11-25 --http 0
 * --redis <url>` runs (serveHttp: the reference server, its Redis stores), plus a tool `record
 * {key, steps, ms}` that appends `<key> <pid> start` to the file `<log>` as it starts (one line
 * per execution, whichever process ran it), reports `steps` progress notifications `ms` apart,
 * appends `<key> <pid> end` and answers `ran <key>`. Prints `listening on <url>` to stderr; SIGTERM closes it.
 * Usage: node --import tsx test/scale/chaos-serve.ts <redis-url> <log>
 */
import { appendFileSync } from 'node:fs';
import { loadRevision } from '../../cli/revisions.js';
import { serveHttp } from '../../cli/serve/http.js';

const [redis, log] = process.argv.slice(2);
if (!redis || !log) {
  process.stderr.write('usage: chaos-serve.ts <redis-url> <log>\n');
  process.exit(2);
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const served = await serveHttp(await loadRevision('2025-11-25'), {
  port: 0,
  redis,
  // the proxy in front forwards its own Host (127.0.0.1:<its port>), as --allowed-host 127.0.0.1
  allowedHosts: ['127.0.0.1'],
  logger: { warn: () => undefined },
  extend: (f) =>
    f.tool<{ key: string; steps: number; ms: number }>({
      name: 'record',
      description: 'Appends key to the execution log, reports steps progress notifications ms apart, answers ran <key>',
      inputSchema: {
        type: 'object',
        properties: { key: { type: 'string' }, steps: { type: 'integer' }, ms: { type: 'integer' } },
        required: ['key', 'steps', 'ms'],
      },
      handler: async (a, ctx) => {
        appendFileSync(log, `${a.key} ${process.pid} start\n`);
        for (let i = 1; i <= a.steps; i++) {
          await ctx.sendProgress(i, a.steps);
          await sleep(a.ms);
        }
        appendFileSync(log, `${a.key} ${process.pid} end\n`);
        return { content: [{ type: 'text', text: `ran ${a.key}` }] };
      },
    }),
});
process.stderr.write(`mcpgen serve: listening on ${served.url}\n`);
process.on('SIGTERM', () => {
  void served.close().then(() => process.exit(0));
});
