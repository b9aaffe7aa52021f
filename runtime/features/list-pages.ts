/**
 * The pages of `ServerFeatures`' list results (./server-features.ts): `pageSize` items from the
 * offset an opaque cursor names, `nextCursor` while items remain; a cursor this server did not
 * issue (or past the end) is -32602.
 *
 * @module
 */
import { fromBase64Url, toBase64Url, utf8Bytes, utf8Text } from '../codec/bytes.js';
import { invalid, isObj, type Obj } from './tools.js';

/**
 * The page of `items` under `key` that `params.cursor` names (none: the first).
 * @throws RpcError -32602 `Invalid cursor` for a cursor of another list, malformed or out of range.
 */
export function listPage<K extends string>(pageSize: number, key: K, items: Obj[], params: Obj | undefined): Obj {
  const cursor = params?.cursor;
  let offset = 0;
  if (cursor !== undefined) {
    offset = decodeCursor(cursor, key) ?? -1;
    if (offset < 0 || offset > items.length) throw invalid(`Invalid cursor: ${JSON.stringify(cursor)}`, { cursor });
  }
  const end = offset + pageSize;
  const result: Obj = { [key]: items.slice(offset, end) };
  if (end < items.length) result.nextCursor = encodeCursor(key, end);
  return result;
}

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
