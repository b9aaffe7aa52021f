/**
 * Issue 44 (trial), the two-endpoint form of session expiry: two Streamable HTTP endpoints share
 * one Redis (request replay off), a client reaches them round-robin; while a call streams its
 * notifications from one endpoint, Redis loses every key (a restart without persistence), and
 * the client's next request reaches the other endpoint, which answers 404. That request fails
 * with SessionExpiredError; the streaming call still gets its result (it ran).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { HttpClientTransport, SessionExpiredError } from '../../../../../runtime/transport/http/session/node-client.js';
import { handshake, MiniClient, waitFor } from './helpers.js';
import { redisEndpoints, suiteRedis } from '../../../../hardening/replay-kit.js';

const redis = suiteRedis(test);

test('a 404 from the other endpoint after Redis lost the session fails that request only; the streaming call gets its result', async () => {
  const eps = await redisEndpoints(redis(), 2, {}, { requestReplay: false });
  let turn = 0;
  const roundRobin: typeof fetch = (input, init) => {
    const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
    url.port = String(eps.ports[turn++ % 2]);
    return fetch(url, init);
  };
  const transport = new HttpClientTransport({ url: eps.url(0), fetch: roundRobin, standaloneStream: false });
  const client = new MiniClient(transport);
  try {
    await handshake(client, transport);
    const call = client.request('stream', { count: 10, gapMs: 50 }).then(
      (v) => ({ ok: true as const, v }),
      (e: unknown) => ({ ok: false as const, e }),
    );
    await waitFor('the call streaming', () => client.notifications.length >= 2);
    await eps.stores[0]!.client.flushall();
    const list = await client.request('tools/list').then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.instance(list, SessionExpiredError);
    const outcome = await call;
    assert.ok(outcome.ok, outcome.ok ? '' : String(outcome.e));
    assert.equal(outcome.ok && outcome.v, { echo: { count: 10, gapMs: 50 } });
    assert.is(client.notifications.length, 10);
  } finally {
    await transport.close();
    await eps.close();
  }
});

test.run();
