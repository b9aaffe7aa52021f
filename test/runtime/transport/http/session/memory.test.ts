/**
 * Server memory after sessions end: 200 generated Clients (half Streamable HTTP, half the old
 * HTTP+SSE transport) each initialize, call and stay open against `serve --http` (one shared
 * reference server definition), then close. Afterwards no session is live, every server
 * session made for them has been garbage-collected (nothing shared — the features' notification
 * targets, the handler tables — holds on to one), and the heap, after a forced gc, is within
 * 4 MiB of the warmed-up baseline. Runs in a child with `--expose-gc`.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

const root = fileURLToPath(new URL('../../../../..', import.meta.url));
const MiB = 1024 * 1024;

test('200 sessions end: none live, none reachable, heap back near baseline', async () => {
  const out = await new Promise<string>((resolve, reject) => {
    execFile(
      process.execPath,
      ['--expose-gc', '--import', 'tsx', 'test/fixtures/http-sessions-memory.ts', '200'],
      { cwd: root, timeout: 120_000 },
      (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout)),
    );
  });
  const r = JSON.parse(out.trim().split('\n').pop()!) as {
    baseline: number;
    live: number;
    after: number;
    created: number;
    reachable: number;
    streamable: number;
    legacy: number;
  };
  assert.is(r.streamable, 0, 'no Streamable HTTP session left');
  assert.is(r.legacy, 0, 'no HTTP+SSE session left');
  assert.is(r.created, 200, 'one server session per client');
  assert.is(r.reachable, 0, 'every ended server session was garbage-collected');
  const grown = (r.after - r.baseline) / MiB;
  console.log(
    `memory: heap ${(r.baseline / MiB).toFixed(1)} → ${(r.live / MiB).toFixed(1)} with 200 clients and sessions live (one process) → ${(r.after / MiB).toFixed(1)} MiB after they ended`,
  );
  assert.ok(grown < 4, `heap grew ${grown.toFixed(1)} MiB`);
});

test.run();
