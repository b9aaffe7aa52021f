/**
 * `mcpgen pull` against a local HTTP server (node:http on 127.0.0.1, port 0) that serves the
 * files of $MCP_SPEC_DIR at `/{path}`, into a temporary MCPGEN_CACHE; then `mcpgen generate`
 * with MCP_SPEC_DIR unset finds the cache. A served file with one changed byte is refused and
 * not written. And the CLI's exit codes: 2 for usage errors, 3 for missing inputs (naming the
 * file).
 */
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join, normalize } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { main } from '../../cli/main.js';
import { loadPins } from '../../schema/resolve.js';
import { SPEC_DIR, cli, listFiles, tempDir } from './support.js';

const test = suite('generator: mcpgen pull, the cache, CLI exit codes');
const pins = loadPins();
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

interface Served {
  server: Server;
  base: string;
  requests: string[];
  /** path → bytes to serve instead of the file */
  override: Map<string, Buffer>;
}

async function serve(): Promise<Served> {
  const requests: string[] = [];
  const override = new Map<string, Buffer>();
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname).slice(1);
    requests.push(path);
    const file = normalize(join(SPEC_DIR, path));
    if (override.has(path)) {
      res.writeHead(200).end(override.get(path));
    } else if (file.startsWith(SPEC_DIR) && existsSync(file)) {
      res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(readFileSync(file));
    } else {
      res.writeHead(404).end('not found');
    }
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return { server, base: `http://127.0.0.1:${port}/{path}`, requests, override };
}
const close = (s: Served) => new Promise<void>((done) => s.server.close(() => done()));

/** A copy of `buf` with one letter changed (same size). */
function oneByteChanged(buf: Buffer): Buffer {
  const copy = Buffer.from(buf);
  let i = copy.length >> 1;
  while (!/[a-z]/.test(String.fromCharCode(copy[i]))) i++;
  copy[i] = copy[i] === 0x78 ? 0x79 : 0x78;
  return copy;
}

test('pull fills the cache from --base-url; generate without MCP_SPEC_DIR finds it', async () => {
  const s = await serve();
  const cache = tempDir('mcpgen-cache-');
  try {
    const rev = '2025-11-25';
    const env = { MCPGEN_CACHE: cache.dir, MCP_SPEC_DIR: undefined };
    const r = await cli(['pull', '--rev', rev, '--base-url', s.base], env);
    assert.is(r.code, 0, r.stderr);
    const files = pins.revisions[rev].files;
    assert.equal(s.requests.sort(), [files['schema.json'].path, files['schema.ts'].path].sort());
    for (const f of ['schema.json', 'schema.ts'] as const) {
      const cached = join(cache.dir, pins.upstream.commit, files[f].path);
      assert.ok(existsSync(cached), `${cached} missing`);
      assert.is(sha256(readFileSync(cached)), files[f].sha256);
    }
    assert.match(r.stdout, 'pulled 2 file(s)');

    // a second pull finds valid files and downloads nothing
    const again = await cli(['pull', '--rev', rev, '--base-url', s.base], env);
    assert.is(again.code, 0, again.stderr);
    assert.is(s.requests.length, 2);
    assert.match(again.stdout, 'pulled 0 file(s)');

    const out = join(cache.dir, 'out');
    const g = await cli(['generate', '--rev', rev, '--out', out], env);
    assert.is(g.code, 0, g.stderr);
    assert.match(g.stdout, `${rev}: `);
    assert.match(g.stdout, 'from cache');
    assert.ok(listFiles(join(out, rev)).includes('types.gen.ts'));
    // model.json names the inputs by hash and size, not by where they were found
    const text = readFileSync(join(out, rev, 'model.json'), 'utf8');
    const model = JSON.parse(text) as { inputs: { schemaTs: Record<string, unknown> } };
    const pin = loadPins().revisions[rev].files['schema.ts'];
    assert.equal(model.inputs.schemaTs, { sha256: pin.sha256, size: pin.size });
    assert.not.ok(text.includes(cache.dir), 'model.json holds the cache folder');
  } finally {
    await close(s);
    cache.cleanup();
  }
});

for (const bad of ['schema.json', 'schema.ts'] as const) {
  test(`a served ${bad} with one changed byte is refused (exit 3, both hashes named) and not written`, async () => {
    const s = await serve();
    const cache = tempDir('mcpgen-cache-');
    try {
      const rev = '2025-06-18';
      const pin = pins.revisions[rev].files[bad];
      const changed = oneByteChanged(readFileSync(join(SPEC_DIR, pin.path)));
      s.override.set(pin.path, changed);
      const r = await cli(['pull', '--rev', rev, '--base-url', s.base], {
        MCPGEN_CACHE: cache.dir,
        MCP_SPEC_DIR: undefined,
      });
      assert.is(r.code, 3, `exit ${r.code}\n${r.stderr}`);
      assert.match(r.stderr, pin.path);
      assert.match(r.stderr, sha256(changed));
      assert.match(r.stderr, pin.sha256);
      const written = existsSync(cache.dir) ? listFiles(cache.dir) : [];
      assert.not.ok(
        written.some((f) => f.endsWith(pin.path) || f.endsWith('.part')),
        written.join(', '),
      );
      // every file is verified before any is written: the good one is not there either
      assert.equal(written, []);
      // and generate does not take the half-filled cache
      const g = await cli(['generate', '--rev', rev, '--out', join(cache.dir, 'out')], {
        MCPGEN_CACHE: cache.dir,
        MCP_SPEC_DIR: undefined,
      });
      assert.is(g.code, 3, g.stderr);
    } finally {
      await close(s);
      cache.cleanup();
    }
  });
}

test('a 404 from the server is an input error naming the URL', async () => {
  const s = await serve();
  const cache = tempDir('mcpgen-cache-');
  try {
    const base = s.base.replace('{path}', 'nowhere/{path}');
    const r = await cli(['pull', '--rev', 'draft', '--base-url', base], { MCPGEN_CACHE: cache.dir });
    assert.is(r.code, 3, r.stderr);
    assert.match(r.stderr, 'HTTP 404');
    assert.match(r.stderr, `/nowhere/${pins.revisions.draft.files['schema.json'].path}`);
  } finally {
    await close(s);
    cache.cleanup();
  }
});

test('usage errors exit 2: unknown command, unknown flag, conflicting flags, no command', async () => {
  const cases: Array<[string[], RegExp]> = [
    [['frobnicate'], /unknown command "frobnicate"/],
    [['generate', '--bogus'], /bogus/],
    [['pull', '--rev', 'draft', '--nope'], /nope/],
    [['list', '--rev'], /rev/],
    [['generate', '--spec-dir', '/a', '--unpinned', '/b'], /exclude each other/],
    [['generate', 'extra'], /unexpected arguments: extra/],
    [['list', 'extra'], /unexpected arguments: extra/],
    [['check', 'x', 'y'], /unexpected arguments: x y/],
    [['pull', 'extra'], /unexpected arguments: extra/],
    [['serve', '--stdio', 'extra'], /unexpected arguments: extra/],
    [['serve', '--stdio', '--http', '0'], /--stdio and --http exclude each other/],
    [['serve', '--stdio', '--modern-only'], /--modern-only applies to a stateless revision/],
    // flags of the HTTP endpoint mean nothing on stdio: named, not ignored
    [
      ['serve', '--stdio', '--allowed-host', 'mcp.example.com', '--shutdown-grace-ms', '5000'],
      /--allowed-host and --shutdown-grace-ms apply to --http only/,
    ],
    [['serve', '--stdio', '--redis', 'redis://127.0.0.1:6379'], /--redis applies to --http only/],
    [['serve', '--stdio', '--host', '0.0.0.0'], /--host applies to --http only/],
    [['generate', '--out', ''], /--out needs a value; an empty one was given/],
    [[], /Usage:/],
  ];
  for (const [args, message] of cases) {
    const lines: string[] = [];
    const code = await main(args, { out: (l) => lines.push(l), err: (l) => lines.push(l) });
    assert.is(code, 2, `mcpgen ${args.join(' ')}: exit ${code}`);
    assert.match(lines.join('\n'), message, args.join(' '));
  }
  // and through the executable, as a process exit code
  const r = await cli(['generate', '--bogus']);
  assert.is(r.code, 2, r.stderr);
  assert.match(r.stderr, 'see mcpgen generate --help');
});

test('missing inputs exit 3 with a message naming the file', async () => {
  const t = tempDir('mcpgen-spec-');
  try {
    const rev = '2025-11-25';
    const files = pins.revisions[rev].files;
    mkdirSync(dirname(join(t.dir, files['schema.json'].path)), { recursive: true });
    copyFileSync(join(SPEC_DIR, files['schema.json'].path), join(t.dir, files['schema.json'].path));
    const schemaDir = dirname(join(t.dir, files['schema.json'].path));
    const out = join(t.dir, 'out');
    const [a, b, c, d] = await Promise.all([
      // --spec-dir holding schema.json only
      cli(['generate', '--rev', rev, '--spec-dir', t.dir, '--out', out]),
      // --unpinned folder without schema.ts
      cli(['generate', '--unpinned', schemaDir, '--out', out]),
      // no MCP_SPEC_DIR and an empty cache
      cli(['generate', '--rev', rev, '--out', out], {
        MCP_SPEC_DIR: undefined,
        MCPGEN_CACHE: join(t.dir, 'empty-cache'),
      }),
      // an unknown revision
      cli(['generate', '--rev', '1999-01-01', '--out', out]),
    ]);
    assert.is(a.code, 3, a.stderr);
    assert.match(a.stderr, join(t.dir, files['schema.ts'].path));
    assert.not.match(a.stderr, join(t.dir, files['schema.json'].path), 'schema.json is there');
    assert.is(b.code, 3, b.stderr);
    assert.match(b.stderr, 'missing schema.ts');
    assert.is(c.code, 3, c.stderr);
    assert.match(c.stderr, 'MCP_SPEC_DIR');
    assert.match(c.stderr, 'mcpgen pull');
    assert.is(d.code, 2, d.stderr);
    assert.match(d.stderr, '--rev: unknown revision "1999-01-01"');
    assert.not.ok(existsSync(join(t.dir, 'out')), 'output was written');
  } finally {
    t.cleanup();
  }
});

test.run();
