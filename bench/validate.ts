/**
 * Validations per second, in one run, of:
 * - compact: the generated validators of generated/2025-11-25 in their default form (schema data
 *   compiled into closures by runtime/protocol/compact.ts), CallToolRequest, CallToolResult and
 *   ListToolsResult;
 * - ajv: the same validators in the ajv form (`--validators ajv`: the code ajv standalone writes,
 *   compiled here in memory from the same model with the runtime's formats);
 * - zod: @modelcontextprotocol/sdk's CallToolRequestSchema / CallToolResultSchema (`safeParse`);
 * - bare: a hand-written typeof walk over the same fields (no format checks), and JSON.parse of
 *   the same message's text (what every inbound message costs before any validation).
 * Payloads: a tools/call request, and a CallToolResult with a text block, an image block holding
 * a real PNG of about 48 KiB (about 64 KiB of base64) and an embedded text resource.
 * The `byte` format check alone is measured beside zod's (atob), since it dominates the result,
 * and the result once more with a 4-byte image, to show the rest of the work.
 * Output: `name: value unit` per figure, `name: N.NNx` per comparison (higher is better for us;
 * `compact/ajv` below 1 means compact is slower). Also the time of each form's first call
 * (compact compiles on first use; ajv's is the in-memory compile, not what a generated file costs).
 * `npm run bench:validate [-- --quick]`.
 */
import { deflateSync } from 'node:zlib';
import { CallToolRequestSchema, CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { readFileSync } from 'node:fs';
import * as V from '../generated/2025-11-25/validators.gen.js';
import { ajvValidators } from '../generator/emit/validators.js';
import type { ProtocolModel } from '../generator/model.js';
import { formats, isBase64 } from '../runtime/protocol/formats.js';
import { median, ratio } from './measure.js';

const quick = process.argv.includes('--quick');
const ROUND_MS = quick ? 150 : 400;
const ROUNDS = quick ? 3 : 7;

// ---- a real PNG: 119×119 RGBA with a noisy gradient, so deflate leaves it near 48 KiB ----

function crc32(buf: Buffer): number {
  let c = ~0;
  for (let i = 0; i < buf.length; i++) {
    c ^= buf[i];
    for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
  }
  return ~c >>> 0;
}
function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}
function png(size: number): Buffer {
  let seed = 0x2545f491;
  const rand = () => ((seed = (seed * 1103515245 + 12345) >>> 0) >>> 16) & 0xff;
  const rows: Buffer[] = [];
  for (let y = 0; y < size; y++) {
    const row = Buffer.alloc(1 + size * 4);
    for (let x = 0; x < size; x++) {
      row[1 + x * 4] = (x * 2 + rand()) & 0xff;
      row[2 + x * 4] = (y * 2 + rand()) & 0xff;
      row[3 + x * 4] = rand();
      row[4 + x * 4] = 0xff;
    }
    rows.push(row);
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr.set([8, 6, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(Buffer.concat(rows), { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const image = png(119).toString('base64');

const request = {
  jsonrpc: '2.0',
  id: 42,
  method: 'tools/call',
  params: {
    name: 'get_weather',
    arguments: { city: 'Paris', units: 'metric', days: 3 },
    _meta: { progressToken: 'progress-42' },
  },
};
const result = {
  content: [
    { type: 'text', text: 'Paris: 18°C, partly cloudy; rain likely after 16:00.' },
    { type: 'image', data: image, mimeType: 'image/png' },
    {
      type: 'resource',
      resource: { uri: 'file:///reports/paris.md', mimeType: 'text/markdown', text: '# Paris\n\n18°C, partly cloudy.' },
    },
  ],
  structuredContent: { temperature: 18, conditions: 'partly cloudy' },
  isError: false,
};

// ---- the bare limit: the same fields checked by hand, no formats ----

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
function bareRequest(m: unknown): boolean {
  if (!isObj(m) || m.jsonrpc !== '2.0' || m.method !== 'tools/call') return false;
  if (typeof m.id !== 'string' && typeof m.id !== 'number') return false;
  const p = m.params;
  if (!isObj(p) || typeof p.name !== 'string') return false;
  if (p.arguments !== undefined && !isObj(p.arguments)) return false;
  if (p._meta !== undefined) {
    if (!isObj(p._meta)) return false;
    const t = p._meta.progressToken;
    if (t !== undefined && typeof t !== 'string' && typeof t !== 'number') return false;
  }
  return true;
}
function bareResult(r: unknown): boolean {
  if (!isObj(r) || !Array.isArray(r.content)) return false;
  for (const b of r.content) {
    if (!isObj(b) || typeof b.type !== 'string') return false;
    switch (b.type) {
      case 'text':
        if (typeof b.text !== 'string') return false;
        break;
      case 'image':
      case 'audio':
        if (typeof b.data !== 'string' || typeof b.mimeType !== 'string') return false;
        break;
      case 'resource': {
        const res = b.resource;
        if (!isObj(res) || typeof res.uri !== 'string') return false;
        if (typeof res.text !== 'string' && typeof res.blob !== 'string') return false;
        break;
      }
      case 'resource_link':
        if (typeof b.uri !== 'string' || typeof b.name !== 'string') return false;
        break;
      default:
        return false;
    }
  }
  if (r.structuredContent !== undefined && !isObj(r.structuredContent)) return false;
  if (r.isError !== undefined && typeof r.isError !== 'boolean') return false;
  return true;
}

// ---- measurement ----

type Check = () => boolean;
interface Candidate {
  name: string;
  run: Check;
}

/** Each candidate must accept the payload and reject a broken copy before it is timed. */
function sane(name: string, ok: Check, broken: Check): void {
  if (!ok()) throw new Error(`${name}: rejects the valid payload`);
  if (broken()) throw new Error(`${name}: accepts a broken payload`);
}

/** Runs per second, the median over rounds; candidates are interleaved round by round. */
function measure(candidates: Candidate[]): Map<string, number> {
  const rates = new Map<string, number[]>(candidates.map((c) => [c.name, []]));
  let sink = 0;
  for (const c of candidates) for (let i = 0; i < 2000; i++) sink += +c.run();
  for (let round = 0; round < ROUNDS; round++) {
    for (const c of candidates) {
      let n = 0;
      const t0 = performance.now();
      let t = t0;
      while (t - t0 < ROUND_MS) {
        for (let i = 0; i < 64; i++) sink += +c.run();
        n += 64;
        t = performance.now();
      }
      rates.get(c.name)!.push((n * 1000) / (t - t0));
    }
  }
  if (sink < 0) console.log(sink);
  return new Map([...rates].map(([k, xs]) => [k, median(xs)]));
}

const fmt = (n: number) => (n >= 100 ? Math.round(n).toString() : n.toFixed(1));
const print = (name: string, value: number, unit: string) => console.log(`${name}: ${fmt(value)} ${unit}`);

const model = JSON.parse(
  readFileSync(new URL('../generated/2025-11-25/model.json', import.meta.url), 'utf8'),
) as ProtocolModel;
if (
  !/compactValidators/.test(readFileSync(new URL('../generated/2025-11-25/validators.gen.js', import.meta.url), 'utf8'))
) {
  throw new Error('generated/2025-11-25/validators.gen.js is not in the compact form: run `npm run generate`');
}
const v = V as unknown as Record<string, (d: unknown) => boolean>;
const firstCall = (f: () => unknown) => {
  const t0 = performance.now();
  f();
  return performance.now() - t0;
};
const compactFirst = firstCall(() => v.CallToolResult({ content: [] }));
const ajvBuilt = ajvValidators(model, undefined, undefined, formats);
const a: Record<string, (d: unknown) => boolean> = {};
const ajvFirst = firstCall(() => {
  for (const n of ['CallToolRequest', 'CallToolResult', 'ListToolsResult'])
    a[n] = ajvBuilt.ajv.getSchema(ajvBuilt.exports[n]!) as unknown as (d: unknown) => boolean;
  a.CallToolResult!({ content: [] });
});
const tools = {
  tools: Array.from({ length: 40 }, (_, i) => ({
    name: `tool_${i}`,
    title: `Tool ${i}`,
    description: 'Does one thing well, with a description of a realistic length for a tool list.',
    inputSchema: {
      type: 'object',
      properties: { q: { type: 'string' }, n: { type: 'integer', minimum: 1 } },
      required: ['q'],
    },
    annotations: { readOnlyHint: i % 2 === 0, openWorldHint: false },
  })),
  nextCursor: 'page-2',
};
const requestText = JSON.stringify(request);
const resultText = JSON.stringify(result);
const brokenRequest = { ...request, params: { ...request.params, name: 7 } };
const brokenResult = {
  ...result,
  content: [result.content[0], { ...result.content[1], data: `${image.slice(0, -8)}!!!!====` }, result.content[2]],
};

sane(
  'ours request',
  () => v.CallToolRequest(request),
  () => v.CallToolRequest(brokenRequest),
);
sane(
  'ajv request',
  () => a.CallToolRequest!(request),
  () => a.CallToolRequest!(brokenRequest),
);
sane(
  'ajv result',
  () => a.CallToolResult!(result),
  () => a.CallToolResult!(brokenResult),
);
sane(
  'ours tools',
  () => v.ListToolsResult(tools),
  () => v.ListToolsResult({ tools: [{ name: 1 }] }),
);
sane(
  'ajv tools',
  () => a.ListToolsResult!(tools),
  () => a.ListToolsResult!({ tools: [{ name: 1 }] }),
);
sane(
  'zod request',
  () => CallToolRequestSchema.safeParse(request).success,
  () => CallToolRequestSchema.safeParse(brokenRequest).success,
);
sane(
  'bare request',
  () => bareRequest(request),
  () => bareRequest(brokenRequest),
);
sane(
  'ours result',
  () => v.CallToolResult(result),
  () => v.CallToolResult(brokenResult),
);
sane(
  'zod result',
  () => CallToolResultSchema.safeParse(result).success,
  () => CallToolResultSchema.safeParse(brokenResult).success,
);

console.log(
  `# validators: generated/2025-11-25 compact (ours) and ajv form vs @modelcontextprotocol/sdk 1.32.2 (zod); node ${process.version}`,
);
console.log(
  `# payloads: tools/call request ${requestText.length} B; CallToolResult ${resultText.length} B (image ${image.length} B of base64)`,
);

const req = measure([
  { name: 'ours', run: () => v.CallToolRequest(request) },
  { name: 'ajv', run: () => a.CallToolRequest!(request) },
  { name: 'zod', run: () => CallToolRequestSchema.safeParse(request).success },
  { name: 'bare-typeof', run: () => bareRequest(request) },
  { name: 'json-parse', run: () => JSON.parse(requestText) !== null },
]);
print('validate.request.ours', req.get('ours')!, 'validations/s');
print('validate.request.ajv', req.get('ajv')!, 'validations/s');
print('validate.request.zod', req.get('zod')!, 'validations/s');
print('validate.request.bare-typeof', req.get('bare-typeof')!, 'validations/s');
print('validate.request.json-parse', req.get('json-parse')!, 'parses/s');

const res = measure([
  { name: 'ours', run: () => v.CallToolResult(result) },
  { name: 'ajv', run: () => a.CallToolResult!(result) },
  { name: 'zod', run: () => CallToolResultSchema.safeParse(result).success },
  { name: 'bare-typeof', run: () => bareResult(result) },
  { name: 'json-parse', run: () => JSON.parse(resultText) !== null },
]);
print('validate.result.ours', res.get('ours')!, 'validations/s');
print('validate.result.ajv', res.get('ajv')!, 'validations/s');
print('validate.result.zod', res.get('zod')!, 'validations/s');
print('validate.result.bare-typeof', res.get('bare-typeof')!, 'validations/s');
print('validate.result.json-parse', res.get('json-parse')!, 'parses/s');

// the same result with a 4-byte image: what is left when no 64 KiB string has to be scanned
const small = { ...result, content: [result.content[0], { ...result.content[1], data: 'iVBO' }, result.content[2]] };
const sm = measure([
  { name: 'ours', run: () => v.CallToolResult(small) },
  { name: 'ajv', run: () => a.CallToolResult!(small) },
  { name: 'zod', run: () => CallToolResultSchema.safeParse(small).success },
]);
print('validate.result-4B-image.ours', sm.get('ours')!, 'validations/s');
print('validate.result-4B-image.ajv', sm.get('ajv')!, 'validations/s');
print('validate.result-4B-image.zod', sm.get('zod')!, 'validations/s');
const tl = measure([
  { name: 'ours', run: () => v.ListToolsResult(tools) },
  { name: 'ajv', run: () => a.ListToolsResult!(tools) },
]);
print('validate.list-tools-40.ours', tl.get('ours')!, 'validations/s');
print('validate.list-tools-40.ajv', tl.get('ajv')!, 'validations/s');
const bad = measure([
  { name: 'ours', run: () => !v.CallToolRequest(brokenRequest) },
  { name: 'ajv', run: () => !a.CallToolRequest!(brokenRequest) },
]);
print('validate.request-invalid.ours', bad.get('ours')!, 'validations/s');
print('validate.request-invalid.ajv', bad.get('ajv')!, 'validations/s');
print('validate.first-call.compact', compactFirst, 'ms');
print('validate.first-call.ajv-in-memory-compile', ajvFirst, 'ms');

const atobCheck = (s: string) => {
  try {
    atob(s);
    return true;
  } catch {
    return false;
  }
};
const b64 = measure([
  { name: 'ours', run: () => isBase64(image) },
  { name: 'atob', run: () => atobCheck(image) },
]);
print('format.byte-64KiB.ours-isBase64', b64.get('ours')!, 'checks/s');
print('format.byte-64KiB.zod-atob', b64.get('atob')!, 'checks/s');

ratio('validate.request compact/ajv', req.get('ours')! / req.get('ajv')!);
ratio('validate.result compact/ajv', res.get('ours')! / res.get('ajv')!);
ratio('validate.result-4B-image compact/ajv', sm.get('ours')! / sm.get('ajv')!);
ratio('validate.list-tools-40 compact/ajv', tl.get('ours')! / tl.get('ajv')!);
ratio('validate.request-invalid compact/ajv', bad.get('ours')! / bad.get('ajv')!);
ratio('validate.request ours/zod', req.get('ours')! / req.get('zod')!);
ratio('validate.result ours/zod', res.get('ours')! / res.get('zod')!);
ratio('validate.result-4B-image ours/zod', sm.get('ours')! / sm.get('zod')!);
ratio('validate.request ours/bare-typeof', req.get('ours')! / req.get('bare-typeof')!);
ratio('validate.result ours/json-parse', res.get('ours')! / res.get('json-parse')!);
ratio('format.byte-64KiB ours/atob', b64.get('ours')! / b64.get('atob')!);
