/**
 * Issue 44, finding 9 (operations): OpenTelemetry tracing. With an SDK installed on both sides,
 * a `tools/call` from this process to a real `mcpgen serve` child (its SDK loaded with
 * `node --import`, its finished spans written to a file) is one trace: the client span (kind
 * CLIENT, child of the caller's active span) carries its W3C trace context in
 * `params._meta.traceparent` (and baggage in `_meta.baggage`), and the server span (kind SERVER)
 * in the other process is its child: over stdio and over Streamable HTTP. Names and attributes
 * follow the OpenTelemetry semantic conventions for MCP; an error answer sets `error.type` and
 * status ERROR on both sides. Without an SDK a request gains nothing in `_meta`.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { context, propagation, trace, SpanKind, type Tracer } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { Client } from '../../generated/2025-11-25/index.js';
import * as draft from '../../generated/draft/index.js';
import type { JSONRPCMessage, Transport } from '../../runtime/jsonrpc/transport.js';
import { StdioClientTransport } from '../../runtime/transport/stdio.js';
import { HttpClientTransport } from '../../runtime/transport/http/session/node-client.js';
import { StatelessHttpClientTransport } from '../../runtime/transport/http/stateless/node-client.js';
import { bin, root, startHttpServeProcess } from '../runtime/tasks/serve-process.js';

type Obj = Record<string, any>;
const SDK = fileURLToPath(new URL('../fixtures/otel-sdk.mjs', import.meta.url));

/** A transport that records what its client sends. */
function recording(inner: Transport): { transport: Transport; sent: JSONRPCMessage[] } {
  const sent: JSONRPCMessage[] = [];
  const send = inner.send.bind(inner);
  inner.send = (m, o) => {
    sent.push(structuredClone(m));
    return send(m, o);
  };
  return { transport: inner, sent };
}

const stdioServe = (env: Record<string, string> = {}) =>
  new StdioClientTransport({
    command: process.execPath,
    args: [bin, 'serve', '--stdio', '--rev', '2025-11-25'],
    cwd: root,
    env,
    stderr: 'ignore',
  });

/** The environment that installs the child's SDK, writing its spans to a fresh file. */
function childSdk(): { env: Record<string, string>; spans(): Obj[]; done(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'mcpgen-otel-'));
  const file = join(dir, 'spans.jsonl');
  return {
    env: { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import=${SDK}`.trim(), MCPGEN_OTEL_SPANS: file },
    spans() {
      try {
        return readFileSync(file, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as Obj);
      } catch {
        return [];
      }
    },
    done: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** The child's span named `name`, waited for (its exporter writes it as the span ends). */
async function serverSpan(sdk: ReturnType<typeof childSdk>, name: string, id: string): Promise<Obj> {
  for (let i = 0; i < 200; i++) {
    const s = sdk.spans().find((x) => x.name === name && x.attributes['jsonrpc.request.id'] === id);
    if (s) return s;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`the server wrote no span ${name} #${id}: ${JSON.stringify(sdk.spans())}`);
}

// this process's SDK: installed by the tests that need it, removed after the file
const exporter = new InMemorySpanExporter();
let tracer: Tracer | undefined;
function installSdk(): Tracer {
  if (tracer) return tracer;
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(
    new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }),
  );
  trace.setGlobalTracerProvider(new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] }));
  tracer = trace.getTracer('test');
  return tracer;
}
test.after(() => {
  trace.disable();
  propagation.disable();
  context.disable();
});

const clientSpan = (name: string, id: string): ReadableSpan => {
  const s = exporter
    .getFinishedSpans()
    .find((x) => x.name === name && x.attributes['jsonrpc.request.id'] === id && x.kind === SpanKind.CLIENT);
  if (!s) throw new Error(`no client span ${name} #${id}: ${exporter.getFinishedSpans().map((x) => x.name)}`);
  return s;
};

/** The id the client gave the last `tools/call` it sent, as the attribute spells it. */
const lastCallId = (sent: JSONRPCMessage[]): string =>
  String((sent.filter((m) => 'method' in m && m.method === 'tools/call').at(-1) as Obj).id);

/** One traced call and one failing call, checked on both sides; returns the call's server span. */
async function tracedCall(
  transport: Transport,
  sdk: ReturnType<typeof childSdk>,
  client: Client | draft.Client = new Client({ clientInfo: { name: 'trace', version: '1' } }),
): Promise<Obj> {
  const t = installSdk();
  exporter.reset();
  const { sent } = recording(transport);
  const version = client instanceof Client ? '2025-11-25' : draft.table.protocolVersion;
  await client.connect(transport);
  try {
    const root = await t.startActiveSpan('agent turn', async (span) => {
      const bag = propagation.createBaggage({ 'user.tier': { value: 'gold' } });
      await context.with(propagation.setBaggage(context.active(), bag), () =>
        client.callTool({ name: 'echo', arguments: { text: 'hi' } }),
      );
      span.end();
      return span;
    });
    const id = lastCallId(sent);
    const wire = sent.find((m) => 'id' in m && String(m.id) === id) as Obj;
    const c = clientSpan('tools/call echo', id);
    assert.is(c.parentSpanContext?.spanId, root.spanContext().spanId, 'client span is the caller span’s child');
    assert.is(c.spanContext().traceId, root.spanContext().traceId);
    assert.is(
      wire.params._meta.traceparent,
      `00-${c.spanContext().traceId}-${c.spanContext().spanId}-01`,
      'the request carries the client span in _meta.traceparent',
    );
    assert.is(wire.params._meta.baggage, 'user.tier=gold');
    assert.equal(wire.params.arguments, { text: 'hi' });
    assert.equal(c.attributes, {
      'mcp.method.name': 'tools/call',
      'jsonrpc.request.id': id,
      'mcp.protocol.version': version,
      'gen_ai.tool.name': 'echo',
      'gen_ai.operation.name': 'execute_tool',
    });
    const s = await serverSpan(sdk, 'tools/call echo', id);
    assert.is(s.kind, SpanKind.SERVER);
    assert.is(s.traceId, c.spanContext().traceId, 'one trace across the two processes');
    assert.is(s.parentSpanId, c.spanContext().spanId, 'the server span is the client span’s child');
    assert.is(s.attributes['gen_ai.tool.name'], 'echo');
    assert.is(s.attributes['mcp.protocol.version'], version);
    assert.is(s.attributes['jsonrpc.request.id'], id, 'the server span names the id the client gave');
    assert.is(s.status.code, 0, 'unset status: the call succeeded');

    // an error answer: both spans say so, with the JSON-RPC code
    await (client as Client).request('tools/call', { name: 'no_such_tool', arguments: {} }).then(
      () => assert.unreachable('an unknown tool was called'),
      () => undefined,
    );
    const failedId = lastCallId(sent);
    const cf = clientSpan('tools/call no_such_tool', failedId);
    const sf = await serverSpan(sdk, 'tools/call no_such_tool', failedId);
    assert.is(sf.parentSpanId, cf.spanContext().spanId);
    assert.is(cf.status.code, 2, 'client span status ERROR');
    assert.is(sf.status.code, 2, 'server span status ERROR');
    assert.match(String(cf.attributes['error.type']), /^-32\d{3}$/);
    assert.is(sf.attributes['error.type'], cf.attributes['error.type']);
    assert.is(sf.attributes['rpc.response.status_code'], cf.attributes['error.type']);
    assert.is(sf.status.message, cf.status.message);
    return s;
  } finally {
    await client.close();
  }
}

test('without an OpenTelemetry SDK a request gains nothing in _meta', async () => {
  assert.is(tracer, undefined, 'runs before the SDK is installed');
  const { transport, sent } = recording(stdioServe());
  const client = new Client({ clientInfo: { name: 'trace', version: '1' } });
  await client.connect(transport);
  try {
    const r = await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
    assert.equal((r.content[0] as Obj).text, 'hi');
    const call = sent.find((m) => 'method' in m && m.method === 'tools/call') as Obj;
    assert.equal(call.params, { name: 'echo', arguments: { text: 'hi' } });
    for (const m of sent) assert.not.ok('params' in m && (m.params as Obj)?._meta?.traceparent, JSON.stringify(m));
  } finally {
    await client.close();
  }
});

test('stdio: one trace across the client span here and the server span in the child', async () => {
  const sdk = childSdk();
  try {
    const s = await tracedCall(stdioServe(sdk.env), sdk);
    assert.is(s.attributes['mcp.session.id'], undefined, 'stdio has no session id');
  } finally {
    sdk.done();
  }
});

test('Streamable HTTP: one trace across the processes; the server spans name the session', async () => {
  const sdk = childSdk();
  const served = await startHttpServeProcess(['--rev', '2025-11-25'], { ...process.env, ...sdk.env });
  try {
    const transport = new HttpClientTransport({ url: served.url });
    const s = await tracedCall(transport, sdk);
    assert.match(String(s.attributes['mcp.session.id']), /^[\x21-\x7e]+$/);
    const init = sdk.spans().find((x) => x.name === 'initialize');
    assert.ok(init, 'initialize has a server span');
    assert.is(init.attributes['mcp.session.id'], s.attributes['mcp.session.id'], 'initialize opened that session');
  } finally {
    await served.stop();
    sdk.done();
  }
});

test('stateless HTTP (draft, dual-era endpoint): one trace; the server span names the client’s request id', async () => {
  const sdk = childSdk();
  const served = await startHttpServeProcess(['--rev', 'draft'], { ...process.env, ...sdk.env });
  try {
    const transport = new StatelessHttpClientTransport({ url: served.url });
    const client = new draft.Client({ clientInfo: { name: 'trace', version: '1' } });
    const s = await tracedCall(transport, sdk, client);
    assert.is(s.attributes['mcp.session.id'], undefined, 'no sessions in the stateless era');
  } finally {
    await served.stop();
    sdk.done();
  }
});

test.run();
