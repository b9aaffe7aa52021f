/**
 * Load with matching at a small size (bench/load-run.ts; full size: `npm run bench:load`):
 * 50 concurrent Streamable HTTP sessions × 5 echo calls and 20 concurrent stateless clients × 5
 * calls (all using the same ids), each call carrying its own token: every call answered, with
 * its own id and token, on its own POST; one session per client.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadFigures, runLoad } from '../../bench/load-run.js';

test('load: 50 sessions × 5 calls and 20 stateless clients × 5 calls, nothing lost or crossed', async () => {
  const r = await runLoad({ sessions: 50, calls: 5, stateless: 20, sockets: 64 });
  console.log(
    [...loadFigures('sessions', r.sessions), ...loadFigures('stateless', r.stateless)]
      .filter((l) => /calls:|lost|crossed|sessions:/.test(l))
      .join('\n'),
  );
  assert.equal(r.sessions.problems, [], 'no problem in the sessions part');
  assert.is(r.sessions.calls, 250);
  assert.is(r.sessions.answered, 250, 'every session call answered with its own id and token');
  assert.is(r.sessions.sessions, 50, 'one session per client');
  assert.equal(r.stateless.problems, [], 'no problem in the stateless part');
  assert.is(r.stateless.calls, 100);
  assert.is(r.stateless.answered, 100, 'every stateless call answered with its own id and token');
});

test.run();
