/**
 * Progress of the slow commands, and pack's inputs resolved as generate resolves them:
 * - `pack --unpinned <draft snapshot folder>` prints, on stdout, one line per step of the
 *   revision (ingest, generate, entries, compile, tarball: `<rev>: <step> <ms>ms (<what>)`) before
 *   the tarball line, and writes the tarball of that folder's revision;
 * - `pack --rev <folder>` takes the folder (a missing file is named, exit 3), and pack refuses
 *   --spec-dir with --unpinned as generate does;
 * - `generate --target` prints a line per binding language as it ends, before the revision line;
 * - `generate` says a stage over $MCPGEN_PROGRESS_MS on stderr (stdout and files unchanged).
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { main } from '../../cli/main.js';
import { SPEC_DIR, cli, tempDir, tempOutput } from '../generator/support.js';

const test = suite('cli: progress lines of pack and generate --target; pack from a folder');
const HISTORY = join(SPEC_DIR, 'history', 'draft');
const SNAPSHOT = join(HISTORY, readdirSync(HISTORY).sort().at(-1)!);
const REV = basename(SNAPSHOT);
const work = tempDir('mcpgen-progress-');
test.after(() => work.cleanup());

const ms = '\\d+ms';

test(`pack --unpinned ${REV}: a line per step, then the tarball of that revision`, async () => {
  const out = join(work.dir, 'tgz');
  const r = await cli(['pack', '--unpinned', SNAPSHOT, '--out', out]);
  assert.is(r.code, 0, r.stderr);
  const lines = r.stdout.trimEnd().split('\n');
  const steps = [
    new RegExp(`^${REV}: ingest ${ms} \\(\\d+ types\\) from --unpinned \\(unpinned\\)$`),
    new RegExp(`^${REV}: generate ${ms} \\(10 files\\)$`),
    new RegExp(`^${REV}: entries ${ms} \\(\\d+ entry modules\\)$`),
    new RegExp(`^${REV}: compile ${ms} \\(\\d+ files\\)$`),
    new RegExp(`^${REV}: tarball ${ms} \\(\\d+ files, [\\d.]+ kB\\)$`),
  ];
  assert.is(lines.length, steps.length + 2, r.stdout);
  steps.forEach((re, i) => {
    assert.match(lines[i], re);
  });
  const tgz = readdirSync(out);
  assert.equal(tgz.length, 1, tgz.join(', '));
  assert.ok(lines[5].startsWith(`${REV}: ${join(out, tgz[0])} (@mcpgen/mcp-${REV}@`), lines[5]);
  assert.match(lines[6], /^ {2}integrity sha512-/);
  // the files the tarball line counts are the ones the tarball step counted
  assert.is(/\((\d+) files, /.exec(lines[4])![1], /, (\d+) files, /.exec(lines[5])![1]);
  // it is the package of the snapshot: its manifest names the folder's revision
  const tar = gunzipSync(readFileSync(join(out, tgz[0])));
  const at = tar.indexOf('"name": "@mcpgen/mcp-');
  assert.ok(
    at > 0 && tar.toString('utf8', at, at + 60).includes(`@mcpgen/mcp-${REV}"`),
    'package.json names the revision',
  );
});

test('pack --rev <folder> is the folder (a missing file named, exit 3); --unpinned excludes --spec-dir', async () => {
  const half = join(work.dir, 'half-snapshot');
  mkdirSync(half);
  copyFileSync(join(SNAPSHOT, 'schema.json'), join(half, 'schema.json'));
  const lines: string[] = [];
  const io = { out: (l: string) => void lines.push(l), err: (l: string) => void lines.push(l) };
  const code = await main(['pack', '--rev', half, '--out', join(work.dir, 'none')], io);
  assert.is(code, 3, lines.join('\n'));
  assert.match(lines.join('\n'), `--rev ${half}: missing schema.ts`);
  assert.not.ok(existsSync(join(work.dir, 'none')));
  lines.length = 0;
  assert.is(await main(['pack', '--unpinned', SNAPSHOT, '--spec-dir', SPEC_DIR], io), 2, lines.join('\n'));
  assert.match(lines.join('\n'), '--spec-dir and --unpinned exclude each other');
});

test('generate --target: a line per binding language as it ends, then the revision line', async () => {
  const gen = tempOutput();
  try {
    const lines: string[] = [];
    const code = await main(
      ['generate', '--rev', '2024-11-05', '--target', 'python,go', '--spec-dir', SPEC_DIR, '--out', gen.out],
      {
        out: (l) => void lines.push(l),
        err: () => {},
      },
    );
    assert.is(code, 0, lines.join('\n'));
    assert.match(lines[0], new RegExp(`^2024-11-05: bindings go ${ms} \\(\\d+ files?\\)$`));
    assert.match(lines[1], new RegExp(`^2024-11-05: bindings python ${ms} \\(\\d+ files?\\)$`));
    assert.match(lines[2], /^2024-11-05: \d+ files \(ingest \d+ms, .*bindings \d+ms\) from --spec-dir$/);
    const counted = lines.slice(0, 2).reduce((n, l) => n + Number(/\((\d+) files?\)/.exec(l)![1]), 0);
    const bindings = join(gen.out, '2024-11-05', 'bindings');
    const written = readdirSync(bindings, { recursive: true }).filter((f) =>
      statSync(join(bindings, String(f))).isFile(),
    ).length;
    assert.is(counted, written, 'the files the language lines count are the files written under bindings/');
  } finally {
    gen.cleanup();
  }
});

test('generate: a stage over $MCPGEN_PROGRESS_MS is said on stderr as it ends, later stages as they begin; stdout and files unchanged', async () => {
  const runs: Array<{ out: string[]; err: string[]; files: Map<string, string> }> = [];
  for (const threshold of ['0', undefined]) {
    const gen = tempOutput();
    const before = process.env.MCPGEN_PROGRESS_MS;
    if (threshold === undefined) delete process.env.MCPGEN_PROGRESS_MS;
    else process.env.MCPGEN_PROGRESS_MS = threshold;
    try {
      const out: string[] = [];
      const err: string[] = [];
      const code = await main(['generate', '--rev', '2024-11-05', '--spec-dir', SPEC_DIR, '--out', gen.out], {
        out: (l) => void out.push(l),
        err: (l) => void err.push(l),
      });
      assert.is(code, 0, [...out, ...err].join('\n'));
      const dir = join(gen.out, '2024-11-05');
      const files = new Map(
        readdirSync(dir)
          .sort()
          .map((f) => [f, readFileSync(join(dir, f), 'utf8')]),
      );
      runs.push({ out, err, files });
    } finally {
      if (before === undefined) delete process.env.MCPGEN_PROGRESS_MS;
      else process.env.MCPGEN_PROGRESS_MS = before;
      gen.cleanup();
    }
  }
  const [every, quiet] = runs;
  const progress = every.err.filter((l) => l.startsWith('progress: '));
  const stages = ['model', 'types', 'validators', 'protocol', 'facades', 'package'];
  const expected = [new RegExp(`^progress: 2024-11-05: ingest took ${ms}$`)];
  for (const s of stages)
    expected.push(
      new RegExp(`^progress: 2024-11-05: ${s} \\(${ms} in\\)$`),
      new RegExp(`^progress: 2024-11-05: ${s} took ${ms}$`),
    );
  assert.is(progress.length, expected.length, progress.join('\n'));
  expected.forEach((re, i) => {
    assert.match(progress[i], re);
  });
  // the default (10 s) says nothing of stages that were quick; stdout has the same lines either way
  for (const l of quiet.err.filter((x) => x.startsWith('progress: '))) assert.match(l, / took (\d{5,})ms$/);
  const shape = (lines: string[]) => lines.map((l) => l.replace(/\d+ms/g, 'Nms').replace(/mcpgen-out-[^/]+/, 'OUT'));
  assert.equal(shape(every.out), shape(quiet.out));
  assert.equal([...every.files.keys()], [...quiet.files.keys()]);
  for (const [f, text] of every.files) assert.ok(text === quiet.files.get(f), `${f} differs`);
});

test.run();
