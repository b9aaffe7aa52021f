// Guide: pinning (docs/guide/pinning.md). A project pins a newer draft from a local copy of
// upstream, generates from the pin and checks it, offline, in a temporary folder: the
// "upstream" is a draft snapshot copied from the spec checkout ($MCP_SPEC_DIR/history/draft).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// upstream commit 41173312 of the draft, as a snapshot in the spec folder
const snapshot = join(process.env.MCP_SPEC_DIR ?? '.', 'history', 'draft', '2026-05-14_41173312');
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

const tmp = mkdtempSync(join(tmpdir(), 'mcpgen-guide-pinning-'));
const upstream = join(tmp, 'upstream'); // laid out like the spec repository
const project = join(tmp, 'project');
/** `npx mcpgen <args> --config <project>/mcpgen.config.json`, seeing no spec folder and no cache but the project's. */
const mcpgen = (...args: string[]) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((done) => {
    const { MCP_SPEC_DIR: _spec, MCPGEN_CACHE: _cache, XDG_CACHE_HOME: _xdg, ...env } = process.env;
    const config = ['--config', join(project, 'mcpgen.config.json')];
    execFile('npx', ['mcpgen', ...args, ...config], { env }, (error, stdout, stderr) =>
      done({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });

try {
  mkdirSync(join(upstream, 'schema', 'draft'), { recursive: true });
  mkdirSync(project);
  for (const f of ['schema.json', 'schema.ts']) copyFileSync(join(snapshot, f), join(upstream, 'schema', 'draft', f));
  writeFileSync(
    join(project, 'mcpgen.config.json'),
    JSON.stringify(
      {
        revisions: ['draft'],
        out: 'src/mcp',
        inputs: { cacheDir: '.mcpgen-cache' },
      },
      null,
      2,
    ),
  );

  // 1. pin: fetch the two files, hash them, store them in the cache, write the lock
  const pin = await mcpgen('pin', 'draft', '--commit', '41173312', '--from', upstream);
  assert.equal(pin.code, 0, pin.stderr);
  assert.match(
    pin.stdout,
    /^draft: moved from modelcontextprotocol\/modelcontextprotocol@\w+: modelcontextprotocol\/modelcontextprotocol@41173312 in \S*mcpgen\.lock\.json/m,
  );
  const lock = JSON.parse(readFileSync(join(project, 'mcpgen.lock.json'), 'utf8')) as {
    lockVersion: 1;
    revisions: Record<
      string,
      { commit: string; files: Record<string, { path: string; sha256: string; size: number }> }
    >;
  };
  const schemaJson = readFileSync(join(snapshot, 'schema.json'));
  assert.equal(lock.revisions.draft.commit, '41173312');
  assert.deepEqual(lock.revisions.draft.files['schema.json'], {
    path: 'schema/draft/schema.json',
    sha256: sha256(schemaJson),
    size: schemaJson.length,
  });

  // 2. generate from the pin (the cache), with its provenance in model.json
  const generate = await mcpgen('generate');
  assert.equal(generate.code, 0, generate.stderr);
  assert.match(generate.stdout, /^draft: \d+ files \(.*\) from cache$/m);
  const model = JSON.parse(readFileSync(join(project, 'src/mcp/draft/model.json'), 'utf8')) as {
    protocolVersion: string;
    inputs: { pinned: boolean; commit: string };
  };
  assert.deepEqual(
    [model.protocolVersion, model.inputs.pinned, model.inputs.commit],
    ['DRAFT-2026-v1', true, '41173312'],
  );

  // 3. check (CI): the committed output is what the pin generates
  // 4. meanwhile, upstream's files change under the same commit: refused, files at one commit never change
  writeFileSync(join(upstream, 'schema', 'draft', 'schema.ts'), '// changed\n', { flag: 'a' });
  const [check, tampered] = await Promise.all([mcpgen('check'), mcpgen('pin', 'draft', '--from', upstream)]);
  assert.equal(check.code, 0, check.stdout + check.stderr);
  assert.match(check.stdout, /^check ok: \d+ file\(s\) of 1 revision\(s\) match/m);
  assert.equal(tampered.code, 3);
  assert.match(tampered.stderr, /schema\.ts/);
  assert.match(tampered.stderr, /nothing written/);
  assert.equal(JSON.parse(readFileSync(join(project, 'mcpgen.lock.json'), 'utf8')).revisions.draft.commit, '41173312');
} finally {
  rmSync(tmp, { recursive: true, force: true });
}

console.log('ok pinning');
