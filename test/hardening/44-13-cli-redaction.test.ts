/**
 * Issue 44: the CLI never prints a credential of a URL it was given. `serve --redis` with a
 * `?password=` query, `--auth`, `--public-url` and `--cors-origin` with `user:pw@`, and
 * `call --url` with `user:pw@` printed them in usage errors and start-up lines. Every URL the CLI
 * prints goes through cli/redact.ts: userinfo and credential-like query values become `***`.
 */
import { spawn } from 'node:child_process';
import { setTimeout as delay } from 'node:timers/promises';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { redactText, redactUrl } from '../../cli/redact.js';
import { bin, root, sendOnce, startHttpServeProcess } from '../runtime/tasks/serve-process.js';
import { freePort } from '../scale/support.js';
import { accessToken, issuer } from './auth-kit.js';

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

test('redactUrl: userinfo and every value of the query and the fragment as ***, the rest kept', () => {
  assert.is(redactUrl('https://user:hunter2@auth.example/x'), 'https://***:***@auth.example/x');
  assert.is(redactUrl('redis://:hunter2@h:6379/0'), 'redis://:***@h:6379/0');
  assert.is(redactUrl('redis://h:6379/0?password=hunter2&db=1'), 'redis://h:6379/0?password=***&db=***');
  assert.is(
    redactUrl('https://h/p?access_token=hunter2&X-Amz-Signature=abc&q=1'),
    'https://h/p?access_token=***&X-Amz-Signature=***&q=***',
  );
  // every query value, whatever its name (an Azure SAS, an API's own key name); names, empty
  // values and names without a value kept
  assert.is(redactUrl('https://keys.example/jwks?sas=hunter2'), 'https://keys.example/jwks?sas=***');
  assert.is(redactUrl('https://h/p?sv=2022&se=x&sp=r&sig=hunter2'), 'https://h/p?sv=***&se=***&sp=***&sig=***');
  assert.is(redactUrl('https://h/p?a=&flag&b=hunter2'), 'https://h/p?a=&flag&b=***');
  // a fragment's pairs too (OAuth's implicit grant puts the token there); an anchor or a JSON
  // pointer is kept (schema and link errors name them)
  assert.is(
    redactUrl('https://app.example/cb#access_token=hunter2&state=s'),
    'https://app.example/cb#access_token=***&state=***',
  );
  assert.is(redactUrl('https://h/p?x=1#k=hunter2'), 'https://h/p?x=***#k=***');
  assert.is(redactUrl('https://h/s.json#/$defs/X'), 'https://h/s.json#/$defs/X');
  assert.is(redactUrl('https://h/p#meta'), 'https://h/p#meta');
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
  assert.is(
    redactText('GET https://keys.example/jwks?sas=hunter2&v=1 answered 500.'),
    'GET https://keys.example/jwks?sas=***&v=*** answered 500.',
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
    [
      ['serve', '--http', '0', '--auth', 'https://auth.invalid', '--auth-jwks', `ftp://keys/j?sas=${SECRET}`],
      undefined,
    ],
    [['call', '--url', `ftp://127.0.0.1:1/mcp?X-Amz-Signature=${SECRET}`, 'tools/list'], undefined],
    // (the token check takes http keys on loopback only: it crashed with the URL in its stack)
    [
      ['serve', '--http', '0', '--auth', 'https://auth.invalid', '--auth-jwks', `http://keys.example/j?sas=${SECRET}`],
      undefined,
    ],
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

test('serve --auth: a key fetch that cannot be made is logged with every query value of the JWKS URL hidden', async () => {
  // (nothing listens there: the fetch fails, naming the URL)
  const jwksUrl = `http://127.0.0.1:${await freePort()}/jwks?sv=2022&sig=${SECRET}`;
  const served = await startHttpServeProcess(['--auth', issuer, '--auth-jwks', jwksUrl]);
  let stderr = '';
  served.proc.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  try {
    const res = await sendOnce(
      served.url,
      'POST',
      {
        Authorization: `Bearer ${await accessToken(served.url, 'alice')}`,
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
      },
      '{"jsonrpc":"2.0","id":1,"method":"ping"}',
    );
    assert.is(res.status, 503, res.body);
    for (let i = 0; i < 200 && !stderr.includes('auth: token check failed'); i++) await delay(50);
  } finally {
    await served.stop();
  }
  assert.match(stderr, /auth: token check failed: .*\/jwks\?sv=\*\*\*&sig=\*\*\*/);
  assert.not.ok(stderr.includes(SECRET), stderr);
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
