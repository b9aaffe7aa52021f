/**
 * The per-revision export table (generator/emit/package.ts `REVISION_EXPORTS`), decided from
 * each revision's model:
 * - every pinned revision gets the subpaths of its era and transports (2024-11-05: HTTP+SSE
 *   only; 2025-03-26 and 2025-06-18: Streamable HTTP too; 2025-11-25: the tasks receiver too;
 *   2026-07-28 and draft: stateless HTTP, dual-era, tasks extension, input-required,
 *   subscriptions, cache), and the manifest's `exports` are exactly those;
 * - the choice follows the model's facts, not the revision's name: a renamed model gets the
 *   same subpaths, a stateless model without input-required requests, `subscriptions/listen` and
 *   `CacheableResult` loses those three;
 * - the entry modules: values in the `.js` and the `.d.ts`, type-only names in the `.d.ts`
 *   alone, each name once per module, every import the runtime package's.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ProtocolModel } from '../../generator/model.js';
import {
  PACKAGE_RUNTIME_IMPORT,
  REVISION_EXPORTS,
  RUNTIME_PACKAGE,
  packageEntries,
  packageEntryModules,
  packageManifest,
  revisionFacts,
} from '../../generator/emit/package.js';
import { PINNED, ROOT } from './support.js';

/** The model `generate` wrote for `rev` (generated/<rev>/model.json). */
const model = (rev: string): ProtocolModel =>
  JSON.parse(readFileSync(join(ROOT, 'generated', rev, 'model.json'), 'utf8')) as ProtocolModel;
const subpaths = (m: ProtocolModel): string[] => packageEntries(m).map((e) => e.subpath);

const COMMON = ['.', './errors', './features', './stdio', './memory'];
const HANDSHAKE_SSE = [...COMMON, './http/legacy-sse'];
const HANDSHAKE = [...COMMON, './http', './http/legacy-sse'];
const STATELESS = [
  ...COMMON,
  './http/stateless',
  './dual-era',
  './tasks',
  './input-required',
  './subscriptions',
  './cache',
];
const EXPECTED: Record<string, string[]> = {
  '2024-11-05': HANDSHAKE_SSE,
  '2025-03-26': HANDSHAKE,
  '2025-06-18': HANDSHAKE,
  '2025-11-25': [...HANDSHAKE, './tasks'],
  '2026-07-28': STATELESS,
  draft: STATELESS,
};

test('every pinned revision: the subpaths of its era and transports, and the manifest exports exactly those', () => {
  assert.equal([...PINNED].sort(), Object.keys(EXPECTED).sort(), 'a pinned revision without expectations');
  for (const rev of PINNED) {
    const m = model(rev);
    assert.equal(subpaths(m), EXPECTED[rev], rev);
    const manifest = packageManifest(m) as {
      exports: Record<string, unknown>;
      peerDependencies: Record<string, string>;
      dependencies?: unknown;
    };
    assert.equal(Object.keys(manifest.exports), [...EXPECTED[rev], './package.json'], rev);
    assert.equal(Object.keys(manifest.peerDependencies), [RUNTIME_PACKAGE], rev);
    assert.is(manifest.dependencies, undefined, rev);
  }
  // the task rows are the era's: receiver and requestor, or the extension
  const tasks = (rev: string) =>
    packageEntries(model(rev))
      .find((e) => e.subpath === './tasks')!
      .rows.flatMap((r) => r.values);
  assert.ok(tasks('2025-11-25').includes('attachTaskReceiver') && tasks('2025-11-25').includes('callWithTask'));
  assert.not.ok(tasks('2025-11-25').includes('TasksExtension'));
  assert.ok(tasks('draft').includes('TasksExtension'));
  assert.not.ok(tasks('draft').includes('attachTaskReceiver'));
});

test('decided from the model, not the revision name: a renamed model, a stateless model without the optional features', () => {
  for (const rev of ['2025-11-25', 'draft']) {
    const renamed = { ...model(rev), revision: 'zz-unseen', protocolVersion: '2099-01-01' };
    assert.equal(subpaths(renamed), EXPECTED[rev], rev);
  }
  const d = model('draft');
  const bare: ProtocolModel = {
    ...d,
    requests: d.requests
      .filter((r) => r.method !== 'subscriptions/listen')
      .map((r) => ({ ...r, inputRequired: false })),
    types: Object.fromEntries(Object.entries(d.types).filter(([name]) => name !== 'CacheableResult')),
  };
  assert.equal(revisionFacts(bare), {
    lifecycle: 'stateless',
    sessionHttp: false,
    tasksUtility: false,
    inputRequired: false,
    subscriptions: false,
    cache: false,
  });
  assert.equal(subpaths(bare), [...COMMON, './http/stateless', './dual-era', './tasks']);
  const sse = { ...model('2025-11-25'), http: { ...model('2025-11-25').http, transport: 'http+sse' as const } };
  assert.equal(subpaths(sse), [...HANDSHAKE_SSE, './tasks']);
});

test('entry modules: values in .js and .d.ts, types in .d.ts only, each name once, imports of the runtime package only', () => {
  for (const rev of ['2025-11-25', 'draft']) {
    const m = model(rev);
    const files = packageEntryModules(m);
    for (const e of packageEntries(m)) {
      if (!e.rows.length) {
        assert.is(e.module, 'index');
        continue;
      }
      const js = files.get(`${e.module}.js`)!;
      const dts = files.get(`${e.module}.d.ts`)!;
      assert.ok(js && dts, `${rev} ${e.subpath}: no module`);
      const named = (text: string) =>
        [...text.matchAll(/export \{ ([^}]+) \} from '([^']+)';/g)].flatMap((x) =>
          x[1].split(', ').map((n) => [n, x[2]] as const),
        );
      const jsNames = named(js).map(([n]) => n);
      const dtsNames = named(dts).map(([n]) => n);
      // row by row: its values then its types, a name already exported left out
      const seen = new Set<string>();
      const fresh = (names: readonly string[]) => names.filter((n) => !seen.has(n) && (seen.add(n), true));
      const perRow = e.rows.map((r) => ({ values: fresh(r.values), types: fresh(r.types) }));
      assert.equal(
        jsNames,
        perRow.flatMap((r) => r.values),
        `${rev} ${e.subpath} .js`,
      );
      assert.equal(
        dtsNames,
        perRow.flatMap((r) => [...r.values, ...r.types.map((t) => `type ${t}`)]),
        `${rev} ${e.subpath} .d.ts`,
      );
      for (const [, spec] of [...named(js), ...named(dts)])
        assert.ok(spec.startsWith(`${RUNTIME_PACKAGE}/`), `${rev} ${e.subpath}: ${spec}`);
    }
  }
  // ./errors draws from two runtime subpaths; ./http/stateless too (continueAfterChecks)
  const errors = packageEntryModules(model('draft')).get('entries/errors.js')!;
  assert.match(errors, `from '${RUNTIME_PACKAGE}/jsonrpc'`);
  assert.match(errors, `from '${RUNTIME_PACKAGE}/session'`);
  assert.is(PACKAGE_RUNTIME_IMPORT, `${RUNTIME_PACKAGE}/codegen/v1`);
  // every row's subpath and runtime subpath are package subpaths
  for (const r of REVISION_EXPORTS)
    assert.ok(r.subpath.startsWith('./') && r.from.startsWith('./'), `${r.subpath} from ${r.from}`);
});

test.run();
