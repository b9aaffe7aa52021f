/**
 * Tasks between the generated Client (HttpClientTransport) and the generated Server (one per
 * session on createStreamableHttpHandler) over real Streamable HTTP sockets, in each reply mode:
 * - a task that elicits while the requestor waits in tasks/result: the elicitation goes out
 *   with the newest tasks/result request of the task (its SSE stream when the reply mode
 *   allows one, else the standalone GET stream), and the task completes with the answer;
 * - the server as requestor: sampling/createMessage as a task on the generated Client as
 *   receiver (handle updates, result, cancel aborting the client's handler);
 * - two clients never see each other's tasks.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, Server } from '../../../generated/2025-11-25/index.js';
import type { RequestContext } from '../../../runtime/engine/peer.js';
import { attachTaskReceiver } from '../../../runtime/tasks/receiver.js';
import { callWithTask } from '../../../runtime/tasks/requestor.js';
import { InMemoryTaskStore } from '../../../runtime/stores/tasks.js';
import {
  type HttpServerSession,
  type StreamableHttpHandler,
  createStreamableHttpHandler,
} from '../../../runtime/transport/http/session/server.js';
import { HttpClientTransport } from '../../../runtime/transport/http/session/node-client.js';
import type { JSONRPCMessage } from '../../../runtime/jsonrpc/transport.js';
import { RELATED, rejection, sleep, work } from './support.js';
import { SESSION_TABLES } from '../transport/http/tables.js';

type Obj = Record<string, any>;
const textOf = (r: unknown) =>
  ((r as { content?: { text?: string }[] }).content ?? []).map((c) => c.text ?? '').join('');

for (const reply of ['auto', 'json', 'sse'] as const) {
  const store = new InMemoryTaskStore();
  const servers = new Map<string, Server>();
  const transports = new Map<string, HttpServerSession>();
  /** Tools called with `gate: key` wait until the test calls gates.get(key)(). */
  const gates = new Map<string, () => void>();
  /** What each session's server sent, with the request it went with. */
  const sent: { sessionId: string; message: JSONRPCMessage; relatedRequestId?: string | number | bigint }[] = [];
  /** Requests each session's server received. */
  const received: { sessionId: string; message: JSONRPCMessage }[] = [];
  let handler: StreamableHttpHandler;
  let http: HttpServer;
  let url = '';

  const serverFor = () => {
    const server = new Server({
      serverInfo: { name: 'mcpgen-tasks-http', version: '1' },
      capabilities: { tools: {} },
      handlers: {
        'tools/list': () => ({
          tools: [
            { name: 'sleep', inputSchema: { type: 'object' } },
            { name: 'asks_later', inputSchema: { type: 'object' } },
          ],
        }),
        'tools/call': async (p, ctx: RequestContext) => {
          const args = (p.arguments ?? {}) as Obj;
          await work(Number(args.ms ?? 0), ctx.signal);
          if (typeof args.gate === 'string') await new Promise<void>((r) => gates.set(args.gate, r));
          if (p.name !== 'asks_later') return { content: [{ type: 'text', text: `slept ${args.ms}` }] };
          const message = args.which ? 'Which task?' : 'Your name?';
          const r = await ctx.sendRequest<Obj>('elicitation/create', {
            mode: 'form',
            message,
            requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
          });
          return { content: [{ type: 'text', text: `hello ${r.content?.name}` }] };
        },
      },
    });
    attachTaskReceiver(server, { store, tools: { sleep: 'optional', asks_later: 'optional' }, pollInterval: 20 });
    return server;
  };

  const connect = async (receiver = false) => {
    const client = new Client({
      clientInfo: { name: 'c', version: '0' },
      capabilities: { sampling: {}, elicitation: { form: {} } },
      handlers: {
        'elicitation/create': async (p) => {
          const related = (p._meta as Obj | undefined)?.[RELATED]?.taskId;
          return {
            action: 'accept',
            content: { name: p.message === 'Which task?' ? `of ${related}` : `Ada (${p.message})` },
          };
        },
        'sampling/createMessage': async (p, ctx: RequestContext) => {
          const text = (p.messages[0]!.content as { text?: string }).text ?? '';
          await work(text === 'hold' ? 600_000 : 80, ctx.signal).catch((e) => (aborts.push(text), Promise.reject(e)));
          return { role: 'assistant', content: { type: 'text', text: `client says ${text}` }, model: 'm' };
        },
      },
    });
    const aborts: string[] = [];
    if (receiver) attachTaskReceiver(client, { pollInterval: 20 });
    /** Each POST of a request: its method and the reply's Content-Type. */
    const replies: { method: string; type: string | null }[] = [];
    /** Last-Event-ID of each GET that resumed a stream. */
    const resumed: string[] = [];
    const fetch: typeof globalThis.fetch = async (input, init) => {
      const last = init?.method === 'GET' ? new Headers(init.headers).get('last-event-id') : null;
      if (last !== null) resumed.push(last);
      const res = await globalThis.fetch(input, init);
      const body =
        init?.method === 'POST' && typeof init.body === 'string'
          ? (JSON.parse(init.body) as JSONRPCMessage)
          : undefined;
      if (typeof body?.method === 'string' && body.id !== undefined)
        replies.push({ method: body.method, type: res.headers.get('content-type') });
      return res;
    };
    const transport = new HttpClientTransport({ url, fetch });
    await client.connect(transport);
    const sessionId = transport.sessionId!;
    return { client, sessionId, server: servers.get(sessionId)!, aborts, replies, resumed };
  };

  const s = suite(`tasks over HTTP: generated Client ↔ generated Server (${reply} replies)`);

  s.before(async () => {
    handler = createStreamableHttpHandler({
      tables: SESSION_TABLES,
      replyMode: reply,
      onSession: async (transport, info) => {
        const send = transport.send.bind(transport);
        transport.send = (message, options) => (
          sent.push({ sessionId: info.sessionId, message, relatedRequestId: options?.relatedRequestId }),
          send(message, options)
        );
        const start = transport.start.bind(transport);
        transport.start = (events) =>
          start({
            ...events,
            onMessage: (m, i) => (received.push({ sessionId: info.sessionId, message: m }), events.onMessage(m, i)),
          });
        const server = serverFor();
        servers.set(info.sessionId, server);
        transports.set(info.sessionId, transport);
        await server.connect(transport);
      },
    });
    http = createServer(handler);
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  });
  s.after(async () => {
    await handler.close();
    const closed = new Promise<void>((r) => http.close(() => r()));
    http.closeAllConnections();
    await closed;
  });

  s(
    'a task elicits while the client waits in tasks/result: the request goes with that tasks/result; the result carries the answer',
    async () => {
      const { client, sessionId, replies } = await connect();
      try {
        const handle = await callWithTask(
          client,
          'tools/call',
          { name: 'asks_later', arguments: { ms: 150 } },
          { ttl: 60_000 },
        );
        const result = await handle.result();
        assert.is(textOf(result), 'hello Ada (Your name?)');
        assert.equal((result._meta as Obj)[RELATED], { taskId: handle.taskId });
        const asked = sent.find((x) => x.sessionId === sessionId && x.message.method === 'elicitation/create');
        assert.ok(asked, 'the elicitation was sent');
        assert.equal((asked!.message.params as Obj)._meta[RELATED], { taskId: handle.taskId });
        const waits = received
          .filter((x) => x.sessionId === sessionId && x.message.method === 'tasks/result')
          .map((x) => x.message.id);
        assert.ok(
          waits.includes(asked!.relatedRequestId as never),
          `related to a tasks/result (${String(asked!.relatedRequestId)} in ${waits.join()})`,
        );
        assert.is((await handle.status()).status, 'completed');
        const types = (m: string) => [...new Set(replies.filter((r) => r.method === m).map((r) => r.type))];
        // tasks/get is never upgraded to SSE unless every reply is (tasks.mdx: servers SHOULD NOT upgrade on tasks/get)
        assert.equal(types('tasks/get'), [reply === 'sse' ? 'text/event-stream' : 'application/json']);
        // the waiting tasks/result carried the elicitation on its SSE stream, except with JSON replies
        assert.ok(
          types('tasks/result').includes(reply === 'json' ? 'application/json' : 'text/event-stream'),
          types('tasks/result').join(),
        );
      } finally {
        await client.close();
      }
    },
  );

  s(
    "server → client: sampling/createMessage as a task on the generated Client, then one cancelled (the client's handler aborted)",
    async () => {
      const { client, server, aborts } = await connect(true);
      try {
        assert.equal(server.client!.capabilities.tasks, {
          requests: { sampling: { createMessage: {} }, elicitation: { create: {} } },
          list: {},
          cancel: {},
        });
        const handle = await callWithTask(
          server,
          'sampling/createMessage',
          { messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 5 },
          { ttl: 30_000 },
        );
        const statuses: string[] = [];
        for await (const t of handle.updates()) statuses.push(t.status);
        assert.equal([statuses[0], statuses[statuses.length - 1]], ['working', 'completed']);
        const result = await handle.result();
        assert.equal(result.content, { type: 'text', text: 'client says hi' });
        assert.equal((result._meta as Obj)[RELATED], { taskId: handle.taskId });

        const held = await callWithTask(
          server,
          'sampling/createMessage',
          { messages: [{ role: 'user', content: { type: 'text', text: 'hold' } }], maxTokens: 5 },
          { ttl: 30_000 },
        );
        assert.ok((await server.listTasks()).tasks.some((t) => t.taskId === held.taskId && t.status === 'working'));
        assert.is((await held.cancel()).status, 'cancelled');
        assert.is((await rejection(held.result())).code, -32602);
        for (let i = 0; i < 500 && aborts.length === 0; i++) await sleep(20);
        assert.equal(aborts, ['hold']);
        assert.equal(
          (await server.listTasks()).tasks.map((t) => [t.taskId, t.status]),
          [
            [handle.taskId, 'completed'],
            [held.taskId, 'cancelled'],
          ],
        );
      } finally {
        await client.close();
      }
    },
  );

  // closing a stream the server has not turned into SSE yet (auto) or never will (json) is not a thing a server does
  if (reply === 'sse') {
    s(
      'the server closes the tasks/result SSE stream mid-task: the client resumes it (Last-Event-ID), answers the elicitation sent there, gets the result',
      async () => {
        const { client, sessionId, resumed } = await connect();
        try {
          const handle = await callWithTask(
            client,
            'tools/call',
            { name: 'asks_later', arguments: { gate: 'resume' } },
            { ttl: 60_000 },
          );
          const result = handle.result();
          let wait: JSONRPCMessage | undefined;
          for (let i = 0; i < 1000 && !wait; i++) {
            wait = received.find((x) => x.sessionId === sessionId && x.message.method === 'tasks/result')?.message;
            if (!wait) await sleep(20);
          }
          assert.ok(wait, 'tasks/result arrived');
          for (let i = 0; i < 1000 && !gates.has('resume'); i++) await sleep(20);
          await transports.get(sessionId)!.closeSseConnection(wait!.id as number);
          gates.get('resume')!();
          assert.is(textOf(await result), 'hello Ada (Your name?)');
          assert.ok(resumed.length >= 1, 'the client resumed with Last-Event-ID');
          const asked = sent.find((x) => x.sessionId === sessionId && x.message.method === 'elicitation/create');
          assert.is(asked!.relatedRequestId, wait!.id);
        } finally {
          await client.close();
        }
      },
    );
  }

  s(
    'eight tasks at once on one session, each eliciting: every elicitation names its own task, every result is its own',
    async () => {
      const { client, sessionId } = await connect();
      try {
        const handles = await Promise.all(
          Array.from({ length: 8 }, (_, i) =>
            callWithTask(
              client,
              'tools/call',
              { name: 'asks_later', arguments: { ms: 20 * i, which: true } },
              { ttl: 60_000 },
            ),
          ),
        );
        assert.is(new Set(handles.map((h) => h.taskId)).size, 8);
        const results = await Promise.all(handles.map((h) => h.result()));
        assert.equal(
          results.map(textOf),
          handles.map((h) => `hello of ${h.taskId}`),
        );
        // each elicitation went with a tasks/result of its own task, when it went with one
        const waits = new Map(
          received
            .filter((x) => x.sessionId === sessionId && x.message.method === 'tasks/result')
            .map((x) => [x.message.id, (x.message.params as Obj).taskId]),
        );
        const asked = sent.filter((x) => x.sessionId === sessionId && x.message.method === 'elicitation/create');
        assert.is(asked.length, 8);
        for (const x of asked) {
          if (x.relatedRequestId !== undefined)
            assert.is(waits.get(x.relatedRequestId), (x.message.params as Obj)._meta[RELATED].taskId);
        }
      } finally {
        await client.close();
      }
    },
  );

  s(
    'twelve tasks waiting in tasks/result at once: every result arrives, and Node reports no listener leak on the transport',
    async () => {
      const { client } = await connect();
      const warnings: string[] = [];
      const onWarning = (w: Error) => void warnings.push(`${w.name}: ${w.message}`);
      process.on('warning', onWarning);
      try {
        const handles = await Promise.all(
          Array.from({ length: 12 }, (_, i) =>
            callWithTask(client, 'tools/call', { name: 'sleep', arguments: { ms: 200 + i } }, { ttl: 60_000 }),
          ),
        );
        const results = await Promise.all(handles.map((h) => h.result()));
        assert.equal(
          results.map(textOf),
          handles.map((_, i) => `slept ${200 + i}`),
        );
        await new Promise((r) => setImmediate(r));
        assert.equal(
          warnings.filter((w) => w.startsWith('MaxListenersExceededWarning')),
          [],
        );
      } finally {
        process.off('warning', onWarning);
        await client.close();
      }
    },
  );

  s("two clients: neither gets, lists, waits on or cancels the other's task", async () => {
    const one = await connect();
    const two = await connect();
    try {
      const h1 = await callWithTask(
        one.client,
        'tools/call',
        { name: 'sleep', arguments: { ms: 600_000 } },
        { ttl: 60_000 },
      );
      for (const p of [
        two.client.getTask({ taskId: h1.taskId }),
        two.client.getTaskPayload({ taskId: h1.taskId }),
        two.client.cancelTask({ taskId: h1.taskId }),
      ]) {
        const e = await rejection(p);
        assert.equal([e.code, e.message], [-32602, 'Failed to retrieve task: Task not found']);
      }
      assert.equal((await two.client.listTasks()).tasks, []);
      assert.equal(
        (await one.client.listTasks()).tasks.map((t) => t.taskId),
        [h1.taskId],
      );
      assert.is((await h1.cancel()).status, 'cancelled');
    } finally {
      await one.client.close();
      await two.client.close();
    }
  });

  s.run();
}
