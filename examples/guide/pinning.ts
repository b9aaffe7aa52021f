// Guide: pinning (docs/guide/pinning.md). A project pins 2025-06-18, generates from the pin and
// checks it, then moves to 2025-11-25 (diff, pin, regenerate, check), in a temporary folder.
// Its inputs are what `npx mcpgen pull` puts in the user cache (upstream's files at the commit
// of mcpgen's pins, in the upstream layout): no spec checkout is needed.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

interface Lock {
  lockVersion: 1;
  revisions: Record<string, { commit: string; files: Record<string, { path: string; sha256: string; size: number }> }>;
}
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const tmp = mkdtempSync(join(tmpdir(), 'mcpgen-guide-pinning-'));
const project = join(tmp, 'project');
/** `npx mcpgen <args> --config <project>/mcpgen.config.json`, its inputs from the user cache (no spec folder). */
const mcpgen = (...args: string[]) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((done) => {
    const { MCP_SPEC_DIR: _spec, ...env } = process.env;
    const config = ['--config', join(project, 'mcpgen.config.json')];
    execFile('npx', ['mcpgen', ...args, ...config], { env, maxBuffer: 64 << 20 }, (error, stdout, stderr) =>
      done({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
/** Writes the project's mcpgen.config.json: the revisions it generates into src/mcp. */
const configure = (revisions: string[]) =>
  writeFileSync(join(project, 'mcpgen.config.json'), JSON.stringify({ revisions, out: 'src/mcp' }, null, 2));
const lock = () => JSON.parse(readFileSync(join(project, 'mcpgen.lock.json'), 'utf8')) as Lock;

try {
  mkdirSync(project);
  configure(['2025-06-18']);

  // 0. pull: the pinned files into the user cache, sha256-verified; list: the commit and where they are
  const pull = await mcpgen('pull', '--rev', '2025-06-18,2025-11-25');
  assert.equal(pull.code, 0, pull.stderr);
  const list = await mcpgen('list');
  const commit = /^upstream \S+ @ ([0-9a-f]{40})$/m.exec(list.stdout)?.[1];
  const cached = /^2025-06-18\tcache\t(.+)$/m.exec(list.stdout)?.[1];
  assert.ok(commit && cached, list.stdout + list.stderr);
  // <cache>/<commit>/schema/2025-06-18: the cache holds upstream's files at that commit, in its layout
  const upstream = dirname(dirname(cached));

  // 1. pin: read the two files, hash them, store them in the cache, write the lock
  const pin = await mcpgen('pin', '2025-06-18', '--commit', commit, '--from', upstream);
  assert.equal(pin.code, 0, pin.stderr);
  assert.match(
    pin.stdout,
    /^2025-06-18: locked \(the pin shipped with mcpgen\): \S+@[0-9a-f]{40} in \S*mcpgen\.lock\.json/m,
  );
  const schemaJson = readFileSync(join(upstream, 'schema', '2025-06-18', 'schema.json'));
  assert.equal(lock().revisions['2025-06-18'].commit, commit);
  assert.deepEqual(lock().revisions['2025-06-18'].files['schema.json'], {
    path: 'schema/2025-06-18/schema.json',
    sha256: sha256(schemaJson),
    size: schemaJson.length,
  });

  // 2. generate from the pin (the cache), with its provenance in model.json; meanwhile, diff:
  //    what moving to 2025-11-25 would break (exit 1 with --fail-on breaking)
  const [generate, diff] = await Promise.all([
    mcpgen('generate'),
    mcpgen('diff', '2025-06-18', '2025-11-25', '--fail-on', 'breaking', '--format', 'json'),
  ]);
  assert.equal(generate.code, 0, generate.stderr);
  assert.match(generate.stdout, /^2025-06-18: \d+ files \(.*\) from cache$/m);
  const model = JSON.parse(readFileSync(join(project, 'src/mcp/2025-06-18/model.json'), 'utf8')) as {
    protocolVersion: string;
    inputs: { pinned: boolean; commit: string };
  };
  assert.deepEqual([model.protocolVersion, model.inputs.pinned, model.inputs.commit], ['2025-06-18', true, commit]);
  assert.equal(diff.code, 1, diff.stderr);
  const report = JSON.parse(diff.stdout) as {
    summary: { breakingForClient: number; breakingForServer: number };
    changes: Array<{ kind: string; method: string | null; breaking: { client: boolean } }>;
  };
  assert.ok(report.summary.breakingForClient > 0 && report.summary.breakingForServer > 0);
  // e.g. tools/call may now be answered with a task (CreateTaskResult): a 2025-06-18 client does not expect it
  assert.ok(
    report.changes.some((c) => c.method === 'tools/call' && c.kind === 'alt-result-added' && c.breaking.client),
  );

  // 3. move: pin 2025-11-25, add it to the config's revisions, generate it (src/mcp/2025-06-18 stays)
  const move = await mcpgen('pin', '2025-11-25', '--commit', commit, '--from', upstream);
  assert.equal(move.code, 0, move.stderr);
  assert.match(move.stdout, /^note: 2025-11-25 is not in "revisions"/m);
  configure(['2025-06-18', '2025-11-25']);
  const regenerate = await mcpgen('generate', '--rev', '2025-11-25');
  assert.equal(regenerate.code, 0, regenerate.stderr);
  assert.deepEqual(Object.keys(lock().revisions).sort(), ['2025-06-18', '2025-11-25']);

  // 4. check (CI): the committed output is what the pins generate
  // 5. meanwhile, a mirror serves 2025-11-25 changed under the same commit: refused, files at one commit never change
  const mirror = join(tmp, 'mirror', 'schema', '2025-11-25');
  mkdirSync(mirror, { recursive: true });
  for (const f of ['schema.json', 'schema.ts'])
    copyFileSync(join(upstream, 'schema', '2025-11-25', f), join(mirror, f));
  writeFileSync(join(mirror, 'schema.ts'), '// changed\n', { flag: 'a' });
  const [check, tampered] = await Promise.all([
    mcpgen('check'),
    mcpgen('pin', '2025-11-25', '--from', join(tmp, 'mirror')),
  ]);
  assert.equal(check.code, 0, check.stdout + check.stderr);
  assert.match(check.stdout, /^check ok: \d+ file\(s\) of 2 revision\(s\) match/m);
  assert.equal(tampered.code, 3);
  assert.match(tampered.stderr, /schema\.ts/);
  assert.match(tampered.stderr, /nothing written/);
  assert.equal(
    lock().revisions['2025-11-25'].files['schema.ts'].sha256,
    sha256(readFileSync(join(upstream, 'schema', '2025-11-25', 'schema.ts'))),
  );
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
console.log('ok pinning');
