/**
 * The Python page of the guide (docs/guide/python.md) as a program: its ```python blocks are
 * ./python/server.py and ./python/client.py, whole (checked here, verbatim), which run
 * in the environment of python/venv.sh on the generated 2025-11-25 package: the client spawns the
 * server over stdio, then talks to it over Streamable HTTP (uvicorn). Prints `ok python`.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pythonBin, pythonChildEnv } from '../../test/python/support.js';
import { Client } from '../../generated/2025-11-25/index.js';
import { StdioClientTransport } from '@mcpgen/runtime/stdio';

const here = fileURLToPath(new URL('./python/', import.meta.url));
const page = readFileSync(fileURLToPath(new URL('../../docs/guide/python.md', import.meta.url)), 'utf8');
// the page shows the two files whole, as they run here: each ```python block is one of them
const blocks = [...page.matchAll(/```python\n([\s\S]*?)```/g)].map((m) => m[1]);
assert.deepEqual(
  blocks,
  ['server.py', 'client.py'].map((f) => readFileSync(join(here, f), 'utf8')),
  'docs/guide/python.md: the python blocks are not examples/guide/python/server.py and client.py, whole',
);

const env = pythonChildEnv();
const stdio = execFileSync(pythonBin(), ['client.py'], { cwd: here, env, encoding: 'utf8', timeout: 60_000 });
assert.deepEqual(stdio.trim().split('\n'), ['connected to greeter', "tools: ['greet']", 'Hello, Ada!']);

// over HTTP: the server on a free port (uvicorn prints nothing; the port is found by a probe)
const port = Number(
  execFileSync(
    pythonBin(),
    ['-c', 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'],
    {
      encoding: 'utf8',
    },
  ).trim(),
);
const server = spawn(pythonBin(), ['server.py', '--http', String(port)], { cwd: here, env, stdio: 'ignore' });
try {
  let out = '';
  for (let i = 0; i < 100 && !out; i++) {
    await new Promise((r) => setTimeout(r, 200));
    try {
      out = execFileSync(pythonBin(), ['client.py', `http://127.0.0.1:${port}/mcp`], {
        cwd: here,
        env,
        encoding: 'utf8',
        timeout: 30_000,
        stdio: ['ignore', 'pipe', 'ignore'],
      });
    } catch {
      // not listening yet
    }
  }
  assert.deepEqual(out.trim().split('\n'), ['connected to greeter', "tools: ['greet']", 'Hello, Ada!']);
} finally {
  server.kill('SIGTERM');
}
// the generated TypeScript client, with the Python server as its child process
const python = pythonBin();
process.env.PYTHONPATH = env.PYTHONPATH;
const client = new Client({ clientInfo: { name: 'ts-client', version: '1.0.0' } });
await client.connect(new StdioClientTransport({ command: python, args: ['server.py'], cwd: here }));
const { content } = await client.callTool({ name: 'greet', arguments: { name: 'Grace' } });
console.log(content); // [ { type: 'text', text: 'Hello, Grace!' } ]
await client.close();
assert.deepEqual(content, [{ type: 'text', text: 'Hello, Grace!' }]);
console.log('ok python');
