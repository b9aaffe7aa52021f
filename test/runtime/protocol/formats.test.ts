/**
 * The format predicates generated validators use (runtime/protocol/formats.ts) against ajv-formats'
 * `byte` and `uri`, on arbitrary strings and on near-valid ones (valid values with one edit).
 *
 * Intentional differences, each asserted below so that a change on either side shows up:
 * - byte: ajv-formats' pattern carries the `m` flag, so `^…$` match one line: any string with a
 *   line terminator one of whose lines is valid base64 (even an empty line) passes ajv. isBase64
 *   accepts no line terminators. Without line terminators the two agree exactly.
 * - uri: isUri checks RFC 3986 at the character level (scheme, URI characters, well-formed `%HH`)
 *   and not the authority / path / query / fragment grammar; ajv-formats checks the grammar.
 *   Everything ajv accepts isUri accepts; isUri also accepts an empty hier-part (`urn:`, which
 *   RFC 3986 allows: path-empty), `[` `]` outside an IP literal and a
 *   second `#`. On well-formed URIs and on strings with a character no URI may hold, they agree.
 */
import fc from 'fast-check';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { isBase64, isUri } from '../../../runtime/protocol/formats.js';

const test = suite('generator: runtime formats vs ajv-formats');
const ajvByte = fullFormats.byte as (s: string) => boolean;
const ajvUri = fullFormats.uri as (s: string) => boolean;
const RUNS = { numRuns: 3000 };

const LINE_TERMINATOR = /[\n\r\u2028\u2029]/;

/** One edit of a string: insert, delete or replace one character. */
const edited = (base: fc.Arbitrary<string>, chars: fc.Arbitrary<string>) =>
  fc.tuple(base, fc.nat(), fc.constantFrom('insert', 'delete', 'replace'), chars).map(([s, at, op, c]) => {
    const i = s.length ? at % (s.length + (op === 'insert' ? 1 : 0)) : 0;
    if (op === 'insert') return s.slice(0, i) + c + s.slice(i);
    if (op === 'delete') return s.slice(0, i) + s.slice(i + 1);
    return s.slice(0, i) + c + s.slice(i + 1);
  });

const base64 = fc.uint8Array({ maxLength: 48 }).map((b) => Buffer.from(b).toString('base64'));
const base64Chars = fc.constantFrom('A', 'z', '0', '+', '/', '=', '-', '_', ' ', '\n', '\r', '\t', '.', 'é', '\u0000');
const anyString = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.string({ unit: fc.constantFrom('A', 'b', '9', '+', '/', '=') }),
);

test('byte: agrees with ajv-formats on every string without line terminators', () => {
  fc.assert(
    fc.property(fc.oneof(anyString, base64, edited(base64, base64Chars)), (s) => {
      if (LINE_TERMINATOR.test(s)) return true;
      return isBase64(s) === ajvByte(s);
    }),
    RUNS,
  );
});

test('byte: valid base64 of any bytes is accepted by both; line terminators are never accepted by isBase64', () => {
  fc.assert(
    fc.property(base64, (s) => isBase64(s) && ajvByte(s)),
    RUNS,
  );
  fc.assert(
    fc.property(fc.oneof(anyString, edited(base64, base64Chars)), (s) => !LINE_TERMINATOR.test(s) || !isBase64(s)),
    RUNS,
  );
});

test('byte: the documented difference (ajv-formats matches per line)', () => {
  for (const s of ['!!!\nQUJD', 'QUJD\n', '\n', 'not base64\r\n']) {
    assert.is(ajvByte(s), true, JSON.stringify(s));
    assert.is(isBase64(s), false, JSON.stringify(s));
  }
  // and the cases both handle alike
  for (const [s, ok] of [
    ['', true],
    ['QUJD', true],
    ['QUI=', true],
    ['QQ==', true],
    ['Q===', false],
    ['QUJ', false],
    ['QU=D', false],
    ['QUJD=', false],
    ['QU JD', false],
    ['QUJ-', false],
  ] as const) {
    assert.is(isBase64(s), ok, JSON.stringify(s));
    assert.is(ajvByte(s), ok, JSON.stringify(s));
  }
});

/** RFC 4648 §4 with padding, as ajv-formats writes it but without the multiline flag. */
const STRICT_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const longBase64 = fc.uint8Array({ minLength: 190, maxLength: 3000 }).map((b) => Buffer.from(b).toString('base64'));

test('byte, long strings (the native path): agrees with the strict pattern on valid and edited base64', () => {
  fc.assert(
    fc.property(longBase64, (s) => s.length >= 256 && isBase64(s) && ajvByte(s)),
    { numRuns: 300 },
  );
  const odd = fc.constantFrom(
    '-',
    '_',
    ' ',
    '=',
    '\u0000',
    '\u0080',
    '\u00ff',
    '\u0141',
    '\u4e41',
    '\ud83d',
    '\ude00',
    '.',
    '*',
    '\n',
  );
  fc.assert(
    fc.property(
      fc.oneof(edited(longBase64, odd), edited(edited(longBase64, odd), base64Chars)),
      (s) => isBase64(s) === STRICT_BASE64.test(s),
    ),
    { numRuns: 1000 },
  );
});

test('byte, long strings: every code unit 0–0x17F and the surrogates, at the start, middle, padding and end', () => {
  const valid = Buffer.from(Array.from({ length: 600 }, (_, i) => (i * 37) % 256)).toString('base64');
  const padded1 = Buffer.from(Array.from({ length: 599 }, (_, i) => (i * 11) % 256)).toString('base64');
  const padded2 = Buffer.from(Array.from({ length: 598 }, (_, i) => (i * 5) % 256)).toString('base64');
  assert.ok(padded1.endsWith('=') && !padded1.endsWith('==') && padded2.endsWith('=='));
  const units = [...Array.from({ length: 0x180 }, (_, i) => i), 0xd800, 0xdbff, 0xdc00, 0xdfff, 0xfeff, 0xffff];
  let checked = 0;
  for (const base of [valid, padded1, padded2]) {
    assert.ok(base.length >= 256 && isBase64(base));
    for (const at of [0, 1, base.length >> 1, base.length - 3, base.length - 2, base.length - 1]) {
      for (const u of units) {
        const c = String.fromCharCode(u);
        const replaced = base.slice(0, at) + c + base.slice(at + 1);
        const expected = STRICT_BASE64.test(replaced);
        if (isBase64(replaced) !== expected)
          assert.unreachable(`U+${u.toString(16)} at ${at} of ${base.length}: isBase64 ${!expected}`);
        checked++;
      }
    }
  }
  assert.ok(checked > 7000);
});

const webUrl = fc.webUrl({ withQueryParameters: true, withFragments: true });
const NON_URI_CHARS = [' ', '"', '<', '>', '\\', '^', '`', '{', '|', '}', 'é', '\u0000', '\t', '\n', '%', '%G0', '%4'];
const uriChars = fc.constantFrom(
  ...NON_URI_CHARS,
  'a',
  '/',
  ':',
  '?',
  '#',
  '@',
  '[',
  ']',
  '%41',
  '.',
  '-',
  '~',
  '!',
  "'",
  '(',
  ')',
  '*',
  '+',
  ',',
  ';',
  '=',
);
const schemeStrings = fc
  .tuple(
    fc.constantFrom('http', 'https', 'file', 'urn', 'mailto', 'data', 'x-y.z+w', 'A1'),
    fc.string({ maxLength: 20 }),
  )
  .map(([scheme, rest]) => `${scheme}:${rest}`);

test('uri: everything ajv-formats accepts, isUri accepts', () => {
  fc.assert(
    fc.property(fc.oneof(anyString, webUrl, schemeStrings, edited(webUrl, uriChars)), (s) => !ajvUri(s) || isUri(s)),
    RUNS,
  );
});

test('uri: both accept well-formed URLs', () => {
  fc.assert(
    fc.property(webUrl, (s) => isUri(s) && ajvUri(s)),
    RUNS,
  );
});

test('uri: both reject a URL holding a character no URI may hold (or a broken %-escape)', () => {
  const broken = fc.tuple(webUrl, fc.nat(), fc.constantFrom(...NON_URI_CHARS)).map(([s, at, c]) => {
    const i = s.indexOf(':') + 1 + (at % (s.length - s.indexOf(':')));
    // '%' and '%4' become a broken escape only when the next character is not hex
    return s.slice(0, i) + c + (c.startsWith('%') ? 'z' : '') + s.slice(i);
  });
  fc.assert(
    fc.property(broken, (s) => !isUri(s) && !ajvUri(s)),
    RUNS,
  );
});

test('uri: the documented differences (isUri is a character-level check)', () => {
  for (const s of ['urn:', 'http://x/[y]', 'a:b#c#d']) {
    assert.is(isUri(s), true, s);
    assert.is(ajvUri(s), false, s);
  }
  for (const [s, ok] of [
    ['https://example.com/a?b=c#d', true],
    ['file:///tmp/x%20y', true],
    ['urn:isbn:0451450523', true],
    ['http://[::1]:8080/', true],
    ['1http://x', false],
    ['//example.com', false],
    ['example', false],
    ['http://exa mple.com', false],
    ['http://x/%zz', false],
    ['http://x/é', false],
  ] as const) {
    assert.is(isUri(s), ok, s);
    assert.is(ajvUri(s), ok, s);
  }
});

test.run();
