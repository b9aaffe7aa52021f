/**
 * Issue 44, `serve` flags found faulty by new-user trials: `--allowed-host x:99999` was accepted
 * (a port outside 1-65535, a malformed name), and `--redis` given twice kept the last one
 * silently. Both are usage errors now (exit 2) naming the flag, before anything listens; the real
 * CLI, each run bounded so that one that starts serving instead fails the test rather than hangs.
 */
import { execFile, spawn } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { bin, onLines, root } from '../runtime/tasks/serve-process.js';

/** `mcpgen serve --http 0 <args>`: its exit code (-1: still running after 60 s, then killed) and stderr. */
function serve(...args: string[]): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) =>
    execFile(
      process.execPath,
      [bin, 'serve', '--http', '0', ...args],
      { cwd: root, timeout: 60_000 },
      (err, _out, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stderr }),
    ),
  );
}

test('--allowed-host with a port outside 1-65535 or a malformed host: exit 2 naming the flag and the value', async () => {
  const bad: Array<[string, RegExp]> = [
    ['x:99999', /the port must be 1-65535, not "99999"/],
    ['x:0', /the port must be 1-65535, not "0"/],
    ['a..b', /dot-separated labels/],
    ['-a.example', /dot-separated labels/],
    ['999.1.1.1', /999\.1\.1\.1 is no IPv4 address/],
    ['[zz::1]:443', /\[zz::1\] is no IPv6 address/],
    ['::1', /an IPv6 address is written in brackets/],
  ];
  const runs = await Promise.all(bad.map(([host]) => serve(`--allowed-host=${host}`)));
  bad.forEach(([host, why], i) => {
    const r = runs[i];
    assert.is(r.code, 2, `${host}: ${r.stderr}`);
    assert.ok(
      r.stderr.startsWith(
        `mcpgen serve: --allowed-host needs a host name, optionally with :port (mcp.example.com:443), got ${JSON.stringify(host)}: `,
      ),
      `${host}: ${r.stderr}`,
    );
    assert.match(r.stderr, why, `${host}: ${r.stderr}`);
  });
});

test('--allowed-host accepts a name, a name:port at either end of the range, IPv4 and bracketed IPv6 (the server starts)', async () => {
  // a good value gets past the check: the next usage error (--http twice) is the one reported
  const good = [
    'mcp.example.com',
    'mcp.example.com:1',
    'lb:65535',
    '10.0.0.7:8080',
    '[::1]:443',
    '[2001:db8::7]',
    'a-b.example.',
  ];
  const r = await serve(...good.flatMap((h) => ['--allowed-host', h]), '--http', '0');
  assert.is(r.code, 2, r.stderr);
  assert.match(r.stderr, /^mcpgen serve: --http is given more than once; it takes one value/, r.stderr);
});

test('--redis (or any single-valued flag) given twice: exit 2 naming it, neither value printed', async () => {
  const r = await serve('--redis', 'redis://:secret-one@127.0.0.1:1/0', '--redis', 'redis://:secret-two@127.0.0.1:2/0');
  assert.is(r.code, 2, r.stderr);
  assert.match(r.stderr, /^mcpgen serve: --redis is given more than once; it takes one value/, r.stderr);
  assert.not.match(r.stderr, /secret-/);
});

/** The stderr lines `mcpgen serve --http 0 <args>` prints up to its "listening on" line (then it is killed). */
function startLines(...args: string[]): Promise<string[]> {
  const proc = spawn(process.execPath, [bin, 'serve', '--http', '0', ...args], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const lines: string[] = [];
  return new Promise((resolve, reject) => {
    proc.once('exit', (code) => reject(new Error(`serve exited ${code}: ${lines.join('\n')}`)));
    onLines(proc.stderr!, (line) => {
      lines.push(line);
      if (!/listening on /.test(line)) return;
      proc.removeAllListeners('exit');
      proc.kill('SIGKILL');
      resolve(lines);
    });
  });
}

test('--host on every interface or another address: a line says which Host names pass and how to add others', async () => {
  const [wildcard, v6, named, loopback] = await Promise.all([
    startLines('--host', '0.0.0.0'),
    startLines('--host', '::'),
    startLines('--host', '0.0.0.0', '--allowed-host', 'mcp.example.com'),
    startLines('--host', '127.0.0.1'),
  ]);
  const hint = (host: string) =>
    `mcpgen serve: --host ${host}: a request passes the Host check (DNS-rebinding protection) when it names 127.0.0.1, localhost or [::1]; name each other host clients use with --allowed-host NAME[:PORT]`;
  assert.ok(wildcard.includes(hint('0.0.0.0')), wildcard.join('\n'));
  assert.ok(v6.includes(hint('::')), v6.join('\n'));
  assert.not.ok(
    named.some((l) => l.includes('passes the Host check')),
    named.join('\n'),
  );
  assert.not.ok(
    loopback.some((l) => l.includes('passes the Host check')),
    loopback.join('\n'),
  );
});

test.run();
