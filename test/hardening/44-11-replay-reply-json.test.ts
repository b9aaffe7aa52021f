/**
 * Issue 44: request replay answers each request as a primed SSE stream, which JSON replies
 * forbid, so the two are an explicit choice, never a silent one: the runtime refuses
 * `createStreamableHttpHandler({ replyMode: 'json', requestReplay: true })` naming both options,
 * and `mcpgen serve --reply json --redis` serves JSON replies with request replay off (its
 * `initialize` result does not advertise it) and says so on stderr. A real redis-server and a
 * real `serve` process. `serve --help` and docs/cli.md say so, and what "identical" means.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createStreamableHttpHandler } from '../../runtime/transport/http/session/server.js';
import { SESSION_TABLES } from '../runtime/transport/http/tables.js';
import { bin, root } from '../runtime/tasks/serve-process.js';
import { startRedis, type RedisServer } from '../scale/support.js';
import { initReq, post, V } from '../runtime/transport/http/session/helpers.js';

test('runtime: replyMode "json" with requestReplay is a TypeError naming both options', async () => {
  const onSession = async (): Promise<void> => undefined;
  let error: unknown;
  try {
    createStreamableHttpHandler({ tables: SESSION_TABLES, onSession, replyMode: 'json', requestReplay: true });
  } catch (e) {
    error = e;
  }
  assert.instance(error, TypeError);
  assert.match((error as Error).message, /requestReplay/);
  assert.match((error as Error).message, /replyMode 'json'/);
  // each alone, and replay with the other reply modes, are fine
  for (const replyMode of ['auto', 'sse', 'json'] as const)
    await createStreamableHttpHandler({
      tables: SESSION_TABLES,
      onSession,
      replyMode,
      requestReplay: replyMode !== 'json',
    }).close();
});

test('serve --help and docs/cli.md: request replay, what "identical" means, --reply json with --redis', async () => {
  const help = spawnSync(process.execPath, [bin, 'serve', '--help'], { cwd: root, encoding: 'utf8' });
  assert.is(help.status, 0, help.stderr);
  const cliMd = readFileSync(join(root, 'docs/cli.md'), 'utf8');
  for (const text of [help.stdout.replace(/\s+/g, ' '), cliMd.replace(/\s+/g, ' ')]) {
    assert.ok(text.includes('request replay'), 'names request replay');
    assert.ok(text.includes('mcpgen/requestReplay'), 'names the capability');
    assert.ok(text.includes('key order counts, whitespace does not'), 'says what identical means');
    assert.ok(text.includes('--reply json with --redis turns it off'), 'says --reply json turns it off');
  }
});

/** `mcpgen serve --http 0 --rev V --redis <redis> <args>`: its URL, what it wrote to stderr until then, and its stop. */
async function serveRedis(redisUrl: string, ...args: string[]) {
  const proc = spawn(process.execPath, [bin, 'serve', '--http', '0', '--rev', V, '--redis', redisUrl, ...args], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  let stderr = '';
  const stop = async (): Promise<void> => {
    proc.kill('SIGTERM');
    const kill = setTimeout(() => proc.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(kill);
  };
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`serve did not print its URL: ${stderr}`)), 60_000);
      proc.stderr.on('data', (d: Buffer) => {
        stderr += d.toString();
        const m = /listening on (http:\/\/\S+)/.exec(stderr);
        if (m) {
          clearTimeout(t);
          resolve(m[1]!);
        }
      });
      void exited.then(() => reject(new Error(`serve exited: ${stderr}`)));
    });
    return { url, stderr, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}

/** Initializes a session at `url` and calls `echo`: the capabilities, and the call's Content-Type and body. */
async function callOnce(url: string) {
  const init = await post(url, initReq());
  assert.is(init.headers.get('content-type'), 'application/json');
  const result = ((await init.json()) as { result: { capabilities: { experimental?: Record<string, unknown> } } })
    .result;
  const headers = { 'Mcp-Session-Id': init.headers.get('mcp-session-id')!, 'MCP-Protocol-Version': V };
  await (await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers)).text();
  const call = await post(
    url,
    { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } },
    headers,
  );
  return { capabilities: result.capabilities, type: call.headers.get('content-type'), text: await call.text() };
}

let redis: RedisServer;
test.before(async () => {
  redis = await startRedis();
});
test.after(async () => {
  await redis?.stop();
});

test('serve --reply json --redis: JSON replies, request replay off and said so on stderr', async () => {
  const served = await serveRedis(redis.url, '--reply', 'json');
  try {
    const note = served.stderr.split('\n').find((l) => l.includes('request replay'));
    assert.ok(note, served.stderr);
    assert.match(note!, /--reply json/);
    assert.match(note!, /--redis/);
    assert.match(note!, /off/);
    const { capabilities, type, text } = await callOnce(served.url);
    assert.not.ok(capabilities.experimental?.['mcpgen/requestReplay'], JSON.stringify(capabilities));
    assert.is(type, 'application/json');
    assert.equal(JSON.parse(text), { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'hi' }] } });
  } finally {
    await served.stop();
  }
});

test('serve --redis --request-replay off|on: replay advertised and SSE replies only when on (the default)', async () => {
  for (const [args, on] of [
    [['--request-replay', 'off'], false],
    [['--request-replay', 'on'], true],
    [[], true],
  ] as const) {
    const served = await serveRedis(redis.url, ...args);
    try {
      const { capabilities, type, text } = await callOnce(served.url);
      assert.is(capabilities.experimental?.['mcpgen/requestReplay'] !== undefined, on, args.join(' '));
      assert.is(type, on ? 'text/event-stream' : 'application/json', args.join(' '));
      assert.ok(text.includes('"text":"hi"'), text);
      assert.not.ok(served.stderr.includes('request replay is off'), served.stderr);
    } finally {
      await served.stop();
    }
  }
});

test('serve --request-replay: a value other than on|off, on without --redis, on with --reply json: usage errors (exit 2)', () => {
  for (const [args, words] of [
    [['--redis', 'redis://127.0.0.1:1', '--request-replay', 'maybe'], '--request-replay must be on or off'],
    [['--request-replay', 'on'], 'needs --redis'],
    [['--redis', 'redis://127.0.0.1:1', '--request-replay', 'on', '--reply', 'json'], 'excludes --reply json'],
  ] as const) {
    const r = spawnSync(process.execPath, [bin, 'serve', '--http', '0', ...args], { cwd: root, encoding: 'utf8' });
    assert.is(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.ok(r.stderr.includes(words), r.stderr);
  }
});

test.run();
