import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  encodeComment,
  encodeEvent,
  encodeJsonEvent,
  SseDecoderStream,
  SseParser,
  SseSizeError,
  type SseEvent,
} from '../../../runtime/codec/sse.js';

const enc = new TextEncoder();

function parseAll(chunks: Array<Uint8Array | string>): { events: SseEvent[]; parser: SseParser } {
  const parser = new SseParser();
  const events: SseEvent[] = [];
  for (const c of chunks) events.push(...parser.push(c));
  events.push(...parser.end());
  return { events, parser };
}

/** Splits bytes into pieces of 1–`max` bytes. */
function pieces(bytes: Uint8Array, max: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  let i = 0;
  let k = 0;
  while (i < bytes.length) {
    const n = 1 + (k++ % max);
    out.push(bytes.subarray(i, i + n));
    i += n;
  }
  return out;
}

test('fields: id, event, data, retry; default type message', () => {
  const { events, parser } = parseAll(['id: 1\nevent: ping\ndata: hello\nretry: 2500\n\n', 'data: x\n\n']);
  assert.equal(events, [
    { event: 'ping', data: 'hello', id: '1', retry: 2500 },
    { event: 'message', data: 'x', id: '1' },
  ]);
  assert.is(parser.lastEventId, '1');
  assert.is(parser.retry, 2500);
});

test('multi-line data joins with LF; one leading space dropped, more kept', () => {
  const { events } = parseAll(['data:a\ndata:  b\ndata\ndata: c\n\n']);
  assert.is(events[0].data, 'a\n b\n\nc');
});

test('comments are ignored; unknown fields are ignored; bad retry ignored', () => {
  const { events, parser } = parseAll([':keep-alive\n\nfoo: bar\nretry: 1x\ndata: d\n\n:\n\n']);
  assert.equal(events, [{ event: 'message', data: 'd' }]);
  assert.is(parser.retry, undefined);
});

test('priming event: id with empty data is dispatched with data ""', () => {
  const { events, parser } = parseAll(['id: s_1\ndata: \n\n']);
  assert.equal(events, [{ event: 'message', data: '', id: 's_1' }]);
  assert.is(parser.lastEventId, 's_1');
});

test('block without data is not dispatched but its id and retry count', () => {
  const { events, parser } = parseAll(['id: 9\nretry: 10\n\n']);
  assert.equal(events, []);
  assert.is(parser.lastEventId, '9');
  assert.is(parser.retry, 10);
});

test('id persists; empty id resets; id with NUL is ignored', () => {
  const { events } = parseAll(['id: a\ndata: 1\n\ndata: 2\n\nid\ndata: 3\n\nid: b\0c\ndata: 4\n\n']);
  assert.equal(
    events.map((e) => e.id),
    ['a', 'a', '', ''],
  );
});

test('CR, LF and CRLF line ends, also split inside CRLF', () => {
  const text = 'data: a\r\rdata: b\n\ndata: c\r\n\r\n';
  const expected = ['a', 'b', 'c'];
  assert.equal(
    parseAll([text]).events.map((e) => e.data),
    expected,
  );
  for (let i = 1; i < text.length; i++) {
    assert.equal(
      parseAll([text.slice(0, i), text.slice(i)]).events.map((e) => e.data),
      expected,
      `split at ${i}`,
    );
  }
  // "\r" then "\n" in separate chunks is one line end, not two.
  assert.equal(
    parseAll(['data: x\r', '\ndata: y\r', '\n\r', '\n']).events.map((e) => e.data),
    ['x\ny'],
  );
});

test('leading BOM is dropped once (bytes and text); a second one is kept', () => {
  const bytes = enc.encode('\uFEFFdata: a\n\n');
  assert.equal(
    parseAll(pieces(bytes, 1)).events.map((e) => e.data),
    ['a'],
  );
  assert.equal(
    parseAll(['\uFEFFdata: a\n\n']).events.map((e) => e.data),
    ['a'],
  );
  const twice = parseAll([enc.encode('\uFEFF\uFEFFdata: a\n\n')]);
  assert.equal(twice.events, []); // field name is "\uFEFFdata": ignored
});

test('UTF-8 split inside characters with 1- and 2-byte chunks', () => {
  const text = 'data: héllo → 世界 🎉\n\nid: ✓\ndata: \n\n';
  for (const max of [1, 2]) {
    const { events } = parseAll(pieces(enc.encode(text), max));
    assert.equal(events, [
      { event: 'message', data: 'héllo → 世界 🎉' },
      { event: 'message', data: '', id: '✓' },
    ]);
  }
});

test('lastEventId moves only when a blank line completes the block', () => {
  const p = new SseParser();
  p.push('id: 1\ndata: a\n\nid: 2\ndata: b\n');
  assert.is(p.lastEventId, '1');
  assert.equal(p.push('\n'), [{ event: 'message', data: 'b', id: '2' }]);
  assert.is(p.lastEventId, '2');
  p.push('id: 3\n');
  p.end();
  assert.is(p.lastEventId, '2');
});

test('unterminated event at end of stream is discarded', () => {
  assert.equal(
    parseAll(['data: a\n\ndata: b']).events.map((e) => e.data),
    ['a'],
  );
  assert.equal(
    parseAll(['data: a\n\ndata: b\n']).events.map((e) => e.data),
    ['a'],
  );
});

test('size limit throws SseSizeError', () => {
  const p = new SseParser({ maxEventSize: 16 });
  assert.throws(
    () => p.push('data: 0123456789abcdefgh'),
    (e: unknown) => e instanceof SseSizeError,
  );
  const q = new SseParser({ maxEventSize: 16 });
  assert.throws(
    () => q.push('data: 0123456789\ndata: 0123456789\n'),
    (e: unknown) => e instanceof SseSizeError,
  );
});

test('encodeEvent: fields, multi-line data, priming, errors', () => {
  assert.is(encodeEvent({ data: 'x' }), 'data: x\n\n');
  assert.is(
    encodeEvent({ id: '4', event: 'e', retry: 100, data: 'a\nb\r\nc\rd' }),
    'event: e\nid: 4\nretry: 100\ndata: a\ndata: b\ndata: c\ndata: d\n\n',
  );
  assert.is(encodeEvent({ id: 'p', data: '' }), 'id: p\ndata: \n\n');
  assert.throws(() => encodeEvent({ id: 'a\nb', data: '' }), TypeError);
  assert.throws(() => encodeEvent({ event: 'a\rb', data: '' }), TypeError);
  for (const id of ['a\rb', 'a\0b', '\n'])
    assert.throws(() => encodeEvent({ id, data: '' }), TypeError, JSON.stringify(id));
  assert.throws(() => encodeEvent({ event: 'a\nb', data: '' }), TypeError);
  assert.throws(() => encodeEvent({ retry: -1, data: '' }), TypeError);
  assert.throws(() => encodeEvent({ retry: 1.5, data: '' }), TypeError);
});

test('encodeJsonEvent: as encodeEvent for JSON texts, the id checked', () => {
  // JSON.stringify escapes line breaks inside strings: the text is one data line
  const json = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { text: 'a\nb\r\nc', n: '\u2028' } });
  assert.ok(!json.includes('\n') && !json.includes('\r'));
  assert.is(encodeJsonEvent('s_7', json), encodeEvent({ id: 's_7', data: json }));
  assert.is(encodeJsonEvent(undefined, json), encodeEvent({ data: json }));
  assert.is(encodeJsonEvent('4', '{"a":1}'), 'id: 4\ndata: {"a":1}\n\n');
  assert.equal(
    parseAll([encodeJsonEvent('9', json)]).events.map((e) => [e.id, JSON.parse(e.data)]),
    [['9', JSON.parse(json)]],
  );
  for (const id of ['a\rb', 'a\0b', '\n'])
    assert.throws(() => encodeJsonEvent(id, '{}'), TypeError, JSON.stringify(id));
});

test('encodeComment: keep-alive, multi-line', () => {
  assert.is(encodeComment(), ':\n\n');
  assert.is(encodeComment('a\nb'), ': a\n: b\n\n');
  assert.equal(
    parseAll([encodeComment('x'), encodeEvent({ data: 'y' }), encodeComment()]).events.map((e) => e.data),
    ['y'],
  );
});

test('SseDecoderStream pipes bytes to events', async () => {
  const bytes = enc.encode(encodeEvent({ id: '1', data: '{"a":1}' }) + encodeEvent({ data: 'z' }));
  const source = new ReadableStream<Uint8Array>({
    start(c) {
      for (const p of pieces(bytes, 2)) c.enqueue(p);
      c.close();
    },
  });
  const decoder = new SseDecoderStream();
  const out: SseEvent[] = [];
  const reader = source.pipeThrough(decoder).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    out.push(value);
  }
  assert.equal(out, [
    { event: 'message', data: '{"a":1}', id: '1' },
    { event: 'message', data: 'z', id: '1' },
  ]);
  assert.is(decoder.parser.lastEventId, '1');
});

const arbText = fc.string({
  unit: fc.constantFrom('a', 'é', '世', '🎉', ' ', ':', '\n', '\r', 'x') as fc.Arbitrary<string>,
  maxLength: 12,
});
const arbEvent = fc.record(
  {
    id: fc.string({ unit: fc.constantFrom('a', '1', '_', 'é', '🎉'), maxLength: 6 }),
    event: fc.constantFrom('message', 'ping', 'x y'),
    data: arbText,
    retry: fc.nat({ max: 100000 }),
  },
  { requiredKeys: ['data'] },
);

test('property: any chunking of encoded events (bytes or text) gives the same events', () => {
  fc.assert(
    fc.property(
      fc.array(arbEvent, { maxLength: 8 }),
      fc.array(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 20 }),
      fc.constantFrom('\n', '\r', '\r\n'),
      (inits, cuts, eol) => {
        const wire = inits
          .map((e) => encodeEvent(e))
          .join(encodeComment('k'))
          .replace(/\n/g, eol);
        const whole = parseAll([wire]);
        // Encoded events come back, data line ends normalised to LF, the id carried forward.
        let lastId: string | undefined;
        const expected = inits.map((e) => {
          if (e.id !== undefined) lastId = e.id;
          const out: SseEvent = { event: e.event ?? 'message', data: e.data.replace(/\r\n|\r/g, '\n') };
          if (lastId !== undefined) out.id = lastId;
          if (e.retry !== undefined) out.retry = e.retry;
          return out;
        });
        assert.equal(whole.events, expected);
        const bytes = enc.encode(wire);
        const chunks: Uint8Array[] = [];
        for (let i = 0, k = 0; i < bytes.length; k++) {
          const n = cuts[k % cuts.length];
          chunks.push(bytes.subarray(i, i + n));
          i += n;
        }
        const split = parseAll(chunks);
        assert.equal(split.events, whole.events);
        assert.is(split.parser.lastEventId, whole.parser.lastEventId);
        assert.is(split.parser.retry, whole.parser.retry);
        const textChunks: string[] = [];
        for (let i = 0, k = 0; i < wire.length; k++) {
          const n = cuts[k % cuts.length];
          textChunks.push(wire.slice(i, i + n));
          i += n;
        }
        assert.equal(parseAll(textChunks).events, whole.events);
      },
    ),
    { numRuns: 300 },
  );
});

test.run();
