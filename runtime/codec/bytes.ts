/**
 * Bytes ↔ text without `node:buffer`, for code that runs on Node, browsers, workers, Bun and
 * Deno alike: UTF-8, Base64 (RFC 4648 §4) and base64url (RFC 4648 §5, unpadded on output),
 * hex. Decoders are strict: a character outside the alphabet is an error, never skipped.
 */

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8');

/** UTF-8 bytes of `text`. */
export function utf8Bytes(text: string): Uint8Array {
  return encoder.encode(text);
}

/** `bytes` as UTF-8 text; invalid sequences become U+FFFD. */
export function utf8Text(bytes: Uint8Array): string {
  return decoder.decode(bytes);
}

/** Standard Base64 with padding. */
export function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000)
    binary += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000) as unknown as number[]);
  return btoa(binary);
}

/** base64url without padding. */
export function toBase64Url(bytes: Uint8Array): string {
  return toBase64(bytes).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/**
 * Decodes standard Base64 (padding optional).
 * @throws TypeError on a character outside the alphabet or a length that no encoding has.
 */
export function fromBase64(text: string): Uint8Array {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.replace(/=+$/, '').length % 4 === 1)
    throw new TypeError('invalid Base64');
  const padded = text.replace(/=+$/, '');
  const binary = atob(padded + '='.repeat((4 - (padded.length % 4)) % 4));
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

/**
 * Decodes base64url (padding optional).
 * @throws TypeError on a character outside the alphabet or an impossible length.
 */
export function fromBase64Url(text: string): Uint8Array {
  if (!/^[A-Za-z0-9_-]*={0,2}$/.test(text)) throw new TypeError('invalid base64url');
  return fromBase64(text.replace(/-/g, '+').replace(/_/g, '/'));
}

/** Lower-case hex. */
export function toHex(bytes: Uint8Array): string {
  let out = '';
  for (const b of bytes) out += (b < 16 ? '0' : '') + b.toString(16);
  return out;
}

/** `parts` joined into one array. */
export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  let size = 0;
  for (const p of parts) size += p.length;
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Equality of two byte arrays in time that depends on their lengths only. */
export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i] ^ b[i];
  return diff === 0;
}

/** `n` bytes from the platform's CSPRNG (Web Crypto `getRandomValues`). */
export function randomBytes(n: number): Uint8Array {
  return globalThis.crypto.getRandomValues(new Uint8Array(n));
}
