/**
 * `mcpgen init` picks its scaffold (sessions, or the stateless endpoint and client) from the
 * revision's ProtocolModel lifecycle, the fact the generator uses, never from the revision's name:
 * inputs of 2026-07-28 named "next" are stateless, inputs of 2025-11-25 named "2099-01-01" are a
 * handshake revision, and the files follow the lifecycle they are given, whatever the name says.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { type InitOptions, projectFiles, revisionLifecycle } from '../../cli/commands/init.js';
import { resolveUnpinned } from '../../schema/resolve.js';
import { SPEC_DIR } from '../generator/support.js';

test('the lifecycle comes from the model: 2026-07-28 inputs named "next" are stateless, 2025-11-25 inputs named "2099-01-01" are handshake', async () => {
  assert.is(await revisionLifecycle(resolveUnpinned(join(SPEC_DIR, 'schema', '2026-07-28'), 'next')), 'stateless');
  assert.is(
    await revisionLifecycle(resolveUnpinned(join(SPEC_DIR, 'schema', '2025-11-25'), '2099-01-01')),
    'handshake',
  );
  assert.is(await revisionLifecycle(resolveUnpinned(join(SPEC_DIR, 'schema', 'draft'), 'draft')), 'stateless');
});

const options = (rev: string, stateless: boolean): InitOptions => ({
  rev,
  stateless,
  transport: 'http',
  client: true,
  runtimeSpec: '^1.0.0',
  mcpgenSpec: '^1.0.0',
});

test('the HTTP scaffold follows the lifecycle, not the name: a stateless "next", a handshake "2099-01-01"', () => {
  const next = projectFiles('/tmp/next-server', options('next', true));
  assert.match(next.get('src/server.ts')!, /createStatelessHttpHandler/);
  assert.not.match(next.get('src/server.ts')!, /createStreamableHttpHandler/);
  assert.match(next.get('src/client.ts')!, /new StatelessHttpClientTransport\(\{ url: target \}\)/);
  assert.match(next.get('src/server.ts')!, /\.\/mcp\/next\/index\.js/);

  const later = projectFiles('/tmp/later-server', options('2099-01-01', false));
  assert.match(later.get('src/server.ts')!, /createStreamableHttpHandler\(\{ tables: \[table\], onSession/);
  assert.not.match(later.get('src/server.ts')!, /createStatelessHttpHandler/);
  assert.match(later.get('src/client.ts')!, /new HttpClientTransport\(\{ url: target \}\)/);
});

test("the project's tsconfig.json names strictNullChecks (the generated types need it: TS2589 without), besides strict", () => {
  for (const [rev, stateless] of [
    ['2025-11-25', false],
    ['2026-07-28', true],
  ] as const) {
    const tsconfig = JSON.parse(projectFiles('/tmp/p', options(rev, stateless)).get('tsconfig.json')!);
    assert.is(tsconfig.compilerOptions.strict, true, rev);
    assert.is(tsconfig.compilerOptions.strictNullChecks, true, rev);
  }
});

test.run();
