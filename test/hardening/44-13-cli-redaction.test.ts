/**
 * Issue 44: the CLI never prints a credential of a URL it was given. `serve --redis` with a
 * `?password=` query, `--auth`, `--public-url` and `--cors-origin` with `user:pw@`, and
 * `call --url` with `user:pw@` printed them in usage errors and start-up lines. Every URL the CLI
 * prints goes through cli/redact.ts: userinfo and credential-like query values become `***`.
 */
import { spawn } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { redactText, redactUrl } from '../../cli/redact.js';
import { bin, root } from '../runtime/tasks/serve-process.js';

const SECRET = 'hunter2';

/** Runs `mcpgen <args>`; stops it once stderr shows `until` (a server that started); resolves exit code and stderr. */
function mcpgen(args: string[], until?: string): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const proc = spawn(process.execPath, [bin, ...args], { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    proc.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
      if (until !== undefined && stderr.includes(until)) proc.kill('SIGKILL');
    });
    proc.once('exit', (code) => resolve({ code, stderr }));
  });
}

test('redactUrl: userinfo and credential-like query values as ***, the rest kept', () => {
  assert.is(redactUrl('https://user:hunter2@auth.example/x'), 'https://***:***@auth.example/x');
  assert.is(redactUrl('redis://:hunter2@h:6379/0'), 'redis://:***@h:6379/0');
  assert.is(redactUrl('redis://h:6379/0?password=hunter2&db=1'), 'redis://h:6379/0?password=***&db=1');
  assert.is(
    redactUrl('https://h/p?access_token=hunter2&X-Amz-Signature=abc&q=1'),
    'https://h/p?access_token=***&X-Amz-Signature=***&q=1',
  );
  assert.is(redactUrl('redis://127.0.0.1:P?password=hunter2'), 'redis://127.0.0.1:P?password=***');
  assert.is(redactUrl('https://user:hunter2@bad host/'), 'https://***@bad host/');
  // the rest as the user wrote it: no trailing slash added, no braces percent-encoded
  assert.is(redactUrl('https://app.example'), 'https://app.example');
  assert.is(redactUrl('ftp://x/{path}'), 'ftp://x/{path}');
  assert.is(redactUrl('https://u:p@h/{path}?token=t'), 'https://***:***@h/{path}?token=***');
  assert.is(redactUrl('not a url'), 'not a url');
  assert.is(
    redactText('cannot fetch https://u:hunter2@a.example/m (see redis://h?pwd=hunter2)'),
    'cannot fetch https://***:***@a.example/m (see redis://h?pwd=***)',
  );
});

test('serve usage errors and start-up lines never print a credential of a URL', async () => {
  const runs: [string[], string | undefined][] = [
    [['serve', '--http', '0', '--redis', `redis://127.0.0.1:P?password=${SECRET}`], undefined],
    [['serve', '--http', '0', '--redis', `redis://127.0.0.1:6379/0?password=${SECRET}`], undefined],
    [['serve', '--http', '0', '--public-url', `https://user:${SECRET}@mcp.example/mcp`], undefined],
    [['serve', '--http', '0', '--cors-origin', `https://user:${SECRET}@app.example`], undefined],
    [['serve', '--http', '0', '--auth', `https://user:${SECRET}@auth.invalid`], undefined],
    [['serve', '--http', '0', '--auth', 'https://auth.invalid', '--auth-jwks', `ftp://u:${SECRET}@keys`], undefined],
    [['call', '--url', `http://user:${SECRET}@127.0.0.1:1/mcp`, 'tools/list'], undefined],
    [['call', '--url', `ftp://user:${SECRET}@127.0.0.1:1/mcp`, 'tools/list'], undefined],
  ];
  for (const [args, until] of runs) {
    const r = await mcpgen(args, until);
    assert.ok(r.stderr.length > 0, `${args.join(' ')}: says something`);
    assert.not.ok(r.stderr.includes(SECRET), `${args.join(' ')} printed the secret:\n${r.stderr}`);
    // (a refused connection's error names no URL)
    if (!/ECONNREFUSED/.test(r.stderr))
      assert.ok(r.stderr.includes('***'), `${args.join(' ')}: shows where it was:\n${r.stderr}`);
  }
});

test('serve refuses credentials in --auth and --auth-jwks, and a query in --auth (the issuer is published in the metadata, the JWKS URL named in a 503 body)', async () => {
  const refused: string[][] = [
    ['--auth', `https://user:${SECRET}@auth.invalid`],
    ['--auth', `https://auth.invalid/?client_secret=${SECRET}`],
    ['--auth', 'https://auth.invalid/#x'],
    ['--auth', 'https://auth.invalid', '--auth-jwks', `https://u:${SECRET}@jwks.invalid/jwks`],
  ];
  for (const flags of refused) {
    const r = await mcpgen(['serve', '--http', '0', ...flags], 'protected');
    assert.is(r.code, 2, `${flags.join(' ')}: exit ${r.code}\n${r.stderr}`);
    assert.match(r.stderr, /--auth(-jwks)? needs (the issuer URL,|a URL) without credentials/);
    assert.not.ok(r.stderr.includes(SECRET), r.stderr);
  }
  // a JWKS URL may have a query
  const ok = await mcpgen(
    ['serve', '--http', '0', '--auth', 'https://auth.invalid', '--auth-jwks', 'https://jwks.invalid/k?v=1'],
    'protected',
  );
  assert.is(ok.code, null, ok.stderr);
});

test.run();
