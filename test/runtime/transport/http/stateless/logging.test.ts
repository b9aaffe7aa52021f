/**
 * ctx.log() over the stateless endpoint (draft server/utilities/logging, "Per-request log
 * level"): the log messages a request's `_meta["io.modelcontextprotocol/logLevel"]` lets pass
 * arrive as SSE events on that request's own response, before the response; without the field
 * the answer is plain JSON with no log message; a concurrent request without it gets none of
 * the other's messages.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as draft from '../../../../../generated/draft/index.js';
import { LOG_LEVELS, type RequestContext } from '../../../../../runtime/engine/context.js';
import { createStatelessHttpHandler } from '../../../../../runtime/transport/http/stateless/server.js';
import { META, headersFor, post, request } from './helpers.js';
import { STATELESS_TABLES } from '../tables.js';

const LOG_LEVEL = 'io.modelcontextprotocol/logLevel';

async function start(capabilities: Record<string, unknown> = { tools: {}, logging: {} }) {
  const handler = createStatelessHttpHandler({ tables: STATELESS_TABLES });
  const server = new draft.Server({
    serverInfo: { name: 'log', version: '1' },
    capabilities,
    handlers: {
      'tools/call': async (p: { arguments?: { pauseMs?: number } }, ctx: RequestContext) => {
        for (const level of LOG_LEVELS) {
          await ctx.log(level, `at ${level}`, 'http-probe');
          if (p.arguments?.pauseMs) await new Promise((r) => setTimeout(r, p.arguments!.pauseMs));
        }
        return { content: [{ type: 'text', text: 'logged' }] };
      },
    } as never,
  });
  await server.connect(handler.transport);
  const http = createServer(handler);
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  return {
    url,
    close: async () => {
      await server.close();
      http.closeAllConnections();
      await new Promise<void>((r) => http.close(() => r()));
    },
  };
}

const call = (url: string, id: string | number, level?: string, args: Record<string, unknown> = {}) =>
  post(
    url,
    headersFor('tools/call', 'logger'),
    request(
      id,
      'tools/call',
      { name: 'logger', arguments: args },
      level === undefined ? META : { ...META, [LOG_LEVEL]: level },
    ),
  );

const logs = (messages: any[]) => messages.filter((m) => m.method === 'notifications/message').map((m) => m.params);

test('each logLevel gets the levels at or above it as SSE events before the response', async () => {
  const s = await start();
  for (const [level, from] of [
    ['debug', 0],
    ['notice', 2],
    ['error', 4],
    ['alert', 6],
    ['emergency', 7],
  ] as const) {
    const r = await call(s.url, `req-${level}`, level);
    assert.is(r.status, 200);
    assert.match(r.headers.get('content-type') ?? '', /^text\/event-stream/, `${level}: SSE`);
    const want = LOG_LEVELS.slice(from);
    assert.equal(
      logs(r.messages),
      want.map((l) => ({ level: l, data: `at ${l}`, logger: 'http-probe' })),
      `levels for ${level}`,
    );
    assert.is(r.messages.length, want.length + 1);
    assert.equal(r.messages.at(-1).id, `req-${level}`, 'the response (client id restored) comes last');
    assert.is(r.messages.at(-1).result.content[0].text, 'logged');
  }
  await s.close();
});

test('no logLevel: a JSON answer and no log message', async () => {
  const s = await start();
  const r = await call(s.url, 7);
  assert.is(r.status, 200);
  assert.match(r.headers.get('content-type') ?? '', /^application\/json/);
  assert.equal(logs(r.messages), []);
  assert.equal(r.body.id, 7);
  assert.is(r.body.result.content[0].text, 'logged');
  await s.close();
});

test("concurrent requests: each stream carries only its own request's log messages", async () => {
  const s = await start();
  const [loud, quiet, some] = await Promise.all([
    call(s.url, 'loud', 'debug', { pauseMs: 5 }),
    call(s.url, 'quiet', undefined, { pauseMs: 5 }),
    call(s.url, 'some', 'critical', { pauseMs: 5 }),
  ]);
  assert.is(logs(loud.messages).length, 8);
  assert.equal(logs(quiet.messages), []);
  assert.equal(
    logs(some.messages).map((p) => p.level),
    ['critical', 'alert', 'emergency'],
  );
  assert.equal([loud.messages.at(-1).id, quiet.body.id, some.messages.at(-1).id], ['loud', 'quiet', 'some']);
  await s.close();
});

test('a server without the logging capability sends none over HTTP either', async () => {
  const s = await start({ tools: {} });
  const r = await call(s.url, 1, 'debug');
  assert.match(r.headers.get('content-type') ?? '', /^application\/json/);
  assert.equal(logs(r.messages), []);
  await s.close();
});

test.run();
