/**
 * `npm run chaos`'s command line (scripts/chaos.ts): `--help` prints its usage and exits 0; an
 * unknown option, a missing value or a stray argument is one line naming it on stderr and exit 2
 * (no stack), and starts nothing (no Redis, no server: it is refused before the run is loaded).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const script = fileURLToPath(new URL('../../scripts/chaos.ts', import.meta.url));
const chaos = (...args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', script, ...args], { encoding: 'utf8', timeout: 60_000 });

test('chaos --help: the usage, every option named, exit 0', () => {
  const r = chaos('--help');
  assert.is(r.status, 0, r.stderr);
  assert.ok(r.stdout.startsWith('usage: npm run chaos -- [options]'), r.stdout);
  for (const o of ['sessions', 'calls', 'steps', 'step-ms', 'resets-per-second', 'pause-ms', 'call-timeout-ms', 'help'])
    assert.ok(
      r.stdout.includes(`--${o} `) || r.stdout.includes(`--${o}\n`) || r.stdout.includes(`--${o}  `),
      `--${o} in the usage`,
    );
  assert.is(r.stderr, '');
});

test('chaos: an unknown option, a missing value, a stray argument: one line naming it, exit 2', () => {
  for (const [args, names] of [
    [['--bogus'], "'--bogus'"],
    [['--sessions'], '--sessions'],
    [['extra'], "'extra'"],
    [['--calls', 'x'], '--calls'],
  ] as const) {
    const r = chaos(...args);
    assert.is(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.is(r.stdout, '');
    const lines = r.stderr.trimEnd().split('\n');
    assert.is(lines.length, 1, r.stderr);
    assert.ok(lines[0]!.startsWith('chaos: ') && lines[0]!.includes(names), r.stderr);
    assert.not.match(r.stderr, /ERR_PARSE_ARGS|^\s+at /m);
  }
});

test.run();
