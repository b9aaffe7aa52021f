/**
 * Mutated frames for the fuzz run, as fast-check arbitraries: a frame is first drawn as a plan
 * (which base message, which id form, which mutations) and then rendered to bytes with an id
 * counter, so every id of a run is unique unless a plan asks for a duplicate on purpose.
 *
 * Base messages are the requests and notifications a client of the era sends (ping, tools,
 * resources, prompts, completion, logging, cancellation, initialize), plus methods and tool
 * names that are `Object.prototype` members. Mutations: wrong types for `id` / `method` /
 * `params`, huge / negative / float / exponent / null ids, `__proto__` and `constructor` keys,
 * deep nesting, multi-MiB strings, lone surrogates, invalid UTF-8, truncation, byte flips,
 * random bytes, embedded LF, CR / CRLF / blank lines, batches, duplicate in-flight ids. HTTP
 * frames add header mutations (dropped or wrong Content-Type, Accept, session id, protocol
 * version, `Mcp-Method`, `Mcp-Name`, a foreign Host or Origin).
 */
import fc from 'fast-check';
import { encodeHeaderValue } from '../../runtime/transport/http/stateless/headers.js';
import { PROTOTYPE_NAMES } from './oracle.js';

export type Era = '2025-11-25' | 'draft';
export const MODERN_VERSION = '2026-07-28';
export const META = {
  'io.modelcontextprotocol/protocolVersion': MODERN_VERSION,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'fuzz', version: '1' },
};

/** A rule that a clean frame (a base message with only its name changed) must obey. */
export type CleanRule = 'method-not-found' | 'unknown-tool';

/** One rendered frame. */
export interface Frame {
  /** What the plan was, for reports. */
  label: string;
  bytes: Uint8Array;
  /** For HTTP: header overrides (`null` drops a header). */
  headers?: Record<string, string | null>;
  /** For a clean frame: its id key's rule. */
  rule?: { rawId: string; rule: CleanRule };
}

type Obj = Record<string, unknown>;

interface Base {
  method: string;
  params?: Obj;
  notification?: boolean;
  rule?: CleanRule;
}

const TOOLS = [
  'echo',
  'test_simple_text',
  'test_error_handling',
  'test_sampling',
  'test_elicitation',
  'confirm_job',
  'failing_job',
  'test_missing_capability',
  'json_schema_2020_12_tool',
];

const baseArb = (era: Era): fc.Arbitrary<Base> =>
  fc.oneof(
    { weight: 6, arbitrary: fc.constant<Base>({ method: 'ping' }) },
    { weight: 3, arbitrary: fc.constant<Base>({ method: 'tools/list' }) },
    {
      weight: 5,
      arbitrary: fc
        .string({ maxLength: 40, unit: 'grapheme' })
        .map<Base>((text) => ({ method: 'tools/call', params: { name: 'echo', arguments: { text } } })),
    },
    {
      weight: 2,
      arbitrary: fc.constantFrom(...TOOLS).map<Base>((name) => ({
        method: 'tools/call',
        params: { name, arguments: name === 'failing_job' ? { reason: 'x' } : {} },
      })),
    },
    {
      weight: 3,
      arbitrary: fc
        .constantFrom(...PROTOTYPE_NAMES)
        .map<Base>((name) => ({ method: 'tools/call', params: { name, arguments: {} }, rule: 'unknown-tool' })),
    },
    {
      weight: 3,
      arbitrary: fc
        .oneof(
          fc.constantFrom(...PROTOTYPE_NAMES),
          fc.string({ minLength: 1, maxLength: 12 }).map((s) => `fuzz/${s}`),
        )
        .map<Base>((method) => ({ method, rule: 'method-not-found' })),
    },
    { weight: 1, arbitrary: fc.constant<Base>({ method: 'resources/list' }) },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom('test://static-text', 'test://nope', '__proto__')
        .map<Base>((uri) => ({ method: 'resources/read', params: { uri } })),
    },
    { weight: 1, arbitrary: fc.constant<Base>({ method: 'prompts/list' }) },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom('test_simple_prompt', 'constructor')
        .map<Base>((name) => ({ method: 'prompts/get', params: { name } })),
    },
    {
      weight: 1,
      arbitrary: fc.constant<Base>({
        method: 'completion/complete',
        params: {
          ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' },
          argument: { name: 'arg1', value: 'a' },
        },
      }),
    },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom('debug', 'toString')
        .map<Base>((level) => ({ method: 'logging/setLevel', params: { level } })),
    },
    { weight: era === 'draft' ? 2 : 0, arbitrary: fc.constant<Base>({ method: 'server/discover' }) },
    {
      weight: 3,
      arbitrary: fc
        .oneof(fc.nat(), fc.string({ maxLength: 8 }))
        .map<Base>((requestId) => ({ method: 'notifications/cancelled', params: { requestId }, notification: true })),
    },
    {
      weight: 2,
      arbitrary: fc
        .constantFrom(
          'notifications/initialized',
          'notifications/roots/list_changed',
          'notifications/toString',
          'constructor',
        )
        .map<Base>((method) => ({ method, notification: true })),
    },
    {
      weight: 1,
      arbitrary: fc.constant<Base>({
        method: 'notifications/progress',
        params: { progressToken: 1, progress: 1 },
        notification: true,
      }),
    },
    {
      weight: 1,
      arbitrary: fc.constant<Base>({
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'again', version: '1' } },
      }),
    },
  );

/** How the id is written. `counter`: a fresh integer; the others are edge forms. */
export type IdForm =
  | 'counter'
  | 'string'
  | 'negative'
  | 'huge'
  | 'huger'
  | 'zero'
  | 'empty-string'
  | 'float'
  | 'exponent'
  | 'point-zero'
  | 'null'
  | 'bool'
  | 'object'
  | 'surrogate-string'
  | 'array';

const idFormArb: fc.Arbitrary<IdForm> = fc.oneof(
  { weight: 12, arbitrary: fc.constant<IdForm>('counter') },
  { weight: 6, arbitrary: fc.constant<IdForm>('string') },
  {
    weight: 6,
    arbitrary: fc.constantFrom<IdForm>(
      'negative',
      'huge',
      'huger',
      'zero',
      'empty-string',
      'float',
      'exponent',
      'point-zero',
      'null',
      'bool',
      'object',
      'surrogate-string',
      'array',
    ),
  },
);

/** A structural mutation of the message before it is written. */
export type Shape =
  | { k: 'none' }
  | { k: 'wrong-method'; v: unknown }
  | { k: 'wrong-params'; v: unknown }
  | { k: 'no-jsonrpc' }
  | { k: 'jsonrpc'; v: unknown }
  | { k: 'proto-keys'; where: 'top' | 'params' | 'arguments' | 'meta' }
  | { k: 'deep'; depth: number; kind: 'array' | 'object' }
  | { k: 'big-string'; mib: number }
  | { k: 'lone-surrogate' }
  | { k: 'result-and-method' }
  | { k: 'no-meta' };

const wrongValue = fc.constantFrom<unknown>(null, true, 0, 1.5, '', 'x', [], [1], {}, { a: 1 });
const shapeArb: fc.Arbitrary<Shape> = fc.oneof(
  { weight: 30, arbitrary: fc.constant<Shape>({ k: 'none' }) },
  { weight: 2, arbitrary: wrongValue.map<Shape>((v) => ({ k: 'wrong-method', v })) },
  { weight: 2, arbitrary: wrongValue.map<Shape>((v) => ({ k: 'wrong-params', v })) },
  { weight: 1, arbitrary: fc.constant<Shape>({ k: 'no-jsonrpc' }) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>('1.0', 2, null, '2.0 ').map<Shape>((v) => ({ k: 'jsonrpc', v })) },
  {
    weight: 3,
    arbitrary: fc
      .constantFrom<'top' | 'params' | 'arguments' | 'meta'>('top', 'params', 'arguments', 'meta')
      .map<Shape>((where) => ({ k: 'proto-keys', where })),
  },
  {
    weight: 2,
    arbitrary: fc
      .record({
        depth: fc.integer({ min: 50, max: 20_000 }),
        kind: fc.constantFrom<'array' | 'object'>('array', 'object'),
      })
      .map<Shape>((r) => ({ k: 'deep', ...r })),
  },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 5 }).map<Shape>((mib) => ({ k: 'big-string', mib })) },
  { weight: 2, arbitrary: fc.constant<Shape>({ k: 'lone-surrogate' }) },
  { weight: 1, arbitrary: fc.constant<Shape>({ k: 'result-and-method' }) },
  { weight: 1, arbitrary: fc.constant<Shape>({ k: 'no-meta' }) },
);

/** A byte-level mutation of the written text. */
export type ByteOp =
  | { k: 'none' }
  | { k: 'truncate'; at: number }
  | { k: 'flip'; at: number[]; bits: number[] }
  | { k: 'insert'; at: number; bytes: number[] }
  | { k: 'random'; bytes: number[] }
  | { k: 'invalid-utf8'; at: number; seq: number[] }
  | { k: 'embedded-lf'; at: number };

const INVALID_UTF8: number[][] = [
  [0xff],
  [0xc0, 0x80],
  [0xed, 0xa0, 0x80],
  [0xe2, 0x82],
  [0xf8, 0x88, 0x80, 0x80, 0x80],
  [0x80],
];
const frac = fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true });
const byteOpArb: fc.Arbitrary<ByteOp> = fc.oneof(
  { weight: 30, arbitrary: fc.constant<ByteOp>({ k: 'none' }) },
  { weight: 3, arbitrary: frac.map<ByteOp>((at) => ({ k: 'truncate', at })) },
  {
    weight: 3,
    arbitrary: fc
      .record({
        at: fc.array(frac, { minLength: 1, maxLength: 4 }),
        bits: fc.array(fc.integer({ min: 0, max: 7 }), { minLength: 4, maxLength: 4 }),
      })
      .map<ByteOp>((r) => ({ k: 'flip', ...r })),
  },
  {
    weight: 2,
    arbitrary: fc
      .record({ at: frac, bytes: fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 1, maxLength: 8 }) })
      .map<ByteOp>((r) => ({ k: 'insert', ...r })),
  },
  {
    weight: 2,
    arbitrary: fc
      .array(fc.integer({ min: 0, max: 255 }), { minLength: 1, maxLength: 64 })
      .map<ByteOp>((bytes) => ({ k: 'random', bytes })),
  },
  {
    weight: 2,
    arbitrary: fc
      .record({ at: frac, seq: fc.constantFrom(...INVALID_UTF8) })
      .map<ByteOp>((r) => ({ k: 'invalid-utf8', ...r })),
  },
  { weight: 1, arbitrary: frac.map<ByteOp>((at) => ({ k: 'embedded-lf', at })) },
);

/** How the line ends (stdio). */
export type Ending = 'lf' | 'crlf' | 'blank-before' | 'cr-inside' | 'ws-line' | 'none';
const endingArb: fc.Arbitrary<Ending> = fc.oneof(
  { weight: 12, arbitrary: fc.constant<Ending>('lf') },
  { weight: 3, arbitrary: fc.constant<Ending>('crlf') },
  { weight: 1, arbitrary: fc.constantFrom<Ending>('blank-before', 'cr-inside', 'ws-line', 'none') },
);

/** A header mutation (HTTP). */
export type HeaderOp = { k: 'none' } | { k: 'drop'; name: string } | { k: 'set'; name: string; value: string };

const HEADER_NAMES = ['content-type', 'accept', 'mcp-session-id', 'mcp-protocol-version', 'mcp-method', 'mcp-name'];
const headerOpArb: fc.Arbitrary<HeaderOp> = fc.oneof(
  { weight: 20, arbitrary: fc.constant<HeaderOp>({ k: 'none' }) },
  { weight: 3, arbitrary: fc.constantFrom(...HEADER_NAMES).map<HeaderOp>((name) => ({ k: 'drop', name })) },
  {
    weight: 4,
    arbitrary: fc
      .oneof(
        fc
          .constantFrom('text/plain', 'application/json; charset=latin1', 'application/jsonx', '')
          .map((value) => ({ name: 'content-type', value })),
        fc
          .constantFrom('text/html', 'application/json', 'text/event-stream', '*/*')
          .map((value) => ({ name: 'accept', value })),
        fc
          .constantFrom('no-such-session', '__proto__', 'constructor', '')
          .map((value) => ({ name: 'mcp-session-id', value })),
        fc
          .constantFrom('1999-01-01', '2025-03-26', '2024-11-05', MODERN_VERSION, 'toString')
          .map((value) => ({ name: 'mcp-protocol-version', value })),
        fc
          .constantFrom('toString', 'tools/list', 'ping', '=?base64?dG9vbHMvY2FsbA==?=', '=?base64?!!?=')
          .map((value) => ({ name: 'mcp-method', value })),
        fc
          .constantFrom('toString', 'echo', '__proto__', '=?base64?ZWNobw==?=', '')
          .map((value) => ({ name: 'mcp-name', value })),
        fc
          .constantFrom('evil.example', 'evil.example:80', '127.0.0.1.evil.example')
          .map((value) => ({ name: 'host', value })),
        fc
          .constantFrom('http://evil.example', 'null', 'http://127.0.0.1.evil.example')
          .map((value) => ({ name: 'origin', value })),
      )
      .map<HeaderOp>((r) => ({ k: 'set', ...r })),
  },
);

/** One frame's plan. */
export interface Plan {
  base: Base;
  id: IdForm;
  shape: Shape;
  bytes: ByteOp;
  ending: Ending;
  header: HeaderOp;
  /** 2–5 messages in one JSON array (`batch`), the same message twice (`duplicate`). */
  group: 'one' | 'duplicate' | { batch: number };
}

export const planArb = (era: Era): fc.Arbitrary<Plan> =>
  fc.record({
    base: baseArb(era),
    id: idFormArb,
    shape: shapeArb,
    bytes: byteOpArb,
    ending: endingArb,
    header: headerOpArb,
    group: fc.oneof(
      { weight: 20, arbitrary: fc.constant<'one'>('one') },
      { weight: 2, arbitrary: fc.constant<'duplicate'>('duplicate') },
      { weight: 1, arbitrary: fc.integer({ min: 0, max: 5 }).map((batch) => ({ batch })) },
    ),
  });

/** A batch of frames between two pings. */
export const batchArb = (era: Era, maxFrames: number): fc.Arbitrary<Plan[]> =>
  fc.array(planArb(era), { minLength: 1, maxLength: maxFrames });

/** Renders plans with unique ids: `counter` is advanced for every id drawn. */
export class Renderer {
  constructor(
    readonly era: Era,
    private counter = 1,
    readonly tag = 'f',
  ) {}

  /** The id as raw JSON text, for a form. */
  rawId(form: IdForm): string {
    const n = this.counter++;
    switch (form) {
      case 'counter':
        return String(n);
      case 'string':
        return JSON.stringify(`${this.tag}-${n}`);
      case 'negative':
        return String(-n);
      case 'huge':
        return (9007199254740993n + BigInt(n) * 2n).toString(); // odd: not a double
      case 'huger':
        return `123456789012345678901234567890${n}`;
      case 'zero':
        return n % 2 ? '0' : '-0';
      case 'empty-string':
        return '""';
      case 'float':
        return `${n}.5`;
      case 'exponent':
        return `${n}e2`;
      case 'point-zero':
        return `${n}.0`;
      case 'null':
        return 'null';
      case 'bool':
        return n % 2 ? 'true' : 'false';
      case 'object':
        return `{"n":${n}}`;
      case 'surrogate-string':
        return `"\\ud800${this.tag}-${n}"`;
      case 'array':
        return `[${n}]`;
    }
  }

  /** The message of a plan as JSON text (before byte mutations). */
  text(plan: Plan, rawId = this.rawId(plan.id)): string {
    const b = plan.base;
    let params: unknown = b.params === undefined ? undefined : structuredClone(b.params);
    const s = plan.shape;
    if (this.era === 'draft' && !b.notification && s.k !== 'no-meta') {
      params = { ...((params as Obj | undefined) ?? {}), _meta: { ...META } };
    }
    const members: [string, string][] = [];
    if (s.k !== 'no-jsonrpc') members.push(['jsonrpc', JSON.stringify(s.k === 'jsonrpc' ? s.v : '2.0')]);
    if (!b.notification) members.push(['id', rawId]);
    members.push(['method', JSON.stringify(s.k === 'wrong-method' ? s.v : b.method)]);
    if (s.k === 'wrong-params') params = s.v;
    let paramsText = params === undefined ? undefined : JSON.stringify(params);
    if (s.k === 'proto-keys') {
      const inject = '"__proto__":{"polluted":true,"isError":true},"constructor":{"prototype":{"x":1}},"toString":1';
      if (s.where === 'top') members.push(['__proto__', '{"polluted":true}'], ['constructor', '{"name":"x"}']);
      else if (s.where === 'params')
        paramsText =
          paramsText === undefined || paramsText === '{}' ? `{${inject}}` : paramsText.replace(/^\{/, `{${inject},`);
      else if (s.where === 'arguments' && paramsText?.includes('"arguments":{'))
        paramsText = paramsText.replace('"arguments":{', `"arguments":{${inject},`);
      else if (s.where === 'meta' && paramsText?.includes('"_meta":{'))
        paramsText = paramsText.replace('"_meta":{', `"_meta":{${inject},`);
      else if (paramsText !== undefined) paramsText = paramsText.replace(/^\{/, `{${inject},`);
    }
    if (s.k === 'deep') {
      const open = s.kind === 'array' ? '['.repeat(s.depth) : '{"a":'.repeat(s.depth);
      const close = s.kind === 'array' ? ']'.repeat(s.depth) : '}'.repeat(s.depth);
      const deep = `${open}1${close}`;
      paramsText =
        paramsText === undefined || paramsText === '{}'
          ? `{"deep":${deep}}`
          : paramsText.replace(/^\{/, `{"deep":${deep},`);
    }
    if (s.k === 'big-string') {
      const big = JSON.stringify('x'.repeat(s.mib * 1024 * 1024));
      paramsText = paramsText?.includes('"text":')
        ? paramsText.replace(/"text":"[^"]*"/, `"text":${big}`)
        : paramsText === undefined || paramsText === '{}'
          ? `{"big":${big}}`
          : paramsText.replace(/^\{/, `{"big":${big},`);
    }
    if (s.k === 'lone-surrogate') {
      const lone = '"\\udc00\\ud800x"';
      paramsText = paramsText?.includes('"name":')
        ? paramsText.replace(/"name":"[^"]*"/, `"name":${lone}`)
        : paramsText === undefined || paramsText === '{}'
          ? `{"s":${lone}}`
          : paramsText.replace(/^\{/, `{"s":${lone},`);
    }
    if (paramsText !== undefined) members.push(['params', paramsText]);
    if (s.k === 'result-and-method') members.push(['result', '{}']);
    return `{${members.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`;
  }

  /** Whether a plan renders a clean frame: a base message changed in nothing but its name. */
  static clean(plan: Plan): boolean {
    return (
      plan.shape.k === 'none' &&
      plan.bytes.k === 'none' &&
      plan.header.k === 'none' &&
      plan.group === 'one' &&
      plan.id !== 'null' &&
      plan.id !== 'bool' &&
      plan.id !== 'object' &&
      plan.id !== 'array' &&
      plan.id !== 'float' &&
      plan.id !== 'exponent' &&
      plan.id !== 'point-zero'
    );
  }

  /** The body of a plan (JSON text, grouped, byte mutations applied) as bytes. */
  body(plan: Plan): { bytes: Uint8Array; rawId?: string } {
    let text: string;
    let rawId: string | undefined;
    if (typeof plan.group === 'object') {
      const items: string[] = [];
      for (let i = 0; i < plan.group.batch; i++) items.push(this.text(plan));
      text = `[${items.join(',')}]`;
    } else {
      rawId = this.rawId(plan.id);
      text = this.text(plan, rawId);
    }
    return { bytes: mutateBytes(Buffer.from(text, 'utf8'), plan.bytes), rawId };
  }

  /** A stdio frame: the body, its line ending, and (duplicate) a second copy. */
  stdio(plan: Plan): Frame {
    const { bytes, rawId } = this.body(plan);
    let out = Buffer.from(bytes);
    if (plan.group === 'duplicate') out = Buffer.concat([out, Buffer.from('\n'), out]);
    const end = plan.ending;
    if (end === 'cr-inside') {
      const at = Math.floor(out.length / 2);
      out = Buffer.concat([out.subarray(0, at), Buffer.from('\r'), out.subarray(at)]);
    }
    const tail = end === 'crlf' ? '\r\n' : end === 'none' ? '' : end === 'ws-line' ? '\n \t\r\n' : '\n';
    const head = end === 'blank-before' ? '\n\r\n' : '';
    const frame: Frame = { label: label(plan), bytes: Buffer.concat([Buffer.from(head), out, Buffer.from(tail)]) };
    if (plan.base.rule && rawId !== undefined && Renderer.clean(plan) && !plan.base.notification)
      frame.rule = { rawId, rule: plan.base.rule };
    return frame;
  }

  /** An HTTP frame: the body and the headers a conforming client sends, then the header mutation. */
  http(plan: Plan): Frame {
    const { bytes, rawId } = this.body(plan);
    const headers: Record<string, string | null> = {};
    if (this.era === 'draft' && plan.shape.k !== 'wrong-method') {
      // encoded as a conforming client does (Value Encoding: control characters, edge whitespace, non-ASCII)
      headers['mcp-method'] = encodeHeaderValue(plan.base.method);
      const p = plan.base.params;
      const name = p?.name ?? p?.uri;
      if (typeof name === 'string' && ['tools/call', 'prompts/get', 'resources/read'].includes(plan.base.method))
        headers['mcp-name'] =
          plan.shape.k === 'lone-surrogate' && plan.base.method !== 'resources/read' ? null : encodeHeaderValue(name);
    }
    const h = plan.header;
    if (h.k === 'drop') headers[h.name] = null;
    if (h.k === 'set') headers[h.name] = h.value;
    const frame: Frame = { label: label(plan), bytes, headers };
    if (plan.base.rule && rawId !== undefined && Renderer.clean(plan) && !plan.base.notification)
      frame.rule = { rawId, rule: plan.base.rule };
    return frame;
  }
}

function label(p: Plan): string {
  const name = p.base.params?.name ?? p.base.params?.uri;
  const parts = [typeof name === 'string' ? `${p.base.method} ${name}` : p.base.method, `id:${p.id}`];
  if (p.shape.k !== 'none') parts.push(`shape:${p.shape.k}`);
  if (p.bytes.k !== 'none') parts.push(`bytes:${p.bytes.k}`);
  if (p.ending !== 'lf') parts.push(`end:${p.ending}`);
  if (p.header.k !== 'none') parts.push(`header:${p.header.k}:${p.header.name}`);
  if (p.group !== 'one') parts.push(`group:${typeof p.group === 'object' ? `batch${p.group.batch}` : p.group}`);
  return parts.join(' ');
}

function mutateBytes(b: Buffer, op: ByteOp): Uint8Array {
  const at = (f: number) => Math.min(b.length, Math.floor(f * b.length));
  switch (op.k) {
    case 'none':
      return b;
    case 'truncate':
      return b.subarray(0, at(op.at));
    case 'flip': {
      const c = Buffer.from(b);
      op.at.forEach((f, i) => {
        const j = Math.min(c.length - 1, Math.floor(f * c.length));
        if (j >= 0) c[j] ^= 1 << op.bits[i];
      });
      return c;
    }
    case 'insert':
      return Buffer.concat([b.subarray(0, at(op.at)), Buffer.from(op.bytes), b.subarray(at(op.at))]);
    case 'random':
      return Buffer.from(op.bytes);
    case 'invalid-utf8':
      return Buffer.concat([b.subarray(0, at(op.at)), Buffer.from(op.seq), b.subarray(at(op.at))]);
    case 'embedded-lf':
      return Buffer.concat([b.subarray(0, at(op.at)), Buffer.from('\n'), b.subarray(at(op.at))]);
  }
}
