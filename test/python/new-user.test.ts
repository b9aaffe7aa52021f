/**
 * What a new Python user does, outside the repository: build the runtime's wheel, generate the
 * 2025-11-25 package with `mcpgen generate --target python-sdk` and build its wheel, make a fresh
 * venv with the machine's python3, `pip install` both wheels and uvicorn (their dependencies
 * from PyPI at the versions of python/requirements.lock), then run the guide's server with one
 * tool and its client (examples/guide/python/) over stdio and over HTTP with plain `python`.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PYTHON_DIR, ROOT, pythonBin } from './support.js';

const dir = mkdtempSync(join(tmpdir(), 'mcpgen-py-newuser-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

const run = (cmd: string, args: string[], cwd = dir, env: NodeJS.ProcessEnv = { ...process.env, PYTHONPATH: '' }) =>
  execFileSync(cmd, args, { cwd, env, encoding: 'utf8', timeout: 600_000, stdio: ['ignore', 'pipe', 'pipe'] });

test('a new user builds, installs, generates and runs a server and a client over stdio and HTTP', async () => {
  const wheels = join(dir, 'wheels');
  mkdirSync(wheels);
  // the runtime's wheel (hatchling of the locked environment: no build isolation, no network)
  run(pythonBin(), [
    '-m',
    'pip',
    'wheel',
    '--no-deps',
    '--no-build-isolation',
    '-q',
    '-w',
    wheels,
    join(PYTHON_DIR, 'runtime'),
  ]);
  // generate the revision's package, and its wheel
  run(
    process.execPath,
    [
      join(ROOT, 'bin', 'mcpgen.js'),
      'generate',
      '--rev',
      '2025-11-25',
      '--target',
      'python-sdk',
      '--out',
      join(dir, 'mcp'),
    ],
    dir,
    process.env,
  );
  run(pythonBin(), [
    '-m',
    'pip',
    'wheel',
    '--no-deps',
    '--no-build-isolation',
    '-q',
    '-w',
    wheels,
    join(dir, 'mcp', '2025-11-25', 'python'),
  ]);
  const built = readdirSync(wheels).sort();
  assert.equal(
    built.map((w) => w.replace(/-py3-none-any\.whl$/, '')),
    ['mcpgen_mcp_2025_11_25-1.0.0rc1+2025.11.25', 'mcpgen_runtime-1.0.0rc1'],
  );
  // a fresh venv with the machine's python3; dependencies pinned as the lock pins them
  run('python3', ['-m', 'venv', join(dir, 'venv')]);
  const py = join(dir, 'venv', 'bin', 'python');
  const pins = readFileSync(join(PYTHON_DIR, 'requirements.lock'), 'utf8')
    .split('\n')
    .filter((l) => /^[A-Za-z0-9_.-]+==/.test(l))
    .map((l) => l.split(' ')[0])
    .join('\n');
  writeFileSync(join(dir, 'constraints.txt'), `${pins}\n`);
  run(py, [
    '-m',
    'pip',
    'install',
    '-q',
    '--disable-pip-version-check',
    '-c',
    'constraints.txt',
    ...built.map((w) => join(wheels, w)),
    'uvicorn',
  ]);
  const app = join(dir, 'app');
  mkdirSync(app);
  for (const f of ['server.py', 'client.py']) copyFileSync(join(ROOT, 'examples', 'guide', 'python', f), join(app, f));
  const expected = ['connected to greeter', "tools: ['greet']", 'Hello, Ada!'];
  assert.equal(run(py, ['client.py'], app).trim().split('\n'), expected);
  const port = Number(
    run(py, ['-c', 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])']).trim(),
  );
  // nothing listens on the port yet: the client says so in one line and exits 1 (no traceback)
  const refused = spawnSync(py, ['client.py', `http://127.0.0.1:${port}/mcp`], {
    cwd: app,
    encoding: 'utf8',
    timeout: 120_000,
    env: { ...process.env, PYTHONPATH: '' },
  });
  assert.is(refused.status, 1, refused.stderr);
  assert.match(refused.stderr, /^client: \S+: .+\n$/, refused.stderr);
  assert.is(refused.stdout, '');
  const server = spawn(py, ['server.py', '--http', String(port)], {
    cwd: app,
    stdio: 'ignore',
    env: { ...process.env, PYTHONPATH: '' },
  });
  try {
    let out = '';
    for (let i = 0; i < 100 && !out; i++) {
      await new Promise((r) => setTimeout(r, 200));
      try {
        out = run(py, ['client.py', `http://127.0.0.1:${port}/mcp`], app);
      } catch {
        // not listening yet
      }
    }
    assert.equal(out.trim().split('\n'), expected);
  } finally {
    server.kill('SIGTERM');
  }
});

test.run();
