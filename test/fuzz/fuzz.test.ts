/**
 * The short fuzz run inside `npm test`: a fixed seed, 12 s per target (stdio and Streamable HTTP,
 * 2025-11-25 and the dual-era draft server), the whole oracle of ./run.ts: no crash, no hang,
 * no wrong answer on any target. A failure lists the first violations with their batch numbers;
 * `npm run fuzz -- --seed 20261201 --seconds 12 --transport <t> --era <e> --batch <i>` replays one.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { figures, fuzz } from './run.js';

const SEED = 20261201;

test(`fuzz: seed ${SEED}, 12 s per transport and era: no crash, no hang, no wrong answer`, async () => {
  const reports = await fuzz({
    seed: SEED,
    seconds: 12,
    transports: ['stdio', 'http'],
    eras: ['2025-11-25', 'draft'],
    minimize: false,
  });
  for (const r of reports)
    console.log(
      figures(r)
        .filter((l) => !l.includes('.answers.') && !l.includes('.status.'))
        .join('\n'),
    );
  const found = reports.flatMap((r) =>
    r.failed.slice(0, 4).map(
      (f) =>
        `${r.name} batch ${f.batch}: ${f.violations
          .slice(0, 2)
          .map((v) => `${v.category} (${v.detail.slice(0, 120)})`)
          .join('; ')}`,
    ),
  );
  assert.equal(
    reports.map((r) => `${r.name}: ${r.crashes} crashes, ${r.hangs} hangs, ${r.wrong} wrong answers`),
    reports.map((r) => `${r.name}: 0 crashes, 0 hangs, 0 wrong answers`),
    found.join('\n'),
  );
  for (const r of reports) assert.ok(r.frames > 50, `${r.name}: frames were sent (${r.frames})`);
});

test.run();
