/**
 * Issue 44, finding 1: a tool call runs at most once over every HTTP client transport (node:http
 * and fetch forms, the 2025 session transport and the stateless one). A POST is sent again only
 * when the server cannot have processed it: the connection was refused (nothing written), or the
 * server refused it with 503 and `Retry-After`; those retries are bounded and spread. Anything
 * lost after the request may have been written fails the call with ConnectionClosedError, as a
 * server dying on stdio does, never with a raw network error and never by sending it again.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Client } from '../../generated/2025-11-25/index.js';
import { HttpClientTransport } from '../../runtime/transport/http/session/node-client.js';
import { HttpClientTransport as FetchHttpClientTransport } from '../../runtime/transport/http/session/fetch-client.js';
import { StatelessHttpClientTransport } from '../../runtime/transport/http/stateless/node-client.js';
import {
  ConnectionClosedError,
  HttpStatusError,
  RequestAbortedError,
  RequestNotProcessedError,
} from '../../runtime/index.js';
import { retryAfterMs, retryDelay } from '../../runtime/transport/http/io/delivery.js';
import { answerInitialize } from '../runtime/transport/http/session/helpers.js';
import type { JSONRPCMessage, Transport } from '../../runtime/jsonrpc/transport.js';

type Reply = (m: JSONRPCMessage, req: IncomingMessage, res: ServerResponse) => void;

/**
 * A node:http MCP endpoint that answers `initialize` and notifications itself and everything
 * else with `call`; `executions` counts the tools/call POSTs that reached `call`.
 */
async function endpoint(call: Reply, port = 0) {
  const state = { executions: 0, posts: 0, calls: 0 };
  const server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => (body += d));
    req.on('end', () => {
      if (req.method === 'DELETE') return void res.writeHead(204).end();
      if (req.method !== 'POST') return void res.writeHead(405).end();
      state.posts++;
      const m = JSON.parse(body) as JSONRPCMessage;
      if (m.method === 'initialize') return answerInitialize(res, m.id, { 'mcp-session-id': 's1' }, { tools: {} });
      if (m.id === undefined) return void res.writeHead(202).end();
      if (m.method === 'tools/call') {
        state.calls++;
        state.executions++;
      }
      call(m, req, res);
    });
  });
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  return {
    state,
    port: (server.address() as AddressInfo).port,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}

const ok = (m: JSONRPCMessage, res: ServerResponse): void => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: 'ran' }] } }));
};
const answer: Reply = (m, _req, res) => ok(m, res);

/** The repro of the issue: SSE headers and one event, then the connection is reset. */
const resetAfterOneEvent: Reply = (_m, req, res) => {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.write(
    `data: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x' } })}\n\n`,
  );
  req.socket.resetAndDestroy();
};

const failure = (p: Promise<unknown>): Promise<unknown> =>
  p.then(
    () => undefined,
    (e: unknown) => e,
  );
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

for (const form of ['node:http', 'fetch'] as const) {
  test(`resend repro (${form}): a reset after the server read tools/call runs it once, 20 of 20 runs; the call fails with ConnectionClosedError`, async () => {
    const srv = await endpoint(resetAfterOneEvent);
    const runs: number[] = [];
    try {
      for (let i = 0; i < 20; i++) {
        srv.state.executions = 0;
        const client = new Client({ clientInfo: { name: 'c', version: '0' } });
        const options = { url: srv.url, standaloneStream: false };
        await client.connect(
          form === 'fetch'
            ? new FetchHttpClientTransport({ ...options, fetch: globalThis.fetch })
            : new HttpClientTransport(options),
        );
        const error = await failure(client.callTool({ name: 't', arguments: {} }));
        assert.instance(error, ConnectionClosedError);
        assert.not.instance(error, RequestNotProcessedError);
        await sleep(30);
        runs.push(srv.state.executions);
        await client.close();
      }
      assert.equal(runs, Array(20).fill(1));
    } finally {
      await srv.close();
    }
  });
}

/** A stateless transport with a minimal correlator: one request's outcome. */
async function statelessCall(
  transport: Transport,
  message: JSONRPCMessage,
): Promise<{ result?: unknown; error?: unknown }> {
  return new Promise((resolve) => {
    void transport.start({
      onMessage: (m) => {
        if (m.id === message.id && !('method' in m)) resolve('error' in m ? { error: m.error } : { result: m.result });
      },
      onRequestError: (_id, error) => resolve({ error }),
      onClose: () => undefined,
    });
    transport.send(message).catch((error: unknown) => resolve({ error }));
  });
}

const statelessToolCall = (id: number): JSONRPCMessage => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: {
    name: 't',
    arguments: {},
    _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' },
  },
});

test('resend repro, stateless transport (node:http and fetch): run once, ConnectionClosedError', async () => {
  const srv = await endpoint(resetAfterOneEvent);
  try {
    for (const fetchFn of [undefined, globalThis.fetch]) {
      for (let i = 0; i < 5; i++) {
        srv.state.executions = 0;
        const transport = new StatelessHttpClientTransport({ url: srv.url, fetch: fetchFn });
        // a reused keep-alive socket, as after any earlier request
        await statelessCall(transport, { ...statelessToolCall(1), method: 'ping', params: {} });
        const outcome = await statelessCall(transport, statelessToolCall(2));
        assert.instance(outcome.error, ConnectionClosedError);
        await sleep(20);
        assert.is(srv.state.executions, 1);
        await transport.close();
      }
    }
  } finally {
    await srv.close();
  }
});

test('a refused connection is retried until the server listens: initialize sent once, the session works', async () => {
  const probe = await endpoint(answer);
  const port = probe.port;
  await probe.close();
  const transport = new HttpClientTransport({
    url: `http://127.0.0.1:${port}/mcp`,
    standaloneStream: false,
    retry: { initialDelayMs: 100, maxRetries: 8 },
  });
  const client = new Client({ clientInfo: { name: 'c', version: '0' } });
  const connected = client.connect(transport);
  await sleep(150);
  const srv = await endpoint(answer, port);
  try {
    await connected;
    const result = await client.callTool({ name: 't', arguments: {} });
    assert.equal(result.content, [{ type: 'text', text: 'ran' }]);
    assert.is(srv.state.executions, 1);
    await client.close();
  } finally {
    await srv.close();
  }
});

test('a server that never listens: RequestNotProcessedError (not-sent) after the bounded retries, both eras', async () => {
  const probe = await endpoint(answer);
  const url = probe.url;
  await probe.close();
  const retry = { initialDelayMs: 5, maxRetries: 2 };
  for (const transport of [
    new HttpClientTransport({ url, retry }),
    new FetchHttpClientTransport({ url, retry, fetch: globalThis.fetch }),
    new StatelessHttpClientTransport({ url, retry }),
  ]) {
    const outcome = await statelessCall(transport, statelessToolCall(1));
    const error = outcome.error as RequestNotProcessedError;
    assert.instance(error, RequestNotProcessedError);
    assert.is(error.reason, 'not-sent');
    assert.is(error.attempts, 3);
    assert.match(error.message, /safe to send again/);
    // the network error, not fetch's "fetch failed" above it
    assert.match(error.message, /could not be sent \(connect ECONNREFUSED 127\.0\.0\.1:\d+\)/, error.message);
  }
});

test('503 with Retry-After is retried (the server did not run it): executed once, after the wait; 503 without it is not', async () => {
  let refusals = 2;
  const srv = await endpoint((m, _req, res) => {
    if (m.method === 'tools/call' && refusals-- > 0) {
      srv.state.executions--; // refused before dispatch: not run
      res.writeHead(503, { 'content-type': 'application/json', 'retry-after': refusals === 1 ? '1' : '0' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'store unreachable' } }));
      return;
    }
    if (m.method === 'tools/call' && (m.params as { name: string }).name === 'plain503') {
      res.writeHead(503, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'busy' } }));
      return;
    }
    ok(m, res);
  });
  try {
    const client = new Client({ clientInfo: { name: 'c', version: '0' } });
    await client.connect(new HttpClientTransport({ url: srv.url, standaloneStream: false }));
    const t0 = performance.now();
    const result = await client.callTool({ name: 't', arguments: {} });
    const waited = performance.now() - t0;
    assert.equal(result.content, [{ type: 'text', text: 'ran' }]);
    assert.is(srv.state.calls, 3);
    assert.is(srv.state.executions, 1);
    // Retry-After: 1 waited (with up to half again of jitter), then Retry-After: 0
    assert.ok(waited >= 1000 && waited < 2500, `${waited} ms`);
    const error = await failure(client.callTool({ name: 'plain503', arguments: {} }));
    assert.instance(error, HttpStatusError);
    assert.is(srv.state.calls, 4);
    await client.close();
  } finally {
    await srv.close();
  }
});

test('503 with Retry-After on every attempt: RequestNotProcessedError (refused) with the server body; one longer than maxDelayMs is not waited for', async () => {
  const srv = await endpoint((m, _req, res) => {
    if (m.method !== 'tools/call') return ok(m, res);
    srv.state.executions--;
    const name = (m.params as { name: string }).name;
    res.writeHead(503, { 'content-type': 'application/json', 'retry-after': name === 'long' ? '120' : '0' });
    res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'store unreachable' } }));
  });
  try {
    for (const make of [
      () => new HttpClientTransport({ url: srv.url, standaloneStream: false, retry: { maxRetries: 3 } }),
      () => new StatelessHttpClientTransport({ url: srv.url, retry: { maxRetries: 3 } }),
    ]) {
      for (const [name, attempts] of [
        ['t', 4],
        ['long', 1],
      ] as const) {
        const before = srv.state.calls;
        const outcome = await statelessCall(make(), { ...statelessToolCall(7), params: { name, arguments: {} } });
        const error = outcome.error as RequestNotProcessedError;
        assert.instance(error, RequestNotProcessedError);
        assert.is(error.reason, 'refused');
        assert.is(error.status, 503);
        assert.is(error.attempts, attempts);
        assert.is(error.retryAfterMs, name === 'long' ? 120_000 : 0);
        assert.equal((error.body as { error: { message: string } }).error.message, 'store unreachable');
        assert.is(srv.state.calls - before, attempts);
      }
    }
    assert.is(srv.state.executions, 0);
  } finally {
    await srv.close();
  }
});

test('a request cancelled while it waits to be retried is not sent again', async () => {
  const srv = await endpoint((m, _req, res) => {
    if (m.method !== 'tools/call') return ok(m, res);
    srv.state.executions--;
    res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' });
    res.end('{}');
  });
  try {
    const client = new Client({ clientInfo: { name: 'c', version: '0' } });
    await client.connect(new HttpClientTransport({ url: srv.url, standaloneStream: false }));
    const error = await failure(client.callTool({ name: 't', arguments: {} }, { signal: AbortSignal.timeout(300) }));
    assert.instance(error, RequestAbortedError);
    await sleep(1700);
    // the refused POST only: no second tools/call
    assert.is(srv.state.calls, 1);
    await client.close();
  } finally {
    await srv.close();
  }
});

test('Retry-After values and the jittered delays stay in their bounds', () => {
  assert.is(retryAfterMs('3'), 3000);
  assert.is(retryAfterMs(' 0 '), 0);
  assert.is(retryAfterMs(new Date(Date.now() + 10_000).toUTCString())! > 8000, true);
  assert.is(retryAfterMs('soon'), undefined);
  assert.is(retryAfterMs(undefined), undefined);
  assert.is(
    retryDelay(0, 1000, {}, () => 0),
    1000,
  );
  assert.is(
    retryDelay(0, 1000, {}, () => 0.999),
    1500,
  );
  assert.is(
    retryDelay(0, undefined, { initialDelayMs: 200 }, () => 0),
    100,
  );
  assert.is(
    retryDelay(3, undefined, { initialDelayMs: 200 }, () => 0.999),
    1599,
  );
  assert.is(
    retryDelay(20, undefined, { initialDelayMs: 200, maxDelayMs: 5000 }, () => 0.999),
    4998,
  );
});

const root = fileURLToPath(new URL('../..', import.meta.url));

test('a server process killed during a call over HTTP: ConnectionClosedError, as on stdio (both reply modes)', async () => {
  for (const mode of ['json', 'sse']) {
    const child = spawn(process.execPath, ['bin/mcpgen.js', 'serve', '--http', '0', '--reply', mode], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stderr!.on('data', (d: Buffer) => {
          out += d;
          const m = /listening on (\S+)/.exec(out);
          if (m) resolve(m[1]);
        });
        child.on('exit', (code) => reject(new Error(`serve exited ${code}`)));
      });
      const client = new Client({ clientInfo: { name: 'c', version: '0' } });
      await client.connect(new HttpClientTransport({ url, reconnect: { initialDelayMs: 10, maxRetries: 2 } }));
      // killed once the call surely runs at the server: its first progress notification came
      let running!: () => void;
      const started = new Promise<void>((r) => (running = r));
      const call = failure(
        client.callTool({ name: 'test_tool_with_progress', arguments: {} }, { onProgress: () => running() }),
      );
      await started;
      child.kill('SIGKILL');
      const error = await call;
      assert.instance(error, ConnectionClosedError, `${mode}: ${String(error)}`);
      await client.close().catch(() => undefined);
    } finally {
      child.kill('SIGKILL');
    }
  }
});

test.run();
