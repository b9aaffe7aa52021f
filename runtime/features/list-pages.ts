/**
 * The pages of `ServerFeatures`' list results (./server-features.ts): `pageSize` items from the
 * offset an opaque cursor names, `nextCursor` while items remain; a cursor this server did not
 * issue (or past the end) is -32602, and one longer than 256 characters is refused unread.
 *
 * @module
 */
import { fromBase64Url, toBase64Url, utf8Bytes, utf8Text } from '../codec/bytes.js';
import { invalid, isObj, type Obj } from './tools.js';

/**
 * The page of `items` under `key` that `params.cursor` names (none: the first).
 * @throws RpcError -32602 `Invalid cursor` for a cursor of another list, malformed, out of range or
 *   longer than any this server issues (256 characters).
 */
export function listPage<K extends string>(pageSize: number, key: K, items: Obj[], params: Obj | undefined): Obj {
  const cursor = params?.cursor;
  let offset = 0;
  if (cursor !== undefined) {
    // longer than any cursor this server issues: refused unread, and not echoed back
    if (typeof cursor === 'string' && cursor.length > MAX_CURSOR_CHARS)
      throw invalid(`Invalid cursor (${cursor.length} characters: not one this server issued)`);
    offset = decodeCursor(cursor, key) ?? -1;
    if (offset < 0 || offset > items.length) throw invalid(`Invalid cursor: ${JSON.stringify(cursor)}`, { cursor });
  }
  const end = offset + pageSize;
  const result: Obj = { [key]: items.slice(offset, end) };
  if (end < items.length) result.nextCursor = encodeCursor(key, end);
  return result;
}

/**
 * The longest cursor read, UTF-16 units: the cursors issued here (base64url of `{"k": list, "o":
 * offset}`) stay under 80; a peer's longer text is not decoded, parsed or echoed.
 */
const MAX_CURSOR_CHARS = 256;

/** Opaque cursor: base64url of `{"k": list, "o": offset}`. */
function encodeCursor(key: string, offset: number): string {
  return toBase64Url(utf8Bytes(JSON.stringify({ k: key, o: offset })));
}

function decodeCursor(cursor: unknown, key: string): number | undefined {
  if (typeof cursor !== 'string' || !/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  try {
    const v: unknown = JSON.parse(utf8Text(fromBase64Url(cursor)));
    if (!isObj(v) || v.k !== key || !Number.isSafeInteger(v.o) || (v.o as number) < 0) return undefined;
    return v.o as number;
  } catch {
    return undefined;
  }
}
