import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import {
  DEFAULT_MAX_LINE_BYTES,
  FrameError,
  NdjsonDecoder,
  decodeAll,
  encodeFrame,
} from '../../../runtime/codec/ndjson.js';

export const M1 = '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"warming up"}}\n';
export const M2 =
  '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"demo-server","version":"1.0.0"}}}\n';
export const M3 = '{"jsonrpc":"2.0","id":2,"result":{"tools":[]}}\n';

/** Feeds `chunks` to a fresh decoder; returns values, errors and the end-of-stream error. */
function run(chunks: Uint8Array[], maxLineBytes?: number) {
  const values: unknown[] = [];
  const errors: FrameError[] = [];
  const d = new NdjsonDecoder({ value: (v) => values.push(v), error: (e) => errors.push(e) }, { maxLineBytes });
  for (const c of chunks) d.push(c);
  return { values, errors, end: d.end(), decoder: d };
}

/** Splits `bytes` at the given offsets. */
function split(bytes: Buffer, at: number[]): Buffer[] {
  const out: Buffer[] = [];
  let prev = 0;
  for (const i of [...at, bytes.length]) {
    out.push(bytes.subarray(prev, i));
    prev = i;
  }
  return out;
}

const all = Buffer.from(M1 + M2 + M3);

test('001 stdio framing: split, coalesced and 1-byte trickle give the same three messages in order', () => {
  assert.is(Buffer.byteLength(M1), 97);
  assert.is(Buffer.byteLength(M2), 139);
  assert.is(Buffer.byteLength(M3), 47);
  assert.is(all.length, 283);
  const expected = [JSON.parse(M1), JSON.parse(M2), JSON.parse(M3)];
  const variants = {
    A: split(all, [50, 117]),
    B: [all],
    C: Array.from({ length: all.length }, (_, i) => all.subarray(i, i + 1)),
  };
  for (const [name, chunks] of Object.entries(variants)) {
    const r = run(chunks);
    assert.equal(r.values, expected, name);
    assert.equal(r.errors, [], name);
    assert.is(r.end, undefined, name);
  }
});

test('001 stdio framing: a frame truncated at end of stream is reported, never parsed', () => {
  const r = run([all.subarray(0, 127)]);
  assert.equal(r.values, [JSON.parse(M1)]);
  assert.equal(r.errors, []);
  assert.instance(r.end, FrameError);
  assert.is(r.end!.kind, 'truncated');
  assert.is(r.end!.bytes, 30);
  // whitespace left at the end is not a truncated frame
  assert.is(run([Buffer.from(`${M3}  \r`)]).end, undefined);
});

test('001 stdio framing: a 5 MiB line decodes identically as one chunk, 64 KiB chunks, or split at 4,194,305', () => {
  const text = 'a'.repeat(5 * 1024 * 1024);
  const line = Buffer.from(`{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"${text}"}]}}\n`);
  const chunked: Buffer[] = [];
  for (let i = 0; i < line.length; i += 65536) chunked.push(line.subarray(i, i + 65536));
  for (const chunks of [[line], chunked, split(line, [4_194_305])]) {
    const r = run(chunks);
    assert.is(r.values.length, 1);
    assert.is((r.values[0] as { result: { content: Array<{ text: string }> } }).result.content[0].text, text);
    assert.equal(r.errors, []);
  }
  assert.ok(DEFAULT_MAX_LINE_BYTES >= 16 * 1024 * 1024);
});

test('001 stdio framing: the size limit applies to whole lines, with the same verdict for every chunking', () => {
  const max = 64;
  const long = Buffer.from(`{"jsonrpc":"2.0","method":"x","params":{"p":"${'b'.repeat(80)}"}}\n`);
  const exact = Buffer.from(`{"jsonrpc":"2.0","method":"y","params":{"p":"${'c'.repeat(64 - 48)}"}}`);
  assert.is(exact.length, max);
  const input = Buffer.concat([long, exact, Buffer.from('\n'), Buffer.from(M3)]);
  for (let size = 1; size <= input.length; size += 7) {
    const chunks: Buffer[] = [];
    for (let i = 0; i < input.length; i += size) chunks.push(input.subarray(i, i + size));
    const r = run(chunks, max);
    assert.equal(
      r.errors.map((e) => e.kind),
      ['line-too-long'],
      `chunk size ${size}`,
    );
    assert.equal(
      r.values.map((v) => (v as { method?: string; id?: number }).method ?? (v as { id: number }).id),
      ['y', 2],
      `chunk size ${size}`,
    );
    assert.ok(r.decoder.buffered <= max + size);
  }
});

test('001 stdio framing: an endless line keeps memory bounded and decoding resumes after its newline', () => {
  const max = 1024;
  const d = new NdjsonDecoder({ value: () => undefined, error: () => undefined }, { maxLineBytes: max });
  const chunk = Buffer.alloc(300, 0x61);
  for (let i = 0; i < 10_000; i++) {
    d.push(chunk);
    assert.ok(d.buffered <= max);
  }
  const r = run([Buffer.alloc(5000, 0x61), Buffer.from(`\n${M3}`)], max);
  assert.is(r.errors.length, 1);
  assert.is(r.values.length, 1);
});

const UTF8_LINE = '{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"café — 中文 😀"}]}}\n';

test('005 stdio UTF-8: a line split inside any multi-byte character decodes without U+FFFD', () => {
  const bytes = Buffer.from(UTF8_LINE);
  assert.is(bytes.length, 95);
  assert.equal([bytes[71], bytes[72]], [0xc3, 0xa9]);
  assert.equal([...bytes.subarray(85, 89)], [0xf0, 0x9f, 0x98, 0x80]);
  const splits = [72, 75, 76, 79, 86, 87, 88].map((at) => split(bytes, [at]));
  splits.push(Array.from({ length: bytes.length }, (_, i) => bytes.subarray(i, i + 1)));
  for (const chunks of splits) {
    const r = run(chunks);
    assert.is(r.values.length, 1);
    assert.is(
      (r.values[0] as { result: { content: Array<{ text: string }> } }).result.content[0].text,
      'café — 中文 😀',
    );
    assert.equal(r.errors, []);
  }
});

test('005 stdio UTF-8: raw U+2028/U+2029 and an escaped \\n stay inside one message', () => {
  const r = run([
    Buffer.from(
      '{"jsonrpc":"2.0","method":"m","params":{"text":"a\u2028b\u2029c"}}\n{"jsonrpc":"2.0","method":"m","params":{"text":"line1\\nline2"}}\n',
    ),
  ]);
  assert.equal(
    r.values.map((v) => (v as { params: { text: string } }).params.text),
    ['a\u2028b\u2029c', 'line1\nline2'],
  );
});

test('005 stdio UTF-8: an invalid byte rejects its line only; the next line is decoded', () => {
  const bad = Buffer.concat([
    Buffer.from('{"jsonrpc":"2.0","id":9,"result":{"t":"x'),
    Buffer.from([0xff]),
    Buffer.from('y"}}\n'),
  ]);
  const input = Buffer.concat([bad, Buffer.from('{"jsonrpc":"2.0","id":5,"result":{}}\n')]);
  for (const chunks of [[input], split(input, [bad.length - 3]), split(input, [bad.length])]) {
    const r = run(chunks);
    assert.equal(
      r.errors.map((e) => e.kind),
      ['invalid-utf8'],
    );
    assert.equal(r.values, [{ jsonrpc: '2.0', id: 5, result: {} }]);
  }
  // a literal U+FFFD is valid UTF-8 and passes
  assert.equal(run([Buffer.from('{"t":"\uFFFD"}\n')]).values, [{ t: '\uFFFD' }]);
});

test('005 stdio UTF-8: the writer escapes CR, LF, U+2028 and ends each frame with exactly one LF', () => {
  const text = 'first\nsecond\r\nthird\u2028fourth';
  const frame = encodeFrame({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text }] } });
  const bytes = Buffer.from(frame);
  assert.is(bytes.indexOf(0x0a), bytes.length - 1);
  assert.is(bytes.indexOf(0x0d), -1);
  assert.not.ok(frame.includes('\u2028'));
  assert.ok(frame.includes('\\r\\n'));
  assert.is((JSON.parse(frame) as { result: { content: Array<{ text: string }> } }).result.content[0].text, text);
  assert.throws(() => encodeFrame(undefined), /not JSON-serializable/);
});

test('013 stdio CRLF: CRLF lines, blank lines and a CR/LF chunk split decode like LF input', () => {
  const crlf = Buffer.from(
    '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"demo-server","version":"1.0.0"}}}\r\n' +
      '\r\n   \t\r\n\n' +
      '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"ok"}}\r\n',
  );
  const lf = Buffer.from(crlf.toString().replace(/\r\n/g, '\n'));
  const cr = crlf.indexOf(0x0d);
  const expected = run([lf]).values;
  assert.is(expected.length, 2);
  for (const chunks of [
    [crlf],
    split(crlf, [cr + 1]),
    Array.from({ length: crlf.length }, (_, i) => crlf.subarray(i, i + 1)),
  ]) {
    const r = run(chunks);
    assert.equal(r.values, expected);
    assert.equal(r.errors, []);
    assert.is(r.end, undefined);
  }
  assert.is((expected[1] as { params: { data: string } }).params.data, 'ok');
});

test('013 stdio CRLF: a line that is not JSON is reported and decoding continues', () => {
  const r = run([Buffer.from('not json\r\n{"a":1}\r\n{"b":\n{"c":3}\n')]);
  assert.equal(
    r.errors.map((e) => e.kind),
    ['invalid-json', 'invalid-json'],
  );
  assert.equal(r.values, [{ a: 1 }, { c: 3 }]);
});

const message = fc.oneof(
  fc.record({
    jsonrpc: fc.constant('2.0'),
    id: fc.oneof(fc.integer(), fc.string({ unit: 'binary' })),
    method: fc.string({ unit: 'binary' }),
    params: fc.dictionary(fc.string(), fc.jsonValue()),
  }),
  fc.record({
    jsonrpc: fc.constant('2.0'),
    method: fc.string({ unit: 'binary' }),
    params: fc.dictionary(fc.string({ unit: 'binary' }), fc.jsonValue()),
  }),
  fc.jsonValue(),
);

test('property: any chunking of any message sequence (1–2 byte chunks too) decodes to the same messages', () => {
  fc.assert(
    fc.property(
      fc.array(message, { maxLength: 8 }),
      fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1 }),
      fc.boolean(),
      fc.boolean(),
      (msgs, sizes, crlf, tiny) => {
        const frames = msgs.map((m) => {
          const f = encodeFrame(m);
          return crlf ? `${f.slice(0, -1)}\r\n` : f;
        });
        const bytes = Buffer.from(frames.join(''));
        const chunks: Buffer[] = [];
        for (let i = 0, k = 0; i < bytes.length; k++) {
          const n = tiny ? 1 + (k % 2) : sizes[k % sizes.length];
          chunks.push(bytes.subarray(i, i + n));
          i += n;
        }
        const r = run(chunks);
        assert.equal(r.errors, []);
        assert.is(r.end, undefined);
        assert.equal(
          r.values,
          msgs.map((m) => JSON.parse(JSON.stringify(m))),
        );
      },
    ),
    { numRuns: 500 },
  );
});

test('property: random bytes in random chunks never throw, and a valid line after a newline still decodes', () => {
  fc.assert(
    fc.property(
      fc.array(fc.uint8Array({ maxLength: 64 }), { maxLength: 12 }),
      fc.integer({ min: 16, max: 256 }),
      (chunks, max) => {
        const r = run([...chunks, Buffer.from('\n{"ok":true}\n')], max);
        assert.equal(r.values[r.values.length - 1], { ok: true });
        assert.is(r.end, undefined);
        for (const e of r.errors) assert.instance(e, FrameError);
      },
    ),
    { numRuns: 1000 },
  );
});

test('property: whole chunks (decoded as one string) and 1-byte chunks (line by line) agree on values, errors and their byte counts', () => {
  const piece = fc.oneof(
    fc.jsonValue().map((v) => JSON.stringify(v)),
    fc.constantFrom(
      '',
      ' ',
      '\t\r',
      ' \u00a0',
      '\ufeff{}',
      '{"a":"\ufffd"}',
      '"\u2028"',
      'nope',
      '{"a":',
      '  {"b":[1,2]}  \r',
    ),
    fc.string({ maxLength: 12 }),
  );
  const line = fc.oneof(
    { weight: 5, arbitrary: piece.map((t) => Buffer.from(t)) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 8 }).map((b) => Buffer.from(b.filter((x) => x !== 0x0a))) },
  );
  fc.assert(
    fc.property(fc.array(line, { maxLength: 10 }), fc.integer({ min: 4, max: 64 }), (lines, max) => {
      const bytes = Buffer.concat(lines.flatMap((l) => [l, Buffer.from('\n')]));
      const whole = run([bytes], max);
      const trickle = run(
        [...bytes].map((b) => Uint8Array.of(b)),
        max,
      );
      assert.equal(whole.values, trickle.values);
      // a line over the limit is reported at its newline, with its whole size, head and tail, however it was chunked
      const seen = (e: FrameError) => [e.kind, e.bytes, e.head, e.tail];
      assert.equal(whole.errors.map(seen), trickle.errors.map(seen));
      assert.is(whole.end, trickle.end);
    }),
    { numRuns: 1000 },
  );
});

test('decodeAll: values and errors in input order, truncated tail last', () => {
  const out = decodeAll(Buffer.from('{"a":1}\nx\n{"b"'));
  assert.equal(
    out.map((o) => ('value' in o ? o.value : o.error.kind)),
    [{ a: 1 }, 'invalid-json', 'truncated'],
  );
});

test.run();
