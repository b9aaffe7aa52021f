/**
 * Determinism, provenance and layering of the generated tree:
 * - two `mcpgen generate --rev all` runs give the same tree hash, every file byte for byte,
 *   though each reads its inputs from its own copy of the spec folder and writes to its own
 *   output folder, and the second runs from a copy of mcpgen in another folder, under another
 *   time zone, locale and working directory; no generated file holds any of those folders;
 * - `mcpgen check` passes on that output moved to yet another folder, with the other inputs;
 * - every generated file starts with the one preamble, naming the mcpgen version, the revision
 *   and the first 12 hex of sha256 over both inputs' hashes (computed here from the files);
 * - an input differing from its pin by one byte is refused: exit 3, a message naming the file
 *   and both hashes, nothing written;
 * - generated code reaches the runtime only through its package entry `@mcpgen/runtime/codegen/v1`
 *   (or the `--runtime-import` given), and runtime/ never imports generated/.
 */
import { createHash } from 'node:crypto';
import { copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, extname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { tmpdir } from 'node:os';
import { DEFAULT_RUNTIME_IMPORT } from '../../generator/generate.js';
import { loadPins } from '../../schema/resolve.js';
import { PINNED, ROOT, SPEC_DIR, cli, listFiles, tempDir, tempOutput } from './support.js';

const test = suite('generator: determinism, preamble, pins, layering');
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const sha256 = (b: string | Uint8Array) => createHash('sha256').update(b).digest('hex');

/** sha256 over every path and its bytes, in code-unit order of path. */
function treeHash(dir: string): { hash: string; files: string[] } {
  const files = listFiles(dir);
  const h = createHash('sha256');
  for (const f of files) h.update(`${f}\0${sha256(readFileSync(join(dir, f)))}\n`);
  return { hash: h.digest('hex'), files };
}

let first: { out: string; cleanup: () => void } | undefined;
/** The second spec folder copy, kept for the check of a moved output. */
let specB: { dir: string; cleanup: () => void } | undefined;

/** A spec folder holding copies of every pinned revision's inputs, at the upstream paths. */
function specCopyAll(): { dir: string; cleanup: () => void } {
  const t = tempDir('mcpgen-spec-');
  for (const rev of PINNED) {
    for (const f of Object.values(loadPins().revisions[rev].files)) {
      mkdirSync(dirname(join(t.dir, f.path)), { recursive: true });
      copyFileSync(join(SPEC_DIR, f.path), join(t.dir, f.path));
    }
  }
  return t;
}

/** A copy of mcpgen (what `generate` loads: bin, sources with their templates, pins) in another folder, its node_modules linked. */
function checkoutCopy(): { bin: string; cleanup: () => void } {
  const t = tempDir('mcpgen-checkout-');
  for (const p of ['bin', 'cli', 'generator', 'schema', 'runtime', 'reference', 'package.json'])
    cpSync(join(ROOT, p), join(t.dir, p), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(t.dir, 'node_modules'), 'dir');
  return { bin: join(t.dir, 'bin', 'mcpgen.js'), cleanup: t.cleanup };
}

test('two generations from two checkouts, spec folders and output folders are byte-identical (other TZ, locale and cwd)', async () => {
  first = tempOutput();
  const second = tempOutput();
  const specA = specCopyAll();
  specB = specCopyAll();
  const copy = checkoutCopy();
  try {
    const [a, b] = await Promise.all([
      cli(['generate', '--rev', 'all', '--out', first.out], { MCP_SPEC_DIR: specA.dir }),
      cli(
        ['generate', '--rev', 'all', '--out', second.out],
        { MCP_SPEC_DIR: specB.dir, TZ: 'Pacific/Chatham', LANG: 'tr_TR.UTF-8', LC_ALL: 'tr_TR.UTF-8' },
        dirname(second.out),
        copy.bin,
      ),
    ]);
    assert.is(a.code, 0, a.stderr);
    assert.is(b.code, 0, b.stderr);
    const ha = treeHash(first.out);
    const hb = treeHash(second.out);
    assert.equal(hb.files, ha.files);
    for (const f of ha.files) {
      assert.ok(readFileSync(join(first.out, f)).equals(readFileSync(join(second.out, f))), `${f} differs`);
    }
    assert.is(hb.hash, ha.hash);
    // every pinned revision, each with its full file set; the parity check (which imports
    // upstream schema.ts by path) is the parity test's, not generate's
    for (const rev of PINNED) {
      for (const f of [
        'model.json',
        'types.gen.ts',
        'validators.gen.js',
        'validators.gen.d.ts',
        'protocol.gen.ts',
        'dispatch.gen.ts',
        'index.ts',
        'package.json',
      ]) {
        assert.ok(ha.files.includes(`${rev}/${f}`), `${rev}/${f} missing`);
      }
      assert.not.ok(ha.files.includes(`${rev}/parity.gen.ts`), `${rev}/parity.gen.ts is generated`);
    }
    // no machine path: none of the folders involved appears in any file
    const places = [ROOT, SPEC_DIR, specA.dir, specB.dir, dirname(first.out), dirname(copy.bin), tmpdir()];
    for (const f of ha.files) {
      const text = readFileSync(join(first.out, f), 'utf8');
      for (const p of places) assert.not.ok(text.includes(p), `${f} holds the folder ${p}`);
    }
  } finally {
    second.cleanup();
    specA.cleanup();
    copy.cleanup();
  }
});

test('mcpgen check passes on the output moved to another folder, with inputs from another spec folder', async () => {
  assert.ok(first && specB, 'the generation test did not run');
  const moved = tempDir('mcpgen-moved-');
  try {
    cpSync(first.out, join(moved.dir, 'src', 'mcp'), { recursive: true });
    // a handshake and a stateless revision (every revision's generation is compared above)
    const r = await cli(
      ['check', '--rev', '2025-11-25,draft', '--out', 'src/mcp'],
      { MCP_SPEC_DIR: specB.dir },
      moved.dir,
    );
    assert.is(r.code, 0, `${r.stdout}\n${r.stderr}`);
    assert.match(r.stdout, /check ok: \d+ file\(s\) of 2 revision\(s\) match a fresh generation/);
    // control: one changed byte in the moved tree is drift
    const file = join(moved.dir, 'src', 'mcp', '2025-11-25', 'types.gen.ts');
    writeFileSync(file, `${readFileSync(file, 'utf8')}// edited\n`);
    const drift = await cli(
      ['check', '--rev', '2025-11-25', '--out', 'src/mcp'],
      { MCP_SPEC_DIR: specB.dir },
      moved.dir,
    );
    assert.is(drift.code, 1, drift.stdout);
    assert.match(drift.stdout, 'changed  src/mcp/2025-11-25/types.gen.ts');
  } finally {
    moved.cleanup();
    specB.cleanup();
  }
});

/** Comment prefix of a generated file's first line, by extension (JSON has none). */
const COMMENT: Record<string, string | null> = {
  '.ts': '//',
  '.js': '//',
  '.mjs': '//',
  '.go': '//',
  '.rs': '//',
  '.java': '//',
  '.kt': '//',
  '.cs': '//',
  '.swift': '//',
  '.c': '//',
  '.h': '//',
  '.cpp': '//',
  '.hpp': '//',
  '.cc': '//',
  '.py': '#',
  '.rb': '#',
  '.toml': '#',
  '.yaml': '#',
  '.yml': '#',
  '.json': null,
};

test('every generated file starts with the preamble naming version, revision and input hash', () => {
  assert.ok(first, 'the generation test did not run');
  const files = listFiles(first.out);
  assert.ok(files.length >= PINNED.length * 8);
  for (const rev of PINNED) {
    const pin = loadPins().revisions[rev].files;
    const j = sha256(readFileSync(join(SPEC_DIR, pin['schema.json'].path)));
    const t = sha256(readFileSync(join(SPEC_DIR, pin['schema.ts'].path)));
    const hash12 = sha256(`${j}\n${t}\n`).slice(0, 12);
    const expected = `@generated by mcpgen ${VERSION} from ${rev} (sha256 ${hash12}) — do not edit`;
    for (const f of files.filter((x) => x.startsWith(`${rev}/`))) {
      const text = readFileSync(join(first.out, f), 'utf8');
      const ext = f.endsWith('.d.ts') ? '.ts' : extname(f);
      assert.ok(Object.hasOwn(COMMENT, ext), `${f}: no known comment syntax for ${ext}; add it here`);
      const prefix = COMMENT[ext];
      if (prefix === null) {
        // JSON cannot hold a comment: a JSON file (model.json, package.json) names the revision and
        // both inputs by their full hashes instead
        const m = JSON.parse(text) as {
          revision: string;
          inputs: { schemaJson: { sha256: string }; schemaTs: { sha256: string } };
        };
        assert.is(m.revision, rev, f);
        assert.equal([m.inputs.schemaJson.sha256, m.inputs.schemaTs.sha256], [j, t], f);
      } else {
        const line = text.slice(0, text.indexOf('\n'));
        assert.is(line, `${prefix} ${expected}`, f);
      }
      assert.ok(text.endsWith('\n') && !text.includes('\r\n'), `${f}: LF endings with a trailing newline`);
    }
  }
});

/** A spec folder holding copies of one revision's pinned inputs. */
function specCopy(rev: string): { dir: string; cleanup: () => void; path: (f: 'schema.json' | 'schema.ts') => string } {
  const t = tempDir('mcpgen-spec-');
  const pin = loadPins().revisions[rev].files;
  for (const f of ['schema.json', 'schema.ts'] as const) {
    mkdirSync(dirname(join(t.dir, pin[f].path)), { recursive: true });
    copyFileSync(join(SPEC_DIR, pin[f].path), join(t.dir, pin[f].path));
  }
  return { ...t, path: (f) => join(t.dir, pin[f].path) };
}

/** Changes one byte (a letter in the middle of the file, so the size stays the same). */
function flipOneByte(file: string): string {
  const buf = readFileSync(file);
  let i = buf.length >> 1;
  while (!/[a-z]/.test(String.fromCharCode(buf[i]))) i++;
  buf[i] = buf[i] === 0x78 ? 0x79 : 0x78;
  writeFileSync(file, buf);
  return sha256(buf);
}

test('an unchanged copy of the inputs generates (control)', async () => {
  const spec = specCopy('2025-11-25');
  try {
    const r = await cli(['generate', '--rev', '2025-11-25', '--out', join(spec.dir, 'out')], {
      MCP_SPEC_DIR: spec.dir,
    });
    assert.is(r.code, 0, r.stderr);
    assert.ok(existsSync(join(spec.dir, 'out', '2025-11-25', 'types.gen.ts')));
  } finally {
    spec.cleanup();
  }
});

for (const [file, how] of [
  ['schema.ts', 'MCP_SPEC_DIR'],
  ['schema.json', '--spec-dir'],
] as const) {
  test(`one changed byte in ${file} (via ${how}) is refused: exit 3, file and both hashes named, nothing written`, async () => {
    const rev = '2025-11-25';
    const spec = specCopy(rev);
    try {
      const changed = flipOneByte(spec.path(file));
      const pinned = loadPins().revisions[rev].files[file].sha256;
      assert.is.not(changed, pinned);
      const out = join(spec.dir, 'out');
      const args = ['generate', '--rev', rev, '--out', out, ...(how === '--spec-dir' ? ['--spec-dir', spec.dir] : [])];
      const r = await cli(args, { MCP_SPEC_DIR: how === 'MCP_SPEC_DIR' ? spec.dir : undefined });
      assert.is(r.code, 3, `exit ${r.code}\n${r.stdout}\n${r.stderr}`);
      assert.match(r.stderr, spec.path(file));
      assert.match(r.stderr, changed);
      assert.match(r.stderr, pinned);
      assert.not.ok(existsSync(out), 'output was written');
    } finally {
      spec.cleanup();
    }
  });
}

// ---- layering ----

/** Import specifiers of a TS/JS text (static, dynamic, require, `export … from`). */
const importsOf = (text: string) => ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName);

/**
 * Violations of the layering rule for the generated tree at `genRoot` (`<project>/generated`):
 * a specifier must stay inside its revision folder, or be the runtime entry point
 * `@mcpgen/runtime/codegen/v1` (the generator's default `runtimeImport`).
 */
function generatedViolations(genRoot: string, files: Array<{ path: string; text: string }>): string[] {
  const project = dirname(genRoot);
  const out: string[] = [];
  for (const { path, text } of files) {
    const revDir = join(genRoot, relative(genRoot, path).split(/[\\/]/)[0]);
    for (const spec of importsOf(text)) {
      const target = spec.startsWith('.') ? resolve(dirname(path), spec) : spec;
      const ok =
        spec === DEFAULT_RUNTIME_IMPORT || (spec.startsWith('.') && !relative(revDir, target).startsWith('..'));
      if (!ok) out.push(`${relative(project, path)} imports ${spec}`);
    }
  }
  return out;
}

const sources = (dir: string, root = dir) =>
  listFiles(dir)
    .filter((f) => /\.(ts|js|mjs)$/.test(f))
    .map((f) => ({ path: join(root, f), text: readFileSync(join(dir, f), 'utf8') }));

test('generated code imports the runtime only through @mcpgen/runtime/codegen/v1', () => {
  assert.ok(first, 'the generation test did not run');
  const files = sources(first.out);
  assert.ok(
    files.some((f) => importsOf(f.text).includes('@mcpgen/runtime/codegen/v1')),
    'no file imports the entry point',
  );
  assert.equal(generatedViolations(first.out, files), []);
  const project = join(ROOT, 'generated');
  if (existsSync(project)) assert.equal(generatedViolations(project, sources(project)), []);
});

test('the layering check catches a reach past the entry point, a package import and a sibling revision', () => {
  const gen = join(ROOT, 'generated');
  const violations = generatedViolations(gen, [
    { path: join(gen, 'draft', 'x.gen.ts'), text: "import { RpcError } from '../../runtime/jsonrpc/errors.js';" },
    { path: join(gen, 'draft', 'y.gen.ts'), text: "export * from 'ajv';" },
    { path: join(gen, 'draft', 'z.gen.ts'), text: "const m = await import('../2025-11-25/types.gen.js');" },
    { path: join(gen, 'draft', 'w.gen.ts'), text: "import { RpcError } from '@mcpgen/runtime/jsonrpc';" },
    {
      path: join(gen, 'draft', 'ok.gen.ts'),
      text: "import { formats } from '@mcpgen/runtime/codegen/v1';\nimport type * as T from './types.gen.js';",
    },
  ]);
  assert.equal(violations, [
    'generated/draft/x.gen.ts imports ../../runtime/jsonrpc/errors.js',
    'generated/draft/y.gen.ts imports ajv',
    'generated/draft/z.gen.ts imports ../2025-11-25/types.gen.js',
    'generated/draft/w.gen.ts imports @mcpgen/runtime/jsonrpc',
  ]);
});

test('--runtime-import is written verbatim; a specifier that cannot be a string literal is a usage error', async () => {
  const out = tempOutput();
  try {
    const spec = '../../runtime/codegen/v1.js';
    const r = await cli(['generate', '--rev', '2024-11-05', '--out', out.out, '--runtime-import', spec], {
      MCP_SPEC_DIR: SPEC_DIR,
    });
    assert.is(r.code, 0, r.stderr);
    const files = sources(join(out.out, '2024-11-05'));
    const runtimeSpecs = [...new Set(files.flatMap((f) => importsOf(f.text).filter((s) => !s.startsWith('./'))))];
    assert.equal(runtimeSpecs, [spec]);
    // the same tree checks clean with the same flag, and is drift without it
    const same = await cli(['check', '--rev', '2024-11-05', '--out', out.out, '--runtime-import', spec], {
      MCP_SPEC_DIR: SPEC_DIR,
    });
    assert.is(same.code, 0, same.stdout);
    const other = await cli(['check', '--rev', '2024-11-05', '--out', out.out], { MCP_SPEC_DIR: SPEC_DIR });
    assert.is(other.code, 1, other.stdout);
    assert.match(other.stdout, `from '${DEFAULT_RUNTIME_IMPORT}';`);
    for (const bad of ["x'y", 'a b', '']) {
      const u = await cli(['generate', '--rev', '2024-11-05', '--out', out.out, '--runtime-import', bad], {
        MCP_SPEC_DIR: SPEC_DIR,
      });
      assert.is(u.code, 2, `${bad}: ${u.stdout}${u.stderr}`);
      assert.match(u.stderr, '--runtime-import');
    }
  } finally {
    out.cleanup();
  }
});

test('runtime/ never imports generated/', () => {
  const runtime = join(ROOT, 'runtime');
  const generated = join(ROOT, 'generated');
  const bad: string[] = [];
  const files = sources(runtime);
  assert.ok(files.length >= 5);
  for (const { path, text } of files) {
    for (const spec of importsOf(text)) {
      const target = spec.startsWith('.') ? resolve(dirname(path), spec) : spec;
      if (!relative(generated, target).startsWith('..') || /(^|\/)generated\//.test(spec))
        bad.push(`${relative(ROOT, path)} imports ${spec}`);
    }
  }
  assert.equal(bad, []);
});

test.after(() => first?.cleanup());

test.run();
