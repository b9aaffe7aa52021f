/**
 * The dual-era property (issue 45), short form inside `npm test`: a fixed seed, ~1 000 messages
 * of both eras (valid and mutated) into `mcpgen serve --stdio --rev draft` and `--http 0 --rev
 * draft`: every request id answered exactly once, no answer naming an id never sent as a request.
 * The long form, ≥ 10^6 messages: `npm run fuzz:dual-era`; a failing run replays with
 * `npm run fuzz:dual-era -- --seed 20261205 --transport <t> --run <i>`.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { clean, drawRun, dualFigures, killTargets, Ledger, runDualEra, state } from './dual-era.js';

const SEED = 20261205;

test('the ledger counts a second answer, an answer to a notification and an unanswered request', () => {
  const ledger = new Ledger('stdio');
  // find a run with a request, a notification-shaped request and a notification
  const rendered = ledger.render(0, drawRun(SEED, 'stdio', 0), 'stdio', () => undefined);
  const request = rendered.find((r) => r.plan.kind === 'request' && r.place !== undefined);
  assert.ok(request, 'the run has a request');
  const id = /"id":("[^"]*"|-?\d+)/.exec(request.text)?.[1];
  assert.ok(id, 'the request carries an id');
  const answer = `{"jsonrpc":"2.0","id":${id},"result":{}}`;
  assert.is(ledger.answer(answer), request.place);
  assert.is(ledger.report.doubleAnswers, 0);
  ledger.answer(answer);
  assert.is(ledger.report.doubleAnswers, 1, 'a second answer to one id is a double answer');
  ledger.answer('{"jsonrpc":"2.0","id":"r99999k0","result":{}}');
  assert.is(ledger.report.unknownIdAnswers, 1, 'an id never sent is counted');
  const others = ledger.pending(0).filter((p) => p !== request.place);
  ledger.close(0);
  assert.is(ledger.report.unanswered, others.length, 'each request left unanswered is counted');
  assert.not.ok(clean(ledger.report));
});

test(`dual-era property, seed ${SEED}: every request answered once over stdio and HTTP`, async () => {
  // every wait inside is bounded; should one still hang, the test fails naming where
  let watchdog: NodeJS.Timeout | undefined;
  const reports = await Promise.race([
    runDualEra({ seed: SEED, messages: 1000, transports: ['stdio', 'http'], restartEvery: 12, lanes: 4 }),
    new Promise<never>((_, reject) => {
      watchdog = setTimeout(() => {
        killTargets();
        reject(new Error(`the property did not end in 15 min (at ${state.phase})`));
      }, 900_000);
    }),
  ]).finally(() => clearTimeout(watchdog));
  for (const r of reports)
    console.log(
      dualFigures(r)
        .filter((l) => /messages:|requests:|double|unknown|unanswered|restarts|initialized/.test(l))
        .join('\n'),
    );
  assert.equal(
    reports.map((r) => `${r.transport}: ${r.violations.slice(0, 6).join(' | ')}`),
    reports.map((r) => `${r.transport}: `),
    'no violation',
  );
  for (const r of reports) {
    assert.ok(clean(r), `${r.transport} clean`);
    assert.ok(r.messages >= 1000, `${r.transport}: ${r.messages} messages sent`);
    assert.ok(r.answers > r.requests / 2, `${r.transport}: answers came (${r.answers} for ${r.requests} requests)`);
  }
  const stdio = reports.find((r) => r.transport === 'stdio')!;
  assert.ok(stdio.restarts >= 1, 'the pipe was restarted (runs before and after a 2025-11-25 initialize)');
  assert.ok(stdio.runsInitialized >= 1, 'runs met an initialized pipe');
});

test.run();
