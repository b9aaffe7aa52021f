// Guide: observability (docs/guide/observability.md). With an OpenTelemetry SDK installed, every
// request is a client span on the side that sends it and a server span on the side that handles
// it, one trace across both: the trace context rides in the request's params._meta.
import assert from 'node:assert/strict';
import { context, propagation, trace, SpanKind } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { Client, Server, table, type Protocol } from '../../generated/2025-11-25/index.js';
import { ServerFeatures, createMemoryPair } from '@mcpgen/runtime';

// the application installs an SDK once, at start (here: spans kept in memory; in production an
// OTLP exporter and a BatchSpanProcessor)
const exporter = new InMemorySpanExporter();
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
propagation.setGlobalPropagator(
  new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }),
);
trace.setGlobalTracerProvider(new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] }));
const tracer = trace.getTracer('weather-app');

const features = new ServerFeatures<Protocol>();
let seenMeta: Record<string, unknown> | undefined;
features.tool({
  name: 'forecast',
  description: 'Looks the forecast up (in a span of its own)',
  handler: async ({ city }, ctx) => {
    seenMeta = ctx.meta;
    // the handler runs with the request's server span active: its own spans are children
    return tracer.startActiveSpan('lookup', (span) => {
      span.end();
      return { content: [{ type: 'text' as const, text: `${city}: sunny` }] };
    });
  },
  inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
});

const server = new Server({
  serverInfo: { name: 'weather', version: '1.0.0' },
  capabilities: features.capabilities(),
  handlers: features.handlers({ table }),
});
const client = new Client({ clientInfo: { name: 'app', version: '1.0.0' } });
const [clientEnd, serverEnd] = createMemoryPair();
await server.connect(serverEnd);
await client.connect(clientEnd);

await tracer.startActiveSpan('answer question', async (turn) => {
  await client.callTool({ name: 'forecast', arguments: { city: 'Oslo' } });
  turn.end();
});

const spans = exporter.getFinishedSpans();
const span = (name: string, kind = SpanKind.INTERNAL) => spans.find((s) => s.name === name && s.kind === kind)!;
const turn = span('answer question');
const call = span('tools/call forecast', SpanKind.CLIENT); // this side sent the request
const handled = span('tools/call forecast', SpanKind.SERVER); // the server handled it
const lookup = span('lookup');
assert.equal(call.kind, SpanKind.CLIENT);
assert.equal(call.attributes['mcp.method.name'], 'tools/call');
assert.equal(call.attributes['gen_ai.tool.name'], 'forecast');
// one trace: turn → client span → server span → the handler's span
for (const s of [call, handled, lookup]) assert.equal(s.spanContext().traceId, turn.spanContext().traceId);
assert.equal(call.parentSpanContext?.spanId, turn.spanContext().spanId);
assert.equal(handled.parentSpanContext?.spanId, call.spanContext().spanId);
assert.equal(lookup.parentSpanContext?.spanId, handled.spanContext().spanId);
// the W3C trace context the request carried, in params._meta
assert.equal(seenMeta?.traceparent, `00-${call.spanContext().traceId}-${call.spanContext().spanId}-01`);

await client.close();
await server.close();
console.log('ok observability');
