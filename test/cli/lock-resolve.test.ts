/**
 * Where the inputs of a revision pinned by a project's lock are found: a spec folder from the
 * environment or the config holding another commit's files gives way to the cache at the
 * lock's commit; `--spec-dir` is used alone; with neither, the error names both places. The
 * lock's revisions replace the shipped ones and add to them, and the lock is written
 * deterministically.
 */
import { createHash } from 'node:crypto';
import { appendFileSync, copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type Lock, mergePins, writeLock } from '../../cli/lock.js';
import { PinError, loadPins, resolvePinned } from '../../schema/resolve.js';
import { SPEC_DIR, tempDir } from '../generator/support.js';

const test = suite('cli: revisions pinned by the lock, resolved from spec folders and the cache');

const SNAPSHOT = join(SPEC_DIR, 'history', 'draft', '2026-05-14_41173312');
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const fileOf = (f: string, path: string) => {
  const buf = readFileSync(join(SNAPSHOT, f));
  return { path, sha256: sha256(buf), size: buf.length };
};
const LOCK: Lock = {
  lockVersion: 1,
  revisions: {
    draft: {
      repository: 'modelcontextprotocol/modelcontextprotocol',
      commit: '41173312',
      files: {
        'schema.json': fileOf('schema.json', 'schema/draft/schema.json'),
        'schema.ts': fileOf('schema.ts', 'schema/draft/schema.ts'),
      },
    },
    'next-1': {
      repository: 'example/mcp-fork',
      commit: 'abcdef1',
      files: {
        'schema.json': fileOf('schema.json', 'schema/next-1/schema.json'),
        'schema.ts': fileOf('schema.ts', 'schema/next-1/schema.ts'),
      },
    },
  },
};

test('a spec folder of another commit gives way to the cache at the lock commit; --spec-dir does not', () => {
  const t = tempDir('mcpgen-resolve-');
  try {
    const pins = mergePins(loadPins(), LOCK, join(t.dir, 'mcpgen.lock.json'));
    const cache = join(t.dir, 'cache');
    const env = { MCP_SPEC_DIR: SPEC_DIR };
    // nothing cached: the spec folder's mismatch, and where the cache was looked for
    assert.throws(
      () => resolvePinned('draft', { env, cacheDir: cache }, pins),
      (e: Error) =>
        e instanceof PinError &&
        / does not match the pin /.test(e.message) &&
        e.message.includes(`the cache has no verified copy at ${join(cache, '41173312')}`),
    );
    for (const rev of ['draft', 'next-1']) {
      for (const f of ['schema.json', 'schema.ts']) {
        const dest = join(cache, LOCK.revisions[rev].commit, 'schema', rev, f);
        mkdirSync(join(dest, '..'), { recursive: true });
        copyFileSync(join(SNAPSHOT, f), dest);
      }
    }
    const draft = resolvePinned('draft', { env, cacheDir: cache }, pins);
    assert.equal([draft.source, draft.pinned, draft.commit], ['cache', true, '41173312']);
    assert.is(draft.files['schema.ts'].sha256, LOCK.revisions.draft.files['schema.ts'].sha256);
    // the config's spec folder is tried the same way (here it lacks the revision's folder)
    const next = resolvePinned('next-1', { env, projectSpecDir: SPEC_DIR, cacheDir: cache }, pins);
    assert.equal([next.source, next.commit], ['cache', 'abcdef1']);
    // a shipped revision the lock does not name still comes from the spec folder, at the shipped commit
    const shipped = resolvePinned('2025-11-25', { env, cacheDir: cache }, pins);
    assert.equal([shipped.source, shipped.commit], ['MCP_SPEC_DIR', loadPins().upstream.commit]);
    // --spec-dir is used alone: its mismatch is the answer
    assert.throws(
      () => resolvePinned('draft', { specDir: SPEC_DIR, cacheDir: cache }, pins),
      (e: Error) =>
        e instanceof PinError &&
        e.message.startsWith(join(SPEC_DIR, 'schema/draft/schema.json')) &&
        !e.message.includes('the cache'),
    );
  } finally {
    t.cleanup();
  }
});

test('a damaged copy in the cache is said to be damaged (and that pull fetches it again), not missing', () => {
  const t = tempDir('mcpgen-resolve-damaged-');
  try {
    const pins = mergePins(loadPins(), LOCK, join(t.dir, 'mcpgen.lock.json'));
    const cache = join(t.dir, 'cache');
    for (const f of ['schema.json', 'schema.ts']) {
      const dest = join(cache, '41173312', 'schema', 'draft', f);
      mkdirSync(join(dest, '..'), { recursive: true });
      copyFileSync(join(SNAPSHOT, f), dest);
    }
    const damaged = join(cache, '41173312', 'schema', 'draft', 'schema.json');
    appendFileSync(damaged, 'junk');
    assert.throws(
      () => resolvePinned('draft', { env: {}, cacheDir: cache }, pins),
      (e: Error) =>
        e instanceof PinError &&
        e.message.startsWith(`${damaged}: `) &&
        / does not match the pin /.test(e.message) &&
        e.message.includes('the cached copy is damaged: `mcpgen pull` downloads it again') &&
        !e.message.includes('no verified copy'),
    );
    // with nothing anywhere, the message names the config's inputs.specDir among the places
    assert.throws(
      () => resolvePinned('draft', { env: {}, cacheDir: join(t.dir, 'empty') }, pins),
      (e: Error) =>
        e instanceof PinError &&
        /^no inputs for revision draft: set MCP_SPEC_DIR, --spec-dir or the config's inputs\.specDir /.test(e.message),
    );
  } finally {
    t.cleanup();
  }
});

test('the lock is written in code-unit order with a trailing newline, whatever the order it was built in', () => {
  const t = tempDir('mcpgen-lock-');
  try {
    const reversed: Lock = {
      lockVersion: 1,
      revisions: { 'next-1': LOCK.revisions['next-1'], draft: LOCK.revisions.draft },
    };
    writeLock(join(t.dir, 'a.json'), LOCK);
    writeLock(join(t.dir, 'b.json'), reversed);
    const a = readFileSync(join(t.dir, 'a.json'), 'utf8');
    assert.is(a, readFileSync(join(t.dir, 'b.json'), 'utf8'));
    assert.ok(a.endsWith('}\n') && !a.includes('\r'));
    assert.equal(Object.keys((JSON.parse(a) as Lock).revisions), ['draft', 'next-1']);
    const merged = mergePins(loadPins(), JSON.parse(a) as Lock, join(t.dir, 'a.json'));
    assert.is(merged.revisions.draft.commit, '41173312');
    assert.is(merged.revisions['next-1'].repository, 'example/mcp-fork');
    assert.is(merged.revisions['2025-11-25'].commit, undefined, 'a shipped pin keeps the shipped upstream');
  } finally {
    t.cleanup();
  }
});

test.run();
