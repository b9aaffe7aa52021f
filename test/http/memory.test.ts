/**
 * Server memory after sessions end: 200 generated Clients (half Streamable HTTP, half the old
 * HTTP+SSE transport) each initialize, call and close against `serve --http`; afterwards no
 * session is live and the heap, after a forced gc, is within 4 MiB of the warmed-up baseline
 * (a session retained per client would add far more). Runs in a child with `--expose-gc`.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

const root = fileURLToPath(new URL('../..', import.meta.url));
const MiB = 1024 * 1024;

test('200 sessions end: none live, heap back near baseline', async () => {
  const out = await new Promise<string>((resolve, reject) => {
    execFile(process.execPath, ['--expose-gc', '--import', 'tsx', 'test/fixtures/http-sessions-memory.ts', '200'], { cwd: root, timeout: 120_000 }, (err, stdout, stderr) =>
      err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout),
    );
  });
  const r = JSON.parse(out.trim().split('\n').pop()!) as { baseline: number; after: number; streamable: number; legacy: number };
  assert.is(r.streamable, 0, 'no Streamable HTTP session left');
  assert.is(r.legacy, 0, 'no HTTP+SSE session left');
  const grown = (r.after - r.baseline) / MiB;
  console.log(`memory: heap ${(r.baseline / MiB).toFixed(1)} → ${(r.after / MiB).toFixed(1)} MiB after 200 sessions`);
  assert.ok(grown < 4, `heap grew ${grown.toFixed(1)} MiB`);
});

test.run();
