/**
 * The connection flags `mcpgen tools` and `mcpgen call` share (`--stdio` / `--url` /
 * `--timeout`) are checked by one function, `connectFlags`: its values and refusals, and the
 * same refusal, word for word (exit 2), from both commands for each bad flag.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CommandUsageError, connectFlags } from '../../cli/commands/serve.js';
import { main } from '../../cli/main.js';

test('connectFlags: the URL, the split command, the timeout', () => {
  assert.equal(connectFlags('call', { url: 'http://127.0.0.1:1/mcp', timeout: '250' }), { url: 'http://127.0.0.1:1/mcp', timeout: 250 });
  assert.equal(connectFlags('tools', { stdio: `node "my server.js" --x 'a b'` }), { command: { cmd: 'node', args: ['my server.js', '--x', 'a b'] }, timeout: undefined });
});

const refusals: Array<[string, Record<string, string>, string]> = [
  ['neither', {}, 'needs --stdio "<command>" or --url <url>'],
  ['both', { stdio: 'node s.js', url: 'http://127.0.0.1:1/mcp' }, 'needs --stdio "<command>" or --url <url>'],
  ['timeout zero', { url: 'http://127.0.0.1:1/mcp', timeout: '0' }, '--timeout must be a positive number of ms'],
  ['timeout not a number', { url: 'http://127.0.0.1:1/mcp', timeout: 'soon' }, '--timeout must be a positive number of ms'],
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
      assert.instance(e, CommandUsageError, name);
      assert.is((e as Error).message, message.startsWith('needs') ? `call ${message}` : message, name);
    }
  }
});

test('tools and call answer each bad flag alike: exit 2, the same message', async () => {
  for (const [name, values, message] of refusals) {
    const flags = Object.entries(values).flatMap(([k, v]) => [`--${k}`, v]);
    for (const [cmd, extra] of [['tools', ['--out', '/nonexistent/tools.gen.ts']], ['call', ['tools/list']]] as const) {
      const err: string[] = [];
      const code = await main([cmd, ...flags, ...extra], { out: () => undefined, err: (l) => err.push(l) });
      assert.is(code, 2, `${cmd} ${name}: ${err.join('\n')}`);
      assert.is(err.join('\n').split('\n')[0], `mcpgen ${cmd}: ${message.startsWith('needs') ? `${cmd} ${message}` : message}`, `${cmd} ${name}`);
    }
  }
});

test.run();
