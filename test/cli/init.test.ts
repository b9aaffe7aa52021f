/**
 * `mcpgen init` (cli/commands/init.ts): quickstart projects of 2025-11-25 and draft, over stdio
 * and over HTTP, each with its client, in temporary folders outside the repository. The first
 * project is installed by npm (the runtime package's tarball, test/package/runtime-package.ts;
 * mcpgen from this checkout; typescript and @types/node from the registry or npm's cache); the
 * others use its node_modules. Each project builds with its own `npm test` (tsc, then node:test:
 * the server's test over a memory pair and the client's against the server as a process), and
 * `mcpgen check` in it agrees with its generated code.
 *
 * The HTTP projects meet the official conformance suites, the scenarios that apply to a server
 * with one tool and a client that lists tools and calls one (the others need the reference
 * server's fixtures: test_simple_text, sampling, elicitation, …, or a client scripted by the
 * scenario):
 * - 2025-11-25 server: 0.1.16 server-initialize, ping, tools-list, dns-rebinding-protection;
 *   0.2.0-alpha.12 the same and server-session-lifecycle. Client: initialize, in both suites.
 * - draft (protocol version 2026-07-28) server: 0.2.0-alpha.12 at --spec-version 2026-07-28
 *   tools-list, dns-rebinding-protection, http-header-validation. No client scenario applies
 *   (tools_call scripts a client that calls add_numbers).
 * The stdio projects: the suites drive HTTP only; their own tests run the client against the
 * server over a real pipe.
 */
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { main } from '../../cli/main.js';
import { ROOT, SPEC_DIR, tempDir } from '../generator/support.js';
import { runtimeTarball } from '../package/runtime-package.js';

const test = suite('mcpgen init: quickstart projects build, pass their tests and the conformance scenarios that apply');

const SHIM = fileURLToPath(new URL('../conformance/glob-shim.mjs', import.meta.url));
const SUITE_0_1 = join(ROOT, 'node_modules', 'conformance-0.1', 'dist', 'index.js');
const SUITE_ALPHA = join(ROOT, 'node_modules', 'conformance-alpha', 'dist', 'index.js');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}
function run(file: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<Run> {
  return new Promise((done) => {
    execFile(file, args, { cwd, env, maxBuffer: 64 << 20, timeout: 300_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      done({ code, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}
const must = (r: Run, what: string) =>
  assert.is(r.code, 0, `${what} failed (exit ${r.code})\n${r.stdout.slice(-4000)}\n${r.stderr.slice(-4000)}`);

/** An environment without the repository's npm_* and tsx hints. */
function userEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^(npm_|NODE_OPTIONS$|TSX_)/.test(k)) env[k] = v;
  return env;
}

async function init(args: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(['init', ...args], { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out, err };
}

const work = tempDir('mcpgen-init-');

test('usage: a folder is needed, one transport, a known revision, an empty folder', async () => {
  const none = await init([]);
  assert.is(none.code, 2);
  assert.match(none.err.join('\n'), /init needs a folder/);
  const both = await init([join(work.dir, 'x'), '--stdio', '--http']);
  assert.is(both.code, 2);
  assert.match(both.err.join('\n'), /--stdio or --http, not both/);
  const rev = await init([join(work.dir, 'x'), '--rev', '1999-01-01']);
  assert.is(rev.code, 2);
  assert.match(rev.err.join('\n'), /unknown revision "1999-01-01" \(revisions: .*2025-11-25/);
  const full = join(work.dir, 'full');
  mkdirSync(full);
  writeFileSync(join(full, 'keep.txt'), 'mine');
  const taken = await init([full]);
  assert.is(taken.code, 2);
  assert.match(taken.err.join('\n'), /exists and is not empty/);
  assert.is(readFileSync(join(full, 'keep.txt'), 'utf8'), 'mine');
  const missing = join(work.dir, 'no-such-runtime.tgz');
  const tarball = await init([join(work.dir, 'x'), '--runtime', `file:${missing}`, '--spec-dir', SPEC_DIR]);
  assert.is(tarball.code, 2);
  assert.match(tarball.err.join('\n'), `--runtime: file:${missing} names ${missing}, which does not exist`);
  const url = await init([join(work.dir, 'x'), '--mcpgen', `file://${missing}`, '--spec-dir', SPEC_DIR]);
  assert.is(url.code, 2);
  assert.match(url.err.join('\n'), `--mcpgen: file://${missing} names ${missing}, which does not exist`);
  // a relative file: spec is read from the project's folder, as npm install reads it
  const relative = await init([
    join(work.dir, 'x'),
    '--runtime',
    'file:../no-such-runtime.tgz',
    '--spec-dir',
    SPEC_DIR,
  ]);
  assert.is(relative.code, 2);
  assert.match(relative.err.join('\n'), `names ${missing}, which does not exist`);
  assert.not.ok(existsSync(join(work.dir, 'x')), 'nothing written on a usage error');
});

const PROJECTS = [
  { name: 'v2025-stdio', rev: '2025-11-25', http: false },
  { name: 'v2025-http', rev: '2025-11-25', http: true },
  { name: 'draft-stdio', rev: 'draft', http: false },
  { name: 'draft-http', rev: 'draft', http: true },
] as const;
const dirOf = (name: string) => join(work.dir, name);

test('init writes each project; npm installs the first; each passes its own npm test and mcpgen check', async () => {
  const tarball = runtimeTarball();
  for (const p of PROJECTS) {
    const r = await init([
      dirOf(p.name),
      '--rev',
      p.rev,
      p.http ? '--http' : '--stdio',
      '--client',
      '--runtime',
      `file:${tarball}`,
      '--mcpgen',
      `file:${ROOT}`,
      '--spec-dir',
      SPEC_DIR,
    ]);
    assert.is(r.code, 0, r.err.join('\n'));
    for (const f of [
      'package.json',
      'mcpgen.config.json',
      'mcpgen.lock.json',
      'tsconfig.json',
      'README.md',
      'src/server.ts',
      'src/server.test.ts',
      'src/client.ts',
      'src/client.test.ts',
      `src/mcp/${p.rev}/index.ts`,
    ])
      assert.ok(existsSync(join(dirOf(p.name), f)), `${p.name}: ${f}`);
    const readme = readFileSync(join(dirOf(p.name), 'README.md'), 'utf8');
    assert.ok(readme.trimEnd().split('\n').length <= 12, `${p.name}: README of about ten lines`);
    // an HTTP client needs its server running: the hint and the README start it, run the client, stop it
    const runs = p.http ? '{ node dist/server.js & sleep 2; npm run client; kill $!; }' : 'npm run client';
    assert.equal(r.out.at(-1), `next: cd ${dirOf(p.name)} && npm install && npm test && ${runs}`);
    assert.ok(readme.includes(`\n${runs} `), `${p.name}: README runs ${runs}`);
    const lock = JSON.parse(readFileSync(join(dirOf(p.name), 'mcpgen.lock.json'), 'utf8'));
    assert.equal(Object.keys(lock.revisions), [p.rev]);
  }
  const env = userEnv();
  const first = dirOf(PROJECTS[0].name);
  must(await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund'], first, env), 'npm install');
  for (const p of PROJECTS.slice(1)) symlinkSync(join(first, 'node_modules'), join(dirOf(p.name), 'node_modules'));
  for (const p of PROJECTS) {
    const t = await run('npm', ['test'], dirOf(p.name), env);
    must(t, `${p.name}: npm test`);
    // node:test's summary: TAP (`# pass 2`, Node 20) or its spec reporter (`ℹ pass 2`, Node 24 also when not a TTY)
    assert.match(t.stdout, /^[#ℹ] pass 2\n[#ℹ] fail 0$/m, `${p.name}: both tests ran`);
    must(
      await run(
        process.execPath,
        [join(first, 'node_modules', 'mcpgen', 'bin', 'mcpgen.js'), 'check', '--spec-dir', SPEC_DIR],
        dirOf(p.name),
        env,
      ),
      `${p.name}: mcpgen check`,
    );
  }
});

test("an HTTP project's client run without its server says so in one line on stderr and exits 1", async () => {
  // a port nothing listens on: one the OS gave and took back
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const { port } = probe.address() as AddressInfo;
  await new Promise((r) => probe.close(r));
  const target = `http://127.0.0.1:${port}/mcp`;
  for (const name of ['v2025-http', 'draft-http']) {
    const r = await run(process.execPath, [join(dirOf(name), 'dist', 'client.js'), target], dirOf(name), userEnv());
    assert.is(r.code, 1, `${name}: ${r.stdout}${r.stderr}`);
    assert.is(r.stdout, '', name);
    const lines = r.stderr.trimEnd().split('\n');
    assert.is(lines.length, 1, `${name}: one line, not a stack:\n${r.stderr}`);
    assert.ok(
      lines[0].startsWith(`${name}-client: no answer from ${target}: `) &&
        lines[0].endsWith(' (is the server running? npm start)'),
      lines[0],
    );
  }
});

/** A port the OS gave and took back: nothing listens on it. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const { port } = probe.address() as AddressInfo;
  await new Promise((r) => probe.close(r));
  return port;
}

test("an HTTP project's server on a port in use says so in one line naming the port and PORT, and exits 3", async () => {
  const busy = createServer();
  await new Promise<void>((r) => busy.listen(0, '127.0.0.1', r));
  const { port } = busy.address() as AddressInfo;
  try {
    for (const name of ['v2025-http', 'draft-http']) {
      const r = await run(process.execPath, [join(dirOf(name), 'dist', 'server.js')], dirOf(name), {
        ...userEnv(),
        PORT: String(port),
      });
      assert.is(r.code, 3, `${name}: ${r.stdout}${r.stderr}`);
      assert.is(r.stdout, '', name);
      const lines = r.stderr.trimEnd().split('\n');
      assert.is(lines.length, 1, `${name}: one line, not a stack:\n${r.stderr}`);
      assert.is(
        lines[0],
        `${name}: cannot listen on 127.0.0.1:${port}: port ${port} is in use (set PORT to a free port; PORT=0: any)`,
      );
    }
    const bad = await run(process.execPath, [join(dirOf('v2025-http'), 'dist', 'server.js')], dirOf('v2025-http'), {
      ...userEnv(),
      PORT: 'http',
    });
    assert.is(bad.code, 3, bad.stderr);
    assert.is(bad.stderr, 'v2025-http: PORT=http is not a port number (0-65535; 0: any free port)\n');
    // Number(' ') is 0: a blank PORT must not mean "any free port" unannounced
    for (const PORT of [' ', '80 80', '0x50', '1e3', '-1']) {
      const r = await run(process.execPath, [join(dirOf('v2025-http'), 'dist', 'server.js')], dirOf('v2025-http'), {
        ...userEnv(),
        PORT,
      });
      assert.is(r.code, 3, `PORT=${JSON.stringify(PORT)}: ${r.stderr}`);
      assert.is(r.stderr, `v2025-http: PORT=${PORT} is not a port number (0-65535; 0: any free port)\n`);
    }
  } finally {
    await new Promise((r) => busy.close(r));
  }
});

test("an HTTP project's client calls the server on $PORT, as the server listens on it, when given no URL", async () => {
  for (const name of ['v2025-http', 'draft-http']) {
    const env = { ...userEnv(), PORT: String(await freePort()) };
    const server = spawn(process.execPath, [join(dirOf(name), 'dist', 'server.js')], {
      env,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const [chunk] = (await once(server.stdout!, 'data')) as [Buffer];
      assert.is(String(chunk), `listening on http://127.0.0.1:${env.PORT}/mcp\n`);
      const r = await run(process.execPath, [join(dirOf(name), 'dist', 'client.js')], dirOf(name), env);
      assert.is(r.code, 0, `${name}: ${r.stdout}${r.stderr}`);
      assert.is(r.stdout, 'tools: greet\nHello, Ada!\n', name);
    } finally {
      server.kill();
    }
    assert.match(readFileSync(join(dirOf(name), 'README.md'), 'utf8'), 'the client calls http://127.0.0.1:$PORT/mcp');
  }
});

/** Starts a project's built HTTP server on a free port; resolves with its URL and a stop function. */
async function startServer(dir: string): Promise<{ url: string; stop: () => void }> {
  const child = spawn(process.execPath, [join(dir, 'dist', 'server.js')], {
    env: { ...userEnv(), PORT: '0' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  // its first line, or its exit (a server that does not start must fail the test, not hang it)
  const first = await Promise.race([
    once(child.stdout!, 'data').then(([chunk]) => String(chunk)),
    once(child, 'exit').then(([code]) => `the server exited (${code}) before it printed its URL`),
  ]);
  const url = /listening on http:\/\/127\.0\.0\.1:(\d+)\/mcp/.exec(first);
  assert.ok(url, first);
  // the suites connect to localhost, as they do to the reference server
  return { url: `http://localhost:${url[1]}/mcp`, stop: () => child.kill() };
}

/** One conformance scenario; passes when the suite exits 0 with every check passed. */
async function scenario(cli: string, args: string[]): Promise<void> {
  const r = await run(process.execPath, ['--import', SHIM, cli, ...args], work.dir);
  // (the client runs print their summary on stderr)
  const summary = /Passed: (\d+)\/(\d+), (\d+) failed/.exec(`${r.stdout}\n${r.stderr}`);
  const what = `${cli === SUITE_0_1 ? '0.1.16' : 'alpha.12'} ${args.join(' ')}`;
  assert.ok(summary, `${what}: no summary\n${r.stdout.slice(-3000)}\n${r.stderr.slice(-3000)}`);
  assert.is(r.code, 0, `${what}: exit ${r.code}\n${r.stdout.slice(-3000)}`);
  assert.is(summary[3], '0', `${what}: ${summary[0]}\n${r.stdout.slice(-3000)}`);
  assert.is(summary[1], summary[2], `${what}: ${summary[0]}`);
}

test('2025-11-25 HTTP project: the server and the client pass the scenarios that apply', async () => {
  const dir = dirOf('v2025-http');
  const server = await startServer(dir);
  try {
    for (const s of ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'])
      await scenario(SUITE_0_1, ['server', '--url', server.url, '--scenario', s]);
    for (const s of ['server-initialize', 'server-session-lifecycle', 'ping', 'tools-list', 'dns-rebinding-protection'])
      await scenario(SUITE_ALPHA, ['server', '--url', server.url, '--scenario', s]);
  } finally {
    server.stop();
  }
  const client = `${process.execPath} ${join(dir, 'dist', 'client.js')}`;
  await scenario(SUITE_0_1, ['client', '--command', client, '--scenario', 'initialize']);
  await scenario(SUITE_ALPHA, ['client', '--command', client, '--scenario', 'initialize']);
});

test('draft HTTP project: the stateless server passes the 2026-07-28 scenarios that apply', async () => {
  const server = await startServer(dirOf('draft-http'));
  try {
    for (const s of ['tools-list', 'dns-rebinding-protection', 'http-header-validation'])
      await scenario(SUITE_ALPHA, ['server', '--url', server.url, '--spec-version', '2026-07-28', '--scenario', s]);
  } finally {
    server.stop();
  }
});

test.after(() => work.cleanup());

test.run();
