/**
 * The connection flags `mcpgen tools` and `mcpgen call` share (`--stdio` / `--url` /
 * `--timeout`) are checked by one function, `connectFlags`: its values and refusals, and the
 * same refusal, word for word (exit 2), from both commands for each bad flag.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { connectFlags } from '../../cli/connect.js';
import { UsageError } from '../../cli/inputs.js';
import { main } from '../../cli/main.js';
import { parseFlags } from '../../cli/command.js';

test('connectFlags: the URL, the split command, the timeout', () => {
  assert.equal(connectFlags('call', { url: 'http://127.0.0.1:1/mcp', timeout: '250' }), {
    url: 'http://127.0.0.1:1/mcp',
    timeout: 250,
  });
  assert.equal(connectFlags('tools', { stdio: `node "my server.js" --x 'a b'` }), {
    command: { cmd: 'node', args: ['my server.js', '--x', 'a b'] },
    timeout: undefined,
  });
});

const refusals: Array<[string, Record<string, string>, string]> = [
  ['neither', {}, 'needs --stdio "<command>" or --url <url>'],
  ['both', { stdio: 'node s.js', url: 'http://127.0.0.1:1/mcp' }, 'needs --stdio "<command>" or --url <url>'],
  [
    'timeout zero',
    { url: 'http://127.0.0.1:1/mcp', timeout: '0' },
    '--timeout must be a positive integer of milliseconds, got "0"',
  ],
  [
    'timeout not a number',
    { url: 'http://127.0.0.1:1/mcp', timeout: 'abc' },
    '--timeout must be a positive integer of milliseconds, got "abc"',
  ],
  // given as `--timeout -5`: taken as the flag's value, not refused by parseArgs as ambiguous
  [
    'timeout negative',
    { url: 'http://127.0.0.1:1/mcp', timeout: '-5' },
    '--timeout must be a positive integer of milliseconds, got "-5"',
  ],
  [
    'timeout a fraction',
    { url: 'http://127.0.0.1:1/mcp', timeout: '1.5' },
    '--timeout must be a positive integer of milliseconds, got "1.5"',
  ],
  [
    'timeout in exponent form',
    { url: 'http://127.0.0.1:1/mcp', timeout: '1e3' },
    '--timeout must be a positive integer of milliseconds, got "1e3"',
  ],
  ['empty command', { stdio: '  ' }, '--stdio command is empty'],
  ['ftp URL', { url: 'ftp://127.0.0.1/x' }, '--url must be an http(s) URL: ftp://127.0.0.1/x'],
  ['no URL at all', { url: 'mcp' }, '--url must be an http(s) URL: mcp'],
];

test('connectFlags refuses each bad flag with its message', () => {
  for (const [name, values, message] of refusals) {
    try {
      connectFlags('call', values);
      assert.unreachable(name);
    } catch (e) {
      assert.instance(e, UsageError, name);
      assert.is((e as Error).message, message.startsWith('needs') ? `call ${message}` : message, name);
    }
  }
});

test('tools and call answer each bad flag alike: exit 2, the same message', async () => {
  for (const [name, values, message] of refusals) {
    const flags = Object.entries(values).flatMap(([k, v]) => [`--${k}`, v]);
    // on the command line an empty or blank value is refused by the flag parser, for every flag
    const blank = Object.entries(values).find(([, v]) => v.trim() === '')?.[0];
    const said = blank === undefined ? message : `--${blank} needs a value; an empty one was given`;
    for (const [cmd, extra] of [
      ['tools', ['--out', '/nonexistent/tools.gen.ts']],
      ['call', ['tools/list']],
    ] as const) {
      const err: string[] = [];
      const code = await main([cmd, ...flags, ...extra], { out: () => undefined, err: (l) => err.push(l) });
      assert.is(code, 2, `${cmd} ${name}: ${err.join('\n')}`);
      assert.is(
        err.join('\n').split('\n')[0],
        `mcpgen ${cmd}: ${said.startsWith('needs') ? `${cmd} ${said}` : said}`,
        `${cmd} ${name}`,
      );
    }
  }
});

test('--timeout=-5 and --timeout -5 are one refusal; a negative number after a string flag is its value, after `--` a positional; another dashed value is refused with a hint', async () => {
  for (const flags of [['--timeout=-5'], ['--timeout', '-5']]) {
    const err: string[] = [];
    const code = await main(['call', '--url', 'http://127.0.0.1:1/mcp', ...flags, 'tools/list'], {
      out: () => undefined,
      err: (l) => err.push(l),
    });
    assert.is(code, 2, err.join('\n'));
    assert.is(
      err[0].split('\n')[0],
      'mcpgen call: --timeout must be a positive integer of milliseconds, got "-5"',
      flags.join(' '),
    );
  }
  // after `--` both are positionals, as written
  assert.equal(parseFlags(['--', '--timeout', '-5'], { timeout: { type: 'string' } }).positionals, ['--timeout', '-5']);
  // another value that starts with a dash is refused naming the flag and the way to give it
  const err: string[] = [];
  const code = await main(['call', '--url', 'http://127.0.0.1:1/mcp', '--timeout', '-x', 'tools/list'], {
    out: () => undefined,
    err: (l) => err.push(l),
  });
  assert.is(code, 2);
  assert.is(
    err[0].split('\n')[0],
    'mcpgen call: --timeout needs a value; one that starts with "-" is written --timeout=-x',
  );
});

test.run();
