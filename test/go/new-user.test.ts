/**
 * What a new Go user does, outside the repository: a fresh module (`go mod init`), the runtime
 * required through a `replace` to the local folder go/runtime (where a published module would be
 * fetched by `go get`), `mcpgen generate --rev 2025-11-25 --target go-sdk --out mcp`, `go mod
 * tidy` (the runtime's own dependencies from the module proxy, pinned in the new go.sum), the
 * guide's server with one tool and its client (examples/guide/go/, as docs/guide/go.md shows
 * them), `go vet`, `go build`, then the client against the server over stdio and over HTTP.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { commandServer } from '../conformance/language.js';
import { GO_DIR, ROOT, goBinary, run } from './support.js';

const dir = mkdtempSync(join(tmpdir(), 'mcpgen-go-newuser-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

const go = async (...args: string[]) => {
  const r = await run(goBinary(), args, dir, 600_000);
  assert.is(r.status, 0, `go ${args.join(' ')}:\n${r.output}`);
  return r.stdout;
};
const EXPECTED = ['connected to greeter', 'tools: [greet]', 'Hello, Ada!'];

test('a new user generates the SDK into a fresh module, builds a server and a client and runs them', async () => {
  for (const part of ['server', 'client'])
    cpSync(join(ROOT, 'examples', 'guide', 'go', part), join(dir, part), { recursive: true });
  await go('mod', 'init', 'example.com/greeter');
  await go('mod', 'edit', `-replace=mcpgen.dev/runtime=${join(GO_DIR, 'runtime')}`);
  const gen = await run(
    process.execPath,
    [join(ROOT, 'bin', 'mcpgen.js'), 'generate', '--rev', '2025-11-25', '--target', 'go-sdk', '--out', 'mcp'],
    dir,
    300_000,
    process.env,
  );
  assert.is(gen.status, 0, gen.output);
  await go('mod', 'tidy');
  const mod = readFileSync(join(dir, 'go.mod'), 'utf8');
  assert.match(mod, /mcpgen\.dev\/runtime v0\.0\.0-00010101000000-000000000000/);
  assert.match(readFileSync(join(dir, 'go.sum'), 'utf8'), /github\.com\/santhosh-tekuri\/jsonschema\/v6 v6\.0\.3 h1:/);
  await go('vet', './...');
  await go('build', '-o', 'bin/', './server', './client');

  // no server command and no --url: a usage line and exit 2 (not a panic)
  const usage = await run(join(dir, 'bin', 'client'), [], dir, 60_000);
  assert.is(usage.status, 2, usage.output);
  assert.match(usage.output, /^usage: client SERVER-COMMAND/, usage.output);
  assert.is(usage.output.trim().split('\n').length, 1, usage.output);

  const stdio = await go('run', './client', join(dir, 'bin', 'server'));
  assert.equal(stdio.trim().split('\n'), EXPECTED);

  const served = await commandServer(join(dir, 'bin', 'server'), ['--http', '0']);
  try {
    const http = await run(join(dir, 'bin', 'client'), ['--url', served.url], dir, 60_000);
    assert.is(http.status, 0, http.output);
    assert.equal(http.stdout.trim().split('\n'), EXPECTED);
  } finally {
    await served.stop();
  }
});

test.run();
