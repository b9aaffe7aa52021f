/**
 * Bad input to the CLI gets a clear message naming the file and field and the documented exit
 * code — never a stack trace, never a write outside --out.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../cli/main.js';

const SPEC = process.env.MCP_SPEC_DIR!;
const tmp = mkdtempSync(join(tmpdir(), 'mcpgen-bad-'));
const cli = async (...args: string[]) => {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, { out: (l) => void out.push(l), err: (l) => void err.push(l) });
  return { code, err: err.join('\n') };
};
const folder = (name: string, json: string | null, tsText: string | null) => {
  const dir = join(tmp, name);
  mkdirSync(dir, { recursive: true });
  if (json !== null) writeFileSync(join(dir, 'schema.json'), json);
  if (tsText !== null) writeFileSync(join(dir, 'schema.ts'), tsText);
  return dir;
};
const draftJson = () => readFileSync(join(SPEC, 'schema/draft/schema.json'), 'utf8');
const draftTs = () => readFileSync(join(SPEC, 'schema/draft/schema.ts'), 'utf8');

test('a --rev that is not a plain id is refused before anything is written or wiped', async () => {
  const out = join(tmp, 'sandbox/out');
  mkdirSync(out, { recursive: true });
  writeFileSync(join(tmp, 'sandbox/precious'), 'keep');
  writeFileSync(join(out, 'precious'), 'keep');
  const dir = folder('u-rev', draftJson(), draftTs());
  for (const rev of ['..', '.', '../../x', 'a/b', '']) {
    const r = await cli('generate', '--unpinned', dir, '--rev', rev, '--out', out);
    assert.is(r.code, 2, rev);
    // (an empty value is refused by the flag parser, as for every flag)
    assert.match(r.err, rev === '' ? /--rev needs a value; an empty one was given/ : /invalid revision id/);
  }
  assert.is(readFileSync(join(tmp, 'sandbox/precious'), 'utf8'), 'keep');
  assert.is(readFileSync(join(out, 'precious'), 'utf8'), 'keep');
});

test('an unpinned folder may not take a pinned revision id (it would overwrite that output)', async () => {
  const r = await cli(
    'generate',
    '--unpinned',
    folder('u-pinned', draftJson(), draftTs()),
    '--rev',
    '2025-11-25',
    '--out',
    join(tmp, 'o1'),
  );
  assert.is(r.code, 2);
  assert.match(r.err, /2025-11-25 is a pinned revision/);
  assert.not.ok(existsSync(join(tmp, 'o1/2025-11-25')));
});

test('a dangling $ref is refused naming the file and where it stands', async () => {
  const json = draftJson().replace('"#/$defs/CallToolRequestParams"', '"#/$defs/Nope"');
  const dir = folder('u-ref', json, draftTs());
  const r = await cli('generate', '--unpinned', dir, '--out', join(tmp, 'o2'));
  assert.is(r.code, 3);
  assert.ok(r.err.includes(join(dir, 'schema.json')));
  assert.match(r.err, /\$defs\.CallToolRequest\.properties\.params\.\$ref: "#\/\$defs\/Nope" names no definition/);
});

test('a schema.ts with a syntax error is refused naming the file and line', async () => {
  const text = `${draftTs()}\nexport interface Broken extends ((( {\n`;
  const dir = folder('u-syntax', draftJson(), text);
  const r = await cli('generate', '--unpinned', dir, '--out', join(tmp, 'o3'));
  assert.is(r.code, 3);
  assert.ok(r.err.includes(join(dir, 'schema.ts')));
  assert.match(r.err, /line \d+:\d+: not valid TypeScript/);
});

test('inputs that are folders, and an --out that is a file, are refused without a stack trace', async () => {
  const dir = folder('u-dir', null, draftTs());
  mkdirSync(join(dir, 'schema.json'));
  const r1 = await cli('generate', '--unpinned', dir, '--out', join(tmp, 'o4'));
  assert.is(r1.code, 3);
  assert.match(r1.err, /schema\.json: not a file/);
  const file = join(tmp, 'a-file');
  writeFileSync(file, 'x');
  const r2 = await cli('generate', '--rev', 'draft', '--out', file);
  assert.is(r2.code, 3);
  assert.match(r2.err, /exists and is not a folder/);
  assert.is(readFileSync(file, 'utf8'), 'x');
});

test('pull from an unreachable address says which URL and why, exit 3', async () => {
  const saved = process.env.MCPGEN_CACHE;
  process.env.MCPGEN_CACHE = join(tmp, 'cache');
  const r = await cli('pull', '--rev', 'draft', '--base-url', 'http://127.0.0.1:1/');
  if (saved === undefined) delete process.env.MCPGEN_CACHE;
  else process.env.MCPGEN_CACHE = saved;
  assert.is(r.code, 3);
  assert.match(r.err, /http:\/\/127\.0\.0\.1:1\/schema\/draft\/schema\.json: could not fetch/);
});

test.after(() => rmSync(tmp, { recursive: true, force: true }));
test('schema.json and schema.ts of two different revisions: a warning naming both files, and generate refuses what the runtime cannot serve', async () => {
  const json = readFileSync(join(SPEC, 'schema/2025-11-25/schema.json'), 'utf8');
  const dir = folder('u-mixed', json, draftTs());
  const r = await cli('generate', '--unpinned', dir, '--out', join(tmp, 'o-mixed'));
  // the 2025-11-25 methods with the draft's declarations: neither initialize nor server/discover
  assert.is(r.code, 3, r.err);
  assert.match(r.err, `${join(dir, 'schema.ts')}: runtime facts: revision u-mixed`);
  assert.match(r.err, 'it lacks a lifecycle: neither an initialize request (handshake) nor a server/discover request');
  const line = r.err.split('\n').find((l) => l.includes('define different types')) ?? '';
  assert.ok(line.includes(join(dir, 'schema.json')) && line.includes(join(dir, 'schema.ts')), line);
  assert.match(line, /only in schema\.json: CancelTaskRequest, /);
  assert.match(line, /only in schema\.ts: CacheableResult, /);
  // one revision's own pair carries no such warning
  const same = await cli(
    'generate',
    '--unpinned',
    folder('u-same', draftJson(), draftTs()),
    '--out',
    join(tmp, 'o-same'),
  );
  assert.is(same.code, 0, same.err);
  assert.not.match(same.err, /define different types/);
});

test('list exits 3 when no revision has inputs, and when found inputs do not match their pins', async () => {
  const empty = join(tmp, 'empty-spec');
  mkdirSync(empty, { recursive: true });
  const none = await cli('list', '--spec-dir', empty);
  assert.is(none.code, 3);
  assert.match(none.err, /no revision has inputs/);
  const ok = await cli('list', '--spec-dir', SPEC);
  assert.is(ok.code, 0, ok.err);
  const bad = join(tmp, 'bad-spec/schema/2025-11-25');
  mkdirSync(bad, { recursive: true });
  writeFileSync(join(bad, 'schema.json'), draftJson());
  writeFileSync(join(bad, 'schema.ts'), draftTs());
  const mism = await cli('list', '--spec-dir', join(tmp, 'bad-spec'));
  assert.is(mism.code, 3);
  assert.match(mism.err, /1 revision\(s\) have inputs that do not match their pins/);
});

test('generate refuses to wipe a revision folder it did not write, or one holding its inputs', async () => {
  const out = join(tmp, 'user-out');
  mkdirSync(join(out, 'draft'), { recursive: true });
  writeFileSync(join(out, 'draft/notes.txt'), 'precious');
  const r = await cli('generate', '--rev', 'draft', '--spec-dir', SPEC, '--out', out);
  assert.is(r.code, 2, r.err);
  assert.match(r.err, /holds files mcpgen did not write \(notes\.txt\)/);
  assert.is(readFileSync(join(out, 'draft/notes.txt'), 'utf8'), 'precious');
  // an unpinned folder inside --out/<rev> is its own input: refused, inputs kept
  const parent = join(tmp, 'self');
  const dir = folder('self/snap', draftJson(), draftTs());
  const s = await cli('generate', '--unpinned', dir, '--out', parent);
  assert.is(s.code, 2, s.err);
  assert.match(s.err, /holds the input /);
  assert.ok(existsSync(join(dir, 'schema.json')) && existsSync(join(dir, 'schema.ts')));
  // mcpgen's own output is rewritten as before
  const mine = join(tmp, 'mine');
  assert.is((await cli('generate', '--rev', 'draft', '--spec-dir', SPEC, '--out', mine)).code, 0);
  writeFileSync(
    join(mine, 'draft/stale.gen.ts'),
    '// @generated by mcpgen 0.0.1 from draft (sha256 000000000000) — do not edit\n',
  );
  assert.is((await cli('generate', '--rev', 'draft', '--spec-dir', SPEC, '--out', mine)).code, 0);
  assert.not.ok(existsSync(join(mine, 'draft/stale.gen.ts')));
});

test('generate refuses to delete a file of yours put inside a folder it wrote; build output of a binding is wiped', async () => {
  const out = join(tmp, 'mine-plus');
  assert.is((await cli('generate', '--rev', 'draft', '--target', 'python', '--spec-dir', SPEC, '--out', out)).code, 0);
  writeFileSync(join(out, 'draft/helpers.ts'), 'export const mine = 1;\n');
  mkdirSync(join(out, 'draft/notes'));
  writeFileSync(join(out, 'draft/notes/todo.md'), 'precious');
  const r = await cli('generate', '--rev', 'draft', '--spec-dir', SPEC, '--out', out);
  assert.is(r.code, 2, r.err);
  assert.match(r.err, /was written by mcpgen but also holds files it did not write \(helpers\.ts, notes\/todo\.md\)/);
  assert.is(readFileSync(join(out, 'draft/helpers.ts'), 'utf8'), 'export const mine = 1;\n');
  assert.is(readFileSync(join(out, 'draft/notes/todo.md'), 'utf8'), 'precious');
  rmSync(join(out, 'draft/helpers.ts'));
  rmSync(join(out, 'draft/notes'), { recursive: true });
  // a folder named like a build folder, but not where the build puts it, is yours; so is a file named like one
  for (const [path, text] of [
    ['bindings/python/docs/build/design.md', 'plan'],
    ['bindings/notes/dist/plan.md', 'plan'],
    ['bindings/python/bin', 'a file'],
    ['bindings/python/Cargo.lock', 'not rust'],
  ]) {
    mkdirSync(join(out, 'draft', path, '..'), { recursive: true });
    writeFileSync(join(out, 'draft', path), text);
    const kept = await cli('generate', '--rev', 'draft', '--spec-dir', SPEC, '--out', out);
    assert.is(kept.code, 2, path);
    assert.ok(kept.err.includes(`(${path})`), `${path}: ${kept.err}`);
    assert.is(readFileSync(join(out, 'draft', path), 'utf8'), text, path);
    rmSync(join(out, 'draft', path));
  }
  rmSync(join(out, 'draft/bindings/notes'), { recursive: true });
  rmSync(join(out, 'draft/bindings/python/docs'), { recursive: true });
  // a symbolic link counts as yours and is not followed (what it points to is not listed)
  mkdirSync(join(tmp, 'linked'));
  writeFileSync(join(tmp, 'linked/data.txt'), 'elsewhere');
  symlinkSync(join(tmp, 'linked'), join(out, 'draft/linkdir'));
  const link = await cli('generate', '--rev', 'draft', '--spec-dir', SPEC, '--out', out);
  assert.is(link.code, 2);
  assert.match(link.err, /did not write \(linkdir\)/);
  rmSync(join(out, 'draft/linkdir'));
  // what running the binding left (python's bytecode cache, an egg-info) is not yours: rewritten as before
  mkdirSync(join(out, 'draft/bindings/python/__pycache__'));
  writeFileSync(join(out, 'draft/bindings/python/__pycache__/x.cpython-311.pyc'), 'bytecode');
  mkdirSync(join(out, 'draft/bindings/python/mcp_types.egg-info'));
  writeFileSync(join(out, 'draft/bindings/python/mcp_types.egg-info/PKG-INFO'), 'x');
  assert.is((await cli('generate', '--rev', 'draft', '--spec-dir', SPEC, '--out', out)).code, 0);
  assert.not.ok(existsSync(join(out, 'draft/bindings')));
  assert.is(readFileSync(join(tmp, 'linked/data.txt'), 'utf8'), 'elsewhere');
});

test("a revision folder that is a symbolic link, a link at a build output path, a tree nested past 64 levels: the user's, refused", async () => {
  const out = join(tmp, 'links');
  assert.is((await cli('generate', '--rev', 'draft', '--target', 'go', '--spec-dir', SPEC, '--out', out)).code, 0);
  // a link where go's build writes go.sum is not build output
  writeFileSync(join(tmp, 'precious.txt'), 'mine');
  symlinkSync(join(tmp, 'precious.txt'), join(out, 'draft/bindings/go/go.sum'));
  const sum = await cli('generate', '--rev', 'draft', '--target', 'go', '--spec-dir', SPEC, '--out', out);
  assert.is(sum.code, 2, sum.err);
  assert.match(sum.err, /\(bindings\/go\/go\.sum\)/);
  rmSync(join(out, 'draft/bindings/go/go.sum'));
  // a tree nested deeper than mcpgen ever writes is not mcpgen's (and is not wiped)
  const deep = join(out, 'draft', ...Array.from({ length: 70 }, () => 'd'));
  mkdirSync(deep, { recursive: true });
  const nested = await cli('generate', '--rev', 'draft', '--target', 'go', '--spec-dir', SPEC, '--out', out);
  assert.is(nested.code, 2, nested.err);
  assert.match(nested.err, /did not write \((d\/){64}d\/…\)/);
  assert.ok(existsSync(deep));
  rmSync(join(out, 'draft/d'), { recursive: true });
  // the revision folder itself a link (to a folder mcpgen wrote): kept, not replaced
  const moved = join(tmp, 'moved-draft');
  execFileSync('mv', [join(out, 'draft'), moved]);
  symlinkSync(moved, join(out, 'draft'));
  const linked = await cli('generate', '--rev', 'draft', '--spec-dir', SPEC, '--out', out);
  assert.is(linked.code, 2, linked.err);
  assert.match(linked.err, /draft is a symbolic link; it would be replaced by a folder/);
  assert.ok(lstatSync(join(out, 'draft')).isSymbolicLink());
  assert.ok(existsSync(join(moved, 'index.ts')));
});

test("an index.ts that is not a regular file (a FIFO, a folder) makes the folder not mcpgen's: refused at once, no hang", async () => {
  for (const kind of ['fifo', 'folder']) {
    const out = join(tmp, `odd-index-${kind}`);
    assert.is((await cli('generate', '--rev', 'draft', '--spec-dir', SPEC, '--out', out)).code, 0);
    rmSync(join(out, 'draft/index.ts'));
    if (kind === 'fifo') execFileSync('mkfifo', [join(out, 'draft/index.ts')]);
    else mkdirSync(join(out, 'draft/index.ts'));
    const r = await cli('generate', '--rev', 'draft', '--spec-dir', SPEC, '--out', out);
    assert.is(r.code, 2, `${kind}: ${r.err}`);
    assert.match(r.err, /holds files mcpgen did not write/);
  }
});

test('a generate that fails on its inputs leaves no folder it made behind; one that was there stays', async () => {
  const dir = folder('u-truncated', draftJson().slice(0, 5000), draftTs());
  const out = join(tmp, 'never-made/out');
  const r = await cli('generate', '--unpinned', dir, '--out', out);
  assert.is(r.code, 3, r.err);
  assert.match(r.err, /schema\.json/);
  assert.not.ok(existsSync(join(tmp, 'never-made')), 'the folders made for --out are gone');
  const there = join(tmp, 'was-there');
  mkdirSync(there);
  assert.is((await cli('generate', '--unpinned', dir, '--out', there)).code, 3);
  assert.ok(existsSync(there), 'a folder that was there is kept');
});

test('an --out below a folder that cannot hold folders fails at once, naming it', async () => {
  const r = await cli('generate', '--rev', 'draft', '--spec-dir', SPEC, '--out', '/proc/mcpgen-nope');
  assert.is(r.code, 3, r.err);
  assert.match(r.err, /\/proc\/mcpgen-nope/);
});

test('diff takes a pinned id as the revision even where a folder of that name sits in the working directory', async () => {
  const cwd = process.cwd();
  const here = join(tmp, 'cwd-with-rev');
  mkdirSync(join(here, '2025-11-25'), { recursive: true });
  process.chdir(here);
  try {
    const lines: string[] = [];
    const code = await main(['diff', '2025-11-25', 'draft', '--spec-dir', SPEC, '--format', 'json'], {
      out: (l) => void lines.push(l),
      err: (l) => void lines.push(l),
    });
    assert.is(code, 0, lines.join('\n'));
    assert.ok(JSON.parse(lines.join('\n')).changes.length > 0);
    // ./<id> names the folder
    const f = await cli('diff', './2025-11-25', 'draft', '--spec-dir', SPEC);
    assert.is(f.code, 3);
    assert.match(f.err, /folder \.\/2025-11-25: missing schema\.json/);
  } finally {
    process.chdir(cwd);
  }
});

test.run();
