/** Revision facts read from the generated tables (runtime/protocol/versions.ts), and endpoints that are not told which revisions they serve. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { table as t20241105 } from '../../../generated/2024-11-05/index.js';
import { table as t20250618 } from '../../../generated/2025-06-18/index.js';
import { table as t20251125 } from '../../../generated/2025-11-25/index.js';
import { table as tDraft } from '../../../generated/draft/index.js';
import { httpVersionFacts, protocolVersions, tablesOf } from '../../../runtime/protocol/versions.js';
import { createStreamableHttpHandler } from '../../../runtime/transport/http/session/server.js';
import { createStatelessHttpHandler } from '../../../runtime/transport/http/stateless/server.js';

test('versions come in table order, each once', () => {
  assert.equal(protocolVersions([t20251125, t20250618, t20251125, t20241105]), [
    '2025-11-25',
    '2025-06-18',
    '2024-11-05',
  ]);
  assert.equal(
    tablesOf([tDraft, t20251125, t20241105], 'handshake').map((t) => t.revision),
    ['2025-11-25', '2024-11-05'],
  );
  assert.equal(
    tablesOf([tDraft, t20251125], 'stateless').map((t) => t.revision),
    ['draft'],
  );
});

test('HTTP facts: the assumed version and the primed versions are those the tables state', () => {
  const all = httpVersionFacts([t20251125, t20250618, t20241105]);
  assert.equal(all.versions, ['2025-11-25', '2025-06-18', '2024-11-05']);
  assert.is(all.assumed, '2025-03-26');
  assert.equal([...all.priming], ['2025-11-25']);
  const old = httpVersionFacts([t20241105]);
  assert.is(old.assumed, undefined);
  assert.equal([...old.priming], []);
  assert.is(t20241105.http.transport, 'http+sse');
  assert.is(tDraft.http.primesStreams, false);
});

test('an endpoint not told what it serves is refused at creation', () => {
  assert.throws(
    () => createStreamableHttpHandler({ onSession: () => undefined }),
    (e: unknown) => e instanceof TypeError && /tables/.test((e as Error).message),
  );
  assert.throws(
    () => createStatelessHttpHandler({}),
    (e: unknown) => e instanceof TypeError && /tables/.test((e as Error).message),
  );
});

test.run();
