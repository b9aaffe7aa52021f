/**
 * Strings in and out of the byte buffers that keep finished streams (./events-streams.ts): as
 * UTF-8, or as UTF-16 code units when a string holds a lone surrogate that UTF-8 cannot carry.
 */
export const ENCODER = new TextEncoder();
/** (ignoreBOM: a U+FEFF that begins a string is part of it) */
const DECODER = new TextDecoder('utf-8', { ignoreBOM: true });
export const wellFormed: (s: string) => boolean =
  typeof (String.prototype as { isWellFormed?: unknown }).isWellFormed === 'function'
    ? (s) => (s as string & { isWellFormed(): boolean }).isWellFormed()
    : (s) => !/\p{Cs}/u.test(s);

/** Strings up to this many code units are copied by {@link putUtf8}'s loop while they are ASCII. */
const LOOP_MAX = 512;

/**
 * Writes `s` at `at` of `bytes` (room made) as UTF-8; the bytes written, or -1 when `s` holds a
 * lone surrogate (nothing usable written: write its code units instead). A short ASCII string
 * (the usual JSON text and stream id) is copied by a loop, without the view and result object
 * that `encodeInto` takes.
 */
export function putUtf8(bytes: Uint8Array, at: number, s: string): number {
  const n = s.length;
  if (n <= LOOP_MAX) {
    let i = 0;
    for (; i < n; i++) {
      const unit = s.charCodeAt(i);
      if (unit > 0x7f) break;
      bytes[at + i] = unit;
    }
    if (i === n) return n;
  }
  return wellFormed(s) ? ENCODER.encodeInto(s, bytes.subarray(at)).written : -1;
}

/** Writes the UTF-16 code units of `s` at `at` of `bytes` (room made), low byte first; the bytes written. */
export function putUtf16(bytes: Uint8Array, at: number, s: string): number {
  for (let i = 0; i < s.length; i++) {
    const unit = s.charCodeAt(i);
    bytes[at + 2 * i] = unit & 0xff;
    bytes[at + 2 * i + 1] = unit >>> 8;
  }
  return 2 * s.length;
}

/** The string of `length` bytes at `at`, as {@link putUtf8} (or, when `utf16`, {@link putUtf16}) wrote it. */
export function getString(bytes: Uint8Array, at: number, length: number, utf16: boolean): string {
  if (!utf16) return DECODER.decode(bytes.subarray(at, at + length));
  let out = '';
  for (let i = 0; i < length; i += 2 * 4096) {
    const units: number[] = [];
    for (let j = i; j < Math.min(length, i + 2 * 4096); j += 2) units.push(bytes[at + j] | (bytes[at + j + 1] << 8));
    out += String.fromCharCode(...units);
  }
  return out;
}
