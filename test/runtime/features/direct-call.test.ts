/**
 * tools/call through the direct form of ServerFeatures' handler (DIRECT_CALL: the engine's fast
 * path, for a tool whose handler declares exactly one parameter, a request outside a batch,
 * without transport facts, while nothing records spans) answers and logs exactly as the general
 * path (the handler called with its context) does: the same tools, once with `(a) => …` and
 * once with `(a, ctx) => …`, on two servers over the memory pair with the generated 2025-11-25
 * Client, for every outcome (a result, arguments that fail the inputSchema, a thrown Error or
 * RpcError, a value a tool cannot answer with, structuredContent missing or failing the
 * outputSchema, a result failing the protocol schema; sync and async), and through the
 * reference server's task routing.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Client, Server, serverTable } from '../../../generated/2025-11-25/index.js';
import { createMemoryPair } from '../../../runtime/transport/memory.js';
import { RpcError } from '../../../runtime/jsonrpc/errors.js';
import { DIRECT_CALL, type RequestContext, type RequestHandler } from '../../../runtime/engine/peer.js';
import { ServerFeatures, type ToolDefinition } from '../../../runtime/features/server-features.js';
import { type ServerClass, referenceDefinition } from '../../../reference/server.js';
import { recordingLogger } from '../support.js';

type Body = (a: Record<string, unknown>) => unknown;
const text = (t: string) => ({ content: [{ type: 'text', text: t }] });
const OUTPUT = { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] };
const INPUT = { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] };

/** Each tool: its body, schemas and the arguments it is called with. */
const TOOLS: Array<{ name: string; body: Body; args: Record<string, unknown>; input?: object; output?: object }> = [
  { name: 'ok', body: (a) => text(String(a.text)), args: { text: 'hi' }, input: INPUT },
  { name: 'string', body: () => 'plain', args: {} },
  { name: 'bad_args', body: () => text('unreached'), args: { text: 1 }, input: INPUT },
  {
    name: 'defaults',
    body: (a) => text(String(a.n)),
    args: {},
    input: { type: 'object', properties: { n: { type: 'number', default: 7 } } },
  },
  {
    name: 'throws',
    body: () => {
      throw new Error('boom');
    },
    args: {},
  },
  {
    name: 'throws_rpc',
    body: () => {
      throw new RpcError(-32000, 'refused', { why: 'test' });
    },
    args: {},
  },
  { name: 'number', body: () => 42, args: {} },
  { name: 'no_structured', body: () => text('x'), args: {}, output: OUTPUT },
  { name: 'bad_structured', body: () => ({ ...text('x'), structuredContent: { n: 'x' } }), args: {}, output: OUTPUT },
  { name: 'structured', body: () => ({ ...text('x'), structuredContent: { n: 1 } }), args: {}, output: OUTPUT },
  { name: 'bad_result', body: () => ({ content: [{ type: 'txt', text: 'a' }] }), args: {} },
  { name: 'async_ok', body: async (a) => text(String(a.text)), args: { text: 'later' }, input: INPUT },
  {
    name: 'async_throws',
    body: async () => {
      throw new Error('later boom');
    },
    args: {},
  },
  { name: 'async_bad_result', body: async () => ({ content: [{ type: 'txt', text: 'a' }] }), args: {} },
];

/** A server of TOOLS whose handlers take the context (`withCtx`) or only the arguments. */
async function serve(withCtx: boolean) {
  const logger = recordingLogger();
  const f = new ServerFeatures({ logger });
  for (const t of TOOLS) {
    const handler = withCtx
      ? (a: Record<string, unknown>, _ctx: RequestContext) => t.body(a)
      : (a: Record<string, unknown>) => t.body(a);
    f.tool({ name: t.name, inputSchema: t.input, outputSchema: t.output, handler } as ToolDefinition as never);
  }
  // which path ran: a handler called with its context gets two arguments
  f.tool({
    name: 'arity',
    handler: function (this: unknown, _a: unknown) {
      // biome-ignore lint/complexity/noArguments: what the handler was called with is the point
      return text(String(arguments.length));
    },
  });
  // a wrapper that passes on what it is called with declares no parameter: it reads the context
  const inner = (_a: unknown, ctx?: RequestContext) => text(ctx ? `ctx ${typeof ctx.signal}` : 'no ctx');
  f.tool({ name: 'wrapped', handler: (...args: [unknown, RequestContext]) => inner(...args) });
  const handlers = f.handlers() as Record<string, RequestHandler>;
  const [a, b] = createMemoryPair();
  await new Server({
    serverInfo: { name: 's', version: '1' },
    capabilities: f.capabilities(),
    handlers,
    logger,
  }).connect(b);
  const client = new Client({ clientInfo: { name: 'c', version: '1' } });
  await client.connect(a);
  return { client, logger, handlers };
}

/** The outcome of a call: its result, or its error's code, message and data. */
const outcome = (p: Promise<unknown>) =>
  p.then(
    (result) => ({ result }),
    (e: unknown) =>
      e instanceof RpcError ? { code: e.code, message: e.message, data: e.data } : { thrown: String(e) },
  );

test('every outcome of a tool is the same through the direct form as through the handler with its context', async () => {
  const direct = await serve(false);
  const general = await serve(true);
  for (const t of TOOLS) {
    // each tool's first call compiles its schemas on the general path; the second may go direct
    for (let i = 0; i < 2; i++) {
      const d = await outcome(direct.client.callTool({ name: t.name, arguments: t.args }));
      const g = await outcome(general.client.callTool({ name: t.name, arguments: t.args }));
      assert.equal(d, g, `${t.name}, call ${i + 1}`);
    }
  }
  const unknown = await outcome(direct.client.callTool({ name: 'nope', arguments: {} }));
  assert.equal(unknown, await outcome(general.client.callTool({ name: 'nope', arguments: {} })));
  assert.equal((unknown as { code: number }).code, -32602);
  assert.equal(direct.logger.entries, general.logger.entries);
  assert.ok(direct.logger.entries.length >= 8, 'the failures were logged');
  await direct.client.close();
  await general.client.close();
});

test('a tool whose handler declares exactly one parameter is answered through the direct form (no context); a rest-parameter wrapper keeps its context', async () => {
  const { client, handlers } = await serve(false);
  assert.type((handlers['tools/call'] as { [DIRECT_CALL]?: unknown })[DIRECT_CALL], 'function');
  const first = await client.callTool({ name: 'arity', arguments: {} });
  // the first call compiles the tool's schemas: the general path, the handler gets its context
  assert.equal(first.content, [{ type: 'text', text: '2' }]);
  const next = await client.callTool({ name: 'arity', arguments: {} });
  assert.equal(next.content, [{ type: 'text', text: '1' }]);
  for (let i = 0; i < 2; i++) {
    const wrapped = await client.callTool({ name: 'wrapped', arguments: {} });
    assert.equal(wrapped.content, [{ type: 'text', text: 'ctx object' }], `call ${i + 1}`);
  }
  await client.close();
});

test('the reference server routes a plain tools/call to the direct form, a task-augmented one to its receiver', async () => {
  const d = referenceDefinition(Server as unknown as ServerClass, { logger: {} });
  const handlers = d.options.handlers as Record<string, RequestHandler>;
  const direct = (handlers['tools/call'] as { [DIRECT_CALL]?: (p: unknown, t: unknown) => unknown })[DIRECT_CALL];
  assert.type(direct, 'function');
  const [a, b] = createMemoryPair();
  await d.createSession().connect(b);
  const client = new Client({ clientInfo: { name: 'c', version: '1' } });
  await client.connect(a);
  assert.equal((await client.callTool({ name: 'echo', arguments: { text: 'x' } })).content, [
    { type: 'text', text: 'x' },
  ]);
  // compiled now: a plain call is answered directly; a task-augmented one, or a tool that runs
  // only as a task, is left to the handler (its receiver needs the session)
  const table = serverTable;
  assert.equal(direct!({ name: 'echo', arguments: { text: 'y' } }, table), text('y'));
  const NOT = direct!({ name: 'echo', arguments: { text: 'y' }, task: {} }, table);
  assert.is(typeof NOT, 'symbol');
  assert.is(direct!({ name: 'batch_job', arguments: {} }, table), NOT);
  await client.close();
});

test.run();
