/**
 * The loop a project runs when upstream changes, end to end, offline, as processes in a temp
 * project folder outside the repository: a local HTTP server (node:http on 127.0.0.1, port 0)
 * plays the upstream raw-file host, serving `/<commit>/schema/<rev>/schema.{json,ts}` from a
 * temp folder the test fills at run time from $MCP_SPEC_DIR: 2025-11-25 at the shipped commit,
 * and a history/draft snapshot (2026-05-14, upstream commit 41173312) as the new draft.
 *
 * write mcpgen.config.json → `mcpgen pin draft --commit 41173312 --from URL` (the lock moves the
 * draft pin) → `mcpgen pull` (the rest through inputs.baseUrl) → `mcpgen diff 2025-11-25 draft
 * --fail-on breaking` (exit 1) and `diff draft draft` (exit 0) → `mcpgen generate` (into
 * src/mcp, with the config's runtimeImport, provenance from the lock) → `mcpgen check` passes
 * → a tampered upstream file: `pin` and `pull` refused (exit 3, both hashes named), the lock
 * and the cache untouched. Then `pin --from DIR` of a revision id mcpgen does not ship, and a
 * shipped pin adopted into the lock.
 */
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join, normalize, sep } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { main } from '../../cli/main.js';
import { MAX_INPUT_BYTES, loadPins } from '../../schema/resolve.js';
import { ROOT, SPEC_DIR, cli, listFiles, tempDir } from '../generator/support.js';

const test = suite(
  'cli: the pin loop of a project (config, lock, pin, pull, diff, generate, check) against a local upstream',
);

const pins = loadPins();
const SHIPPED = pins.upstream.commit;
const NEW_COMMIT = '41173312';
const SNAPSHOT = join(SPEC_DIR, 'history', 'draft', '2026-05-14_41173312');
const RUNTIME = '@acme/mcp-runtime/codegen/v1';
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
/** The spawned CLI sees no spec folder and no cache of the developer: only the project's config. */
const ENV = { MCP_SPEC_DIR: undefined, MCPGEN_CACHE: undefined, XDG_CACHE_HOME: undefined };

interface Upstream {
  server: Server;
  /** `http://127.0.0.1:<port>` */
  origin: string;
  requests: string[];
  /** url path (no leading slash) → bytes served instead of the file */
  override: Map<string, Buffer>;
}

async function serveUpstream(dir: string): Promise<Upstream> {
  const requests: string[] = [];
  const override = new Map<string, Buffer>();
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname).slice(1);
    requests.push(path);
    const file = normalize(join(dir, path));
    if (override.has(path)) res.writeHead(200).end(override.get(path));
    else if (file.startsWith(dir + sep) && existsSync(file)) res.writeHead(200).end(readFileSync(file));
    else res.writeHead(404).end('not found');
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests, override };
}
const close = (u: Upstream) => new Promise<void>((done) => u.server.close(() => done()));

function copyInto(from: string, to: string): void {
  mkdirSync(dirname(to), { recursive: true });
  copyFileSync(from, to);
}

/** A copy of `buf` with one letter changed (same size). */
function oneByteChanged(buf: Buffer): Buffer {
  const copy = Buffer.from(buf);
  let i = copy.length >> 1;
  while (!/[a-z]/.test(String.fromCharCode(copy[i]))) i++;
  copy[i] = copy[i] === 0x78 ? 0x79 : 0x78;
  return copy;
}

interface LockShape {
  lockVersion: number;
  revisions: Record<
    string,
    { repository: string; commit: string; files: Record<string, { path: string; sha256: string; size: number }> }
  >;
}

test('pin the new draft from the upstream URL, diff it in CI, regenerate, check; a tampered file is refused', async () => {
  const up = tempDir('mcpgen-upstream-');
  const project = tempDir('mcpgen-project-');
  assert.not.ok(project.dir.startsWith(ROOT), 'the project is outside the repository');
  // the upstream host's files, copied at run time from the spec checkout
  for (const f of ['schema.json', 'schema.ts']) {
    copyInto(join(SPEC_DIR, 'schema', '2025-11-25', f), join(up.dir, SHIPPED, 'schema', '2025-11-25', f));
    copyInto(join(SNAPSHOT, f), join(up.dir, NEW_COMMIT, 'schema', 'draft', f));
  }
  const snapshot = Object.fromEntries(['schema.json', 'schema.ts'].map((f) => [f, readFileSync(join(SNAPSHOT, f))]));
  const u = await serveUpstream(up.dir);
  const run = (...args: string[]) => cli(args, ENV, project.dir);
  try {
    const config = {
      $schema: join(ROOT, 'schema', 'config.schema.json'),
      revisions: ['2025-11-25', 'draft'],
      out: 'src/mcp',
      runtimeImport: RUNTIME,
      inputs: { cacheDir: '.mcpgen-cache', baseUrl: `${u.origin}/{commit}/{path}` },
    };
    writeFileSync(join(project.dir, 'mcpgen.config.json'), `${JSON.stringify(config, null, 2)}\n`);
    const lockFile = join(project.dir, 'mcpgen.lock.json');
    const cached = (commit: string, path: string) => join(project.dir, '.mcpgen-cache', commit, path);

    // 1. pin the new revision from the URL base (the upstream raw-file layout)
    const pin = await run('pin', 'draft', '--commit', NEW_COMMIT, '--from', `${u.origin}/${NEW_COMMIT}`);
    assert.is(pin.code, 0, pin.stderr);
    assert.match(
      pin.stdout,
      `draft: moved from ${pins.upstream.repository}@${SHIPPED}: ${pins.upstream.repository}@${NEW_COMMIT} in mcpgen.lock.json`,
    );
    assert.equal(u.requests.sort(), [`${NEW_COMMIT}/schema/draft/schema.json`, `${NEW_COMMIT}/schema/draft/schema.ts`]);
    const lockText = readFileSync(lockFile, 'utf8');
    const lock = JSON.parse(lockText) as LockShape;
    assert.equal(lock, {
      lockVersion: 1,
      revisions: {
        draft: {
          repository: pins.upstream.repository,
          commit: NEW_COMMIT,
          files: Object.fromEntries(
            (['schema.json', 'schema.ts'] as const).map((f) => [
              f,
              { path: `schema/draft/${f}`, sha256: sha256(snapshot[f]), size: snapshot[f].length },
            ]),
          ),
        },
      },
    });
    // the pinned files are in the cache, byte for byte
    for (const f of ['schema.json', 'schema.ts'])
      assert.ok(readFileSync(cached(NEW_COMMIT, `schema/draft/${f}`)).equals(snapshot[f]), f);

    // 2. pull the rest of the config's revisions through inputs.baseUrl (2025-11-25 at the shipped commit)
    u.requests.length = 0;
    const pull = await run('pull');
    assert.is(pull.code, 0, pull.stderr);
    assert.match(pull.stdout, 'pulled 2 file(s); 2 revision(s) verified');
    assert.equal(u.requests.sort(), [
      `${SHIPPED}/schema/2025-11-25/schema.json`,
      `${SHIPPED}/schema/2025-11-25/schema.ts`,
    ]);

    // 3. the CI step: diff the revision shipped today against the new one
    const [breaking, same] = await Promise.all([
      run('diff', '2025-11-25', 'draft', '--fail-on', 'breaking', '--format', 'json'),
      run('diff', 'draft', 'draft', '--fail-on', 'breaking'),
    ]);
    assert.is(breaking.code, 1, breaking.stderr);
    const report = JSON.parse(breaking.stdout) as {
      from: { revision: string };
      to: { revision: string; protocolVersion: string };
      summary: { breaking: number };
    };
    assert.is(report.from.revision, '2025-11-25');
    assert.is(report.to.revision, 'draft');
    assert.is(report.to.protocolVersion, 'DRAFT-2026-v1');
    assert.ok(report.summary.breaking > 0, JSON.stringify(report.summary));
    assert.is(same.code, 0, same.stderr);
    assert.match(same.stdout, '0 change(s)');

    // 4. regenerate into the config's out, with its runtime import and the lock's provenance
    const gen = await run('generate');
    assert.is(gen.code, 0, gen.stderr);
    assert.match(gen.stdout, /^2025-11-25: \d+ files \(.*\) from cache$/m);
    assert.match(gen.stdout, /^draft: \d+ files \(.*\) from cache$/m);
    assert.equal(
      listFiles(join(project.dir, 'src', 'mcp'))
        .map((f) => f.split('/')[0])
        .filter((x, i, a) => a.indexOf(x) === i),
      ['2025-11-25', 'draft'],
    );
    const model = JSON.parse(readFileSync(join(project.dir, 'src/mcp/draft/model.json'), 'utf8')) as {
      protocolVersion: string;
      inputs: {
        pinned: boolean;
        commit: string;
        schemaJson: { sha256: string; size: number };
        schemaTs: { sha256: string };
      };
    };
    assert.is(model.protocolVersion, 'DRAFT-2026-v1');
    assert.is(model.inputs.pinned, true);
    assert.is(model.inputs.commit, NEW_COMMIT);
    assert.is(model.inputs.schemaJson.sha256, sha256(snapshot['schema.json']));
    assert.is(model.inputs.schemaTs.sha256, sha256(snapshot['schema.ts']));
    const shipped = JSON.parse(
      readFileSync(join(project.dir, 'src/mcp/2025-11-25/model.json'), 'utf8'),
    ) as typeof model;
    assert.equal([shipped.inputs.pinned, shipped.inputs.commit], [true, SHIPPED]);
    const protocol = readFileSync(join(project.dir, 'src/mcp/draft/protocol.gen.ts'), 'utf8');
    assert.match(protocol, `from '${RUNTIME}'`);
    assert.not.match(protocol, 'runtime/codegen/v1.js');

    // 5. the drift check passes; a hand edit fails it
    const check = await run('check');
    assert.is(check.code, 0, check.stdout + check.stderr);
    assert.match(check.stdout, 'check ok: ');
    assert.match(check.stdout, ' of 2 revision(s) match');

    // 6. upstream serves a tampered file: pin and pull are refused, nothing is written
    const tsPath = `${NEW_COMMIT}/schema/draft/schema.ts`;
    const tampered = oneByteChanged(snapshot['schema.ts']);
    u.override.set(tsPath, tampered);
    const cacheBefore = listFiles(join(project.dir, '.mcpgen-cache'));
    const again = await run('pin', 'draft', '--from', `${u.origin}/${NEW_COMMIT}`);
    assert.is(again.code, 3, again.stdout + again.stderr);
    assert.match(again.stderr, `${u.origin}/${tsPath}`);
    assert.match(again.stderr, sha256(tampered));
    assert.match(again.stderr, sha256(snapshot['schema.ts']));
    assert.match(again.stderr, 'mcpgen.lock.json');
    assert.match(again.stderr, 'nothing written');
    assert.is(readFileSync(lockFile, 'utf8'), lockText);
    assert.ok(
      readFileSync(cached(NEW_COMMIT, 'schema/draft/schema.ts')).equals(snapshot['schema.ts']),
      'the cached file was overwritten',
    );

    // pull must download (the cached copy is gone): refused against the lock, nothing written
    rmSync(cached(NEW_COMMIT, 'schema/draft/schema.ts'));
    const pulled = await run('pull', '--rev', 'draft');
    assert.is(pulled.code, 3, pulled.stdout + pulled.stderr);
    assert.match(pulled.stderr, sha256(tampered));
    assert.match(pulled.stderr, sha256(snapshot['schema.ts']));
    assert.match(pulled.stderr, 'in mcpgen.lock.json');
    assert.is(readFileSync(lockFile, 'utf8'), lockText);
    assert.equal(
      listFiles(join(project.dir, '.mcpgen-cache')),
      cacheBefore.filter((f) => !f.endsWith('draft/schema.ts')),
    );
    // and generation does not fall back to anything unpinned
    const gen2 = await run('generate', '--rev', 'draft');
    assert.is(gen2.code, 3, gen2.stderr);
    assert.match(gen2.stderr, 'mcpgen pull');
  } finally {
    await close(u);
    up.cleanup();
    project.cleanup();
  }
});

test('pin --from DIR: a revision mcpgen does not ship, pinned in the lock only; a shipped pin adopted; a wrong folder refused', async () => {
  const project = tempDir('mcpgen-project-');
  const run = (...args: string[]) => cli(args, ENV, project.dir);
  try {
    writeFileSync(
      join(project.dir, 'mcpgen.config.json'),
      JSON.stringify({ revisions: ['2025-11-25'], inputs: { cacheDir: 'cache' } }),
    );
    const older = join(SPEC_DIR, 'history', 'draft', '2026-02-27_3e6c4f80');
    // a folder holding the two files (no upstream layout); a new id needs its commit
    const noCommit = await run('pin', 'draft-2026-02', '--from', older);
    assert.is(noCommit.code, 2, noCommit.stderr);
    assert.match(noCommit.stderr, '--commit');
    const added = await run('pin', 'draft-2026-02', '--commit', '3e6c4f80', '--from', older);
    assert.is(added.code, 0, added.stderr);
    assert.match(added.stdout, 'draft-2026-02: added: ');
    assert.match(added.stdout, 'note: draft-2026-02 is not in "revisions" of mcpgen.config.json');
    // an upstream-layout folder (the spec checkout) for a shipped revision: the pin is verified and locked
    const adopted = await run('pin', '2025-11-25', '--from', SPEC_DIR);
    assert.is(adopted.code, 0, adopted.stderr);
    assert.match(
      adopted.stdout,
      `2025-11-25: locked (the pin shipped with mcpgen): ${pins.upstream.repository}@${SHIPPED}`,
    );
    const lock = JSON.parse(readFileSync(join(project.dir, 'mcpgen.lock.json'), 'utf8')) as LockShape;
    assert.equal(Object.keys(lock.revisions), ['2025-11-25', 'draft-2026-02']);
    assert.equal(lock.revisions['2025-11-25'].files, pins.revisions['2025-11-25'].files);
    assert.is(lock.revisions['draft-2026-02'].files['schema.json'].path, 'schema/draft-2026-02/schema.json');
    assert.is(
      lock.revisions['draft-2026-02'].files['schema.json'].sha256,
      sha256(readFileSync(join(older, 'schema.json'))),
    );
    // the lock-only revision resolves as pinned, from the cache
    const list = await run('list');
    assert.match(list.stdout, /draft-2026-02\tcache\t\S+\t\(mcpgen\.lock\.json @ 3e6c4f80\)/);
    // another folder's files for the same commit: refused, the lock untouched
    const before = readFileSync(join(project.dir, 'mcpgen.lock.json'), 'utf8');
    const wrong = await run('pin', '2025-11-25', '--from', join(SPEC_DIR, 'schema', '2025-06-18'));
    assert.is(wrong.code, 3, wrong.stderr);
    assert.match(wrong.stderr, 'does not match the pin of 2025-11-25');
    assert.match(wrong.stderr, pins.revisions['2025-11-25'].files['schema.json'].sha256);
    assert.is(readFileSync(join(project.dir, 'mcpgen.lock.json'), 'utf8'), before);
    // bad flags are usage errors
    const badCommit = await run('pin', 'x', '--commit', 'HEAD', '--from', older);
    assert.is(badCommit.code, 2, badCommit.stderr);
    assert.match(badCommit.stderr, '--commit HEAD: expected 7 to 40 lowercase hex digits');
    const badFrom = await run('pin', 'x', '--commit', 'abcdef1', '--from', 'ftp://example.com/x');
    assert.is(badFrom.code, 2, badFrom.stderr);
    assert.match(badFrom.stderr, 'expected a folder or an http(s) URL');
  } finally {
    project.cleanup();
  }
});

test('pin with a wrong --commit and a mirror URL never overwrites what the cache holds at that commit', async () => {
  const project = tempDir('mcpgen-project-');
  const mirrorDir = tempDir('mcpgen-mirror-');
  const run = (...args: string[]) => cli(args, ENV, project.dir);
  const older = join(SPEC_DIR, 'history', 'draft', '2026-02-27_3e6c4f80');
  // a mirror laid out like the upstream repository, without commits in its URLs: it serves the newer snapshot
  for (const f of ['schema.json', 'schema.ts']) copyInto(join(SNAPSHOT, f), join(mirrorDir.dir, 'schema', 'snap', f));
  const mirror = await serveUpstream(mirrorDir.dir);
  try {
    writeFileSync(join(project.dir, 'mcpgen.config.json'), JSON.stringify({ inputs: { cacheDir: 'cache' } }));
    assert.is((await run('pin', 'snap', '--commit', '3e6c4f80', '--from', older)).code, 0);
    const cached = join(project.dir, 'cache', '3e6c4f80', 'schema', 'snap', 'schema.json');
    const verified = readFileSync(cached);
    assert.equal(verified, readFileSync(join(older, 'schema.json')));
    // the pin moves to the mirror's files, at their own commit
    const moved = await run('pin', 'snap', '--commit', NEW_COMMIT, '--from', mirror.origin);
    assert.is(moved.code, 0, moved.stderr);
    const lock = readFileSync(join(project.dir, 'mcpgen.lock.json'), 'utf8');
    // the wrong commit: the mirror's files are not the ones of 3e6c4f80, which the cache holds
    const wrong = await run('pin', 'snap', '--commit', '3e6c4f80', '--from', mirror.origin);
    assert.is(wrong.code, 3, wrong.stderr);
    assert.match(wrong.stderr, `differs from schema/snap/schema.json at commit 3e6c4f80 in the cache`);
    assert.match(wrong.stderr, sha256(verified));
    assert.match(wrong.stderr, sha256(readFileSync(join(SNAPSHOT, 'schema.json'))));
    assert.match(wrong.stderr, `is --commit 3e6c4f80 the commit of --from ${mirror.origin}?`);
    assert.equal(readFileSync(cached), verified, 'the cached file is untouched');
    assert.is(readFileSync(join(project.dir, 'mcpgen.lock.json'), 'utf8'), lock, 'the lock is untouched');
    // the right files for that commit are still accepted (the same bytes)
    assert.is((await run('pin', 'snap', '--commit', '3e6c4f80', '--from', older)).code, 0);
  } finally {
    await close(mirror);
    project.cleanup();
    mirrorDir.cleanup();
  }
});

test('pin refuses an upstream file over the size bound and a 404, naming the URL; nothing written', async () => {
  const project = tempDir('mcpgen-project-');
  const server = createServer((req, res) => {
    if (req.url?.startsWith('/abcdef1/')) {
      // announces one byte more than the bound and never finishes: refused on the head
      res.writeHead(200, { 'content-length': String(MAX_INPUT_BYTES + 1) });
      res.write('{');
    } else res.writeHead(404).end('not found');
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const config = join(project.dir, 'mcpgen.config.json');
    writeFileSync(config, JSON.stringify({ inputs: { cacheDir: 'cache', baseUrl: `${origin}/{commit}/{path}` } }));
    const lines: string[] = [];
    const io = { out: (l: string) => void lines.push(l), err: (l: string) => void lines.push(l) };
    const big = await main(['pin', 'big', '--commit', 'abcdef1', '--config', config], io);
    assert.is(big, 3, lines.join('\n'));
    assert.match(
      lines.join('\n'),
      `${origin}/abcdef1/schema/big/schema.json: schema/big/schema.json is larger than ${MAX_INPUT_BYTES} bytes; refused`,
    );
    lines.length = 0;
    writeFileSync(config, JSON.stringify({ inputs: { cacheDir: 'cache' } }));
    const missing = await main(
      ['pin', 'big', '--commit', 'abcdef1', '--from', `${origin}/elsewhere`, '--config', config],
      io,
    );
    assert.is(missing, 3, lines.join('\n'));
    assert.match(
      lines.join('\n'),
      `${origin}/elsewhere/schema/big/schema.json: HTTP 404 while fetching schema/big/schema.json`,
    );
    assert.equal(listFiles(project.dir), ['mcpgen.config.json']);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((done) => server.close(() => done()));
    project.cleanup();
  }
});

test.run();
