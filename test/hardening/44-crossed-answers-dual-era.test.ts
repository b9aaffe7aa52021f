/**
 * Issue 44, crossed answers, one connection served by two engines: a dual-era stdio connection
 * (runtime/stateless/dual-era.ts EraRouter) carries a modern and a legacy server session, each
 * with its own engine. Each numbered its requests to the client from 0, so two requests in
 * flight at once, one per era, had one id: the client's two answers went to the side that asked
 * last (the first completing its request with the other era's answer, the second dropped). The
 * modern side's ids now have a prefix of their own: each answer reaches the request it answers.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { table as draft } from '../../generated/draft/index.js';
import { table as v2025 } from '../../generated/2025-11-25/index.js';
import { Peer } from '../../runtime/engine/peer.js';
import { EraRouter } from '../../runtime/stateless/dual-era.js';
import { wire } from '../runtime/support.js';

const roots = (name: string) => ({ roots: [{ uri: `file:///${name}`, name }] });

test('a modern and a legacy request to the client in flight at once: each gets its own answer', async () => {
  const w = await wire();
  const router = new EraRouter(w.transport);
  const modern = new Peer({ side: 'server', table: draft, transport: router.modern, timeout: 5000 });
  const legacy = new Peer({ side: 'server', table: v2025, transport: router.legacy, timeout: 5000 });
  await Promise.all([modern.start(), legacy.start()]);
  await router.start();
  try {
    const asked = [modern.request('roots/list'), legacy.request('roots/list')];
    for (const p of asked) p.catch(() => undefined);
    const requests = [await w.next(), await w.next()];
    for (const [i, name] of ['modern', 'legacy'].entries())
      await w.send({ jsonrpc: '2.0', id: requests[i].id, result: roots(name) });
    const got = await Promise.allSettled(asked);
    assert.equal(
      got.map((r) => (r.status === 'fulfilled' ? r.value : String(r.reason))),
      [roots('modern'), roots('legacy')],
    );
    assert.is.not(JSON.stringify(requests[0].id), JSON.stringify(requests[1].id), 'one connection, two ids');
  } finally {
    await Promise.all([modern.close(), legacy.close()]);
  }
});

test.run();
