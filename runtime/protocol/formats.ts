/**
 * The JSON Schema string formats the MCP schemas use, as fast predicates for the generated
 * validators (`byte`: RFC 4648 §4 base64; `uri`: RFC 3986 §3 absolute URI; `uri-template`:
 * RFC 6570). Each is a single pass over the string (long base64: a few native passes) with no
 * regular-expression backtracking.
 */

// 1 = base64 alphabet, 2 = '=' padding
const B64 = new Uint8Array(128);
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/') B64[c.charCodeAt(0)] = 1;
B64[61] = 2;

/**
 * RFC 4648 base64 with padding: length a multiple of 4, only the 64 alphabet characters, `=`
 * only in the last two places. Long strings (a base64 image of 64 KiB) are checked by Node's
 * native decoder when it is there, short ones by a loop.
 */
export function isBase64(s: string): boolean {
  const n = s.length;
  if (n % 4 !== 0) return false;
  return n >= NATIVE_MIN_LENGTH && NodeBuffer ? isBase64Native(s, n) : isBase64Loop(s, n);
}

function isBase64Loop(s: string, n: number): boolean {
  let pad = 0;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    const k = c < 128 ? B64[c] : 0;
    if (k === 1) {
      if (pad) return false;
    } else if (k === 2) {
      if (i < n - 2) return false;
      pad++;
    } else return false;
  }
  return true;
}

const NodeBuffer = (globalThis as { Buffer?: typeof Buffer }).Buffer;
/** Below this length the loop is faster than the native calls. */
const NATIVE_MIN_LENGTH = 256;
/** Decoded sizes up to this reuse one scratch buffer; larger ones get a buffer of their own. */
const SCRATCH_MAX = 1 << 20;
let scratch: Buffer | undefined;

/**
 * The same check in four native passes. Node's base64 decoder is lenient: it also takes the
 * base64url characters `-` `_`, reads a character above U+00FF by its low byte, and skips or
 * stops at anything else (whitespace, `=` inside, other ASCII). So: the string must be ASCII
 * (its UTF-8 length equals its length), hold no `-` or `_`, and then decode to exactly
 * 3·n/4 − padding bytes — each character the decoder skips or stops at leaves fewer.
 */
function isBase64Native(s: string, n: number): boolean {
  const B = NodeBuffer as typeof Buffer;
  if (B.byteLength(s, 'utf8') !== n || s.includes('-') || s.includes('_')) return false;
  const pad = s.charCodeAt(n - 1) === 61 ? (s.charCodeAt(n - 2) === 61 ? 2 : 1) : 0;
  const expected = (n >> 2) * 3 - pad;
  let buf: Buffer;
  if (expected > SCRATCH_MAX) buf = B.allocUnsafe(expected);
  else buf = scratch && scratch.length >= expected ? scratch : (scratch = B.allocUnsafe(Math.max(expected, 64 * 1024)));
  return buf.write(s, 0, expected, 'base64') === expected;
}

// RFC 3986 characters allowed in a URI outside percent-encodings: unreserved + reserved.
const URI_CHAR = new Uint8Array(128);
for (const c of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~:/?#[]@!$&'()*+,;=")
  URI_CHAR[c.charCodeAt(0)] = 1;
const HEX = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
const ALPHA = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);

/** RFC 3986 URI: `scheme ":" …` with only URI characters and well-formed `%HH` escapes. */
export function isUri(s: string): boolean {
  const n = s.length;
  if (n < 2 || !ALPHA(s.charCodeAt(0))) return false;
  let i = 1;
  for (; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c === 58) break; // ':'
    if (!(ALPHA(c) || (c >= 48 && c <= 57) || c === 43 || c === 45 || c === 46)) return false;
  }
  if (i === n) return false;
  for (i++; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c === 37) {
      if (i + 2 >= n || !HEX(s.charCodeAt(i + 1)) || !HEX(s.charCodeAt(i + 2))) return false;
      i += 2;
    } else if (c >= 128 || URI_CHAR[c] !== 1) return false;
  }
  return true;
}

/** RFC 6570 URI template: URI characters and `%HH` outside expressions, balanced `{…}` expressions. */
export function isUriTemplate(s: string): boolean {
  let inExpr = false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (inExpr) {
      if (c === 125) inExpr = false;
      else if (
        c === 123 ||
        c <= 32 ||
        c === 34 ||
        c === 39 ||
        (c === 37 && !(HEX(s.charCodeAt(i + 1)) && HEX(s.charCodeAt(i + 2))))
      )
        return false;
    } else if (c === 123) inExpr = true;
    else if (c === 125) return false;
    else if (c === 37) {
      if (!HEX(s.charCodeAt(i + 1)) || !HEX(s.charCodeAt(i + 2))) return false;
      i += 2;
    } else if (c < 128 && URI_CHAR[c] !== 1) return false;
  }
  return !inExpr;
}

/** The format table generated validators reference (ajv `formats` option). */
export const formats = {
  byte: isBase64,
  uri: isUri,
  'uri-template': isUriTemplate,
} as const;
