// Preload of the idle-session memory figures in bench/http.ts, loaded the same way into every
// server measured (`node --expose-gc --require bench/gc-probe.cjs <server>`): on SIGUSR2 it
// runs full garbage collections (100 ms apart, so finalizers, weak callbacks and the release of
// freed pages settle) and writes one line to stderr:
// `mcpgen-probe {"rss":…,"heapUsed":…,"heapTotal":…,"external":…}` (bytes, process.memoryUsage()).
'use strict';
const { setTimeout: sleep } = require('node:timers/promises');

process.on('SIGUSR2', async () => {
  if (typeof globalThis.gc !== 'function') {
    process.stderr.write('mcpgen-probe {"error":"run with --expose-gc"}\n');
    return;
  }
  for (let i = 0; i < 4; i++) {
    globalThis.gc();
    await sleep(100);
  }
  const { rss, heapUsed, heapTotal, external } = process.memoryUsage();
  process.stderr.write(`mcpgen-probe ${JSON.stringify({ rss, heapUsed, heapTotal, external })}\n`);
});
