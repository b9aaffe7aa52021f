/**
 * The Go page of the guide (docs/guide/go.md) as a program: its ```go blocks are
 * ./go/server/main.go and ./go/client/main.go, whole (checked here, verbatim). As a user would, it makes
 * a module of them in a temporary folder (the runtime through a replace to go/runtime), generates
 * the 2025-11-25 Go SDK into it, builds both, runs the client against the server over stdio, and
 * the generated TypeScript client against the Go server. Prints `ok go`.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { StdioClientTransport } from '@mcpgen/runtime/stdio';
import { Client } from '../../generated/2025-11-25/index.js';
import { goBinary, goEnv } from '../../test/go/support.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const here = join(root, 'examples', 'guide', 'go');
const page = readFileSync(join(root, 'docs', 'guide', 'go.md'), 'utf8');
// the page shows the two files whole, as they build here: each ```go block is one of them
const blocks = [...page.matchAll(/```go\n([\s\S]*?)```/g)].map((m) => m[1]);
assert.deepEqual(
  blocks,
  ['server/main.go', 'client/main.go'].map((f) => readFileSync(join(here, f), 'utf8')),
  'docs/guide/go.md: the go blocks are not examples/guide/go/server/main.go and client/main.go, whole',
);

const dir = mkdtempSync(join(tmpdir(), 'mcpgen-guide-go-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
const go = (...args: string[]) =>
  execFileSync(goBinary(), args, { cwd: dir, env: goEnv(), encoding: 'utf8', timeout: 300_000 });
cpSync(join(here, 'server'), join(dir, 'server'), { recursive: true });
cpSync(join(here, 'client'), join(dir, 'client'), { recursive: true });
go('mod', 'init', 'example.com/greeter');
go('mod', 'edit', `-replace=mcpgen.dev/runtime=${join(root, 'go', 'runtime')}`);
execFileSync(
  process.execPath,
  [join(root, 'bin', 'mcpgen.js'), 'generate', '--rev', '2025-11-25', '--target', 'go-sdk', '--out', 'mcp'],
  { cwd: dir, stdio: 'ignore', timeout: 300_000 },
);
go('mod', 'tidy');
go('build', '-o', 'bin/', './server', './client');
const server = join(dir, 'bin', 'server');
const out = execFileSync(join(dir, 'bin', 'client'), [server], { encoding: 'utf8' });
assert.deepEqual(out.trim().split('\n'), ['connected to greeter', 'tools: [greet]', 'Hello, Ada!']);

// the generated TypeScript client, with the Go server as its child process
const client = new Client({ clientInfo: { name: 'ts-client', version: '1.0.0' } });
await client.connect(new StdioClientTransport({ command: server, args: [] }));
const { content } = await client.callTool({ name: 'greet', arguments: { name: 'Grace' } });
console.log(content); // [ { type: 'text', text: 'Hello, Grace!' } ]
await client.close();
assert.deepEqual(content, [{ type: 'text', text: 'Hello, Grace!' }]);
console.log('ok go');
