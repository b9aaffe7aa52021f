/**
 * The fuzz oracle: what a frame obliges the server to answer, read from the frame's bytes the
 * way the spec reads them (2025-11-25 `basic/index.mdx`, Messages; `basic/transports.mdx`, stdio;
 * JSON-RPC 2.0 §4–§5), and the check of what came back.
 *
 * - A request with a valid id (a string, or a number written as an integer: no fraction, no
 *   exponent, any length) MUST be answered exactly once with exactly that id.
 * - A request whose id is a number with a fraction or an exponent (`1.5`, `1e2`, `1.0`) MAY be
 *   answered with that id or refused with an error without id; it MUST NOT go unanswered on HTTP.
 * - A notification is never answered. Something that is not a message at all (not JSON, invalid
 *   UTF-8, an array, a scalar) MAY get one error without id (-32700 / -32600), never more.
 * - Answers carry a result or a code from the spec: -32700, -32600, -32601, -32602, -32603,
 *   or the implementation-defined range -32099…-32000; plus -1 (user rejection, 2025-11-25).
 *
 * Ids are compared as JSON values: strings by their decoded text, numbers by their exact decimal
 * value (so `9007199254740993` is not `9007199254740992`), read from the raw text, never
 * through a JS number.
 */

import { jsonTooDeep } from '../../runtime/codec/json-depth.js';

/** The canonical key of a raw JSON id value: `s:<text>`, `n:<exact decimal>`, or undefined. */
export function idKey(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const t = raw.trim();
  if (t.startsWith('"')) {
    try {
      return `s:${JSON.parse(t) as string}`;
    } catch {
      return undefined;
    }
  }
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(t);
  if (!m) return undefined;
  const [, sign, int, frac = '', exp = '0'] = m;
  // exact decimal: digits × 10^e, normalized (no leading zeros, trailing zeros folded into e)
  let digits = (int + frac).replace(/^0+/, '');
  let e = Number(exp) - frac.length;
  if (digits === '') return 'n:0';
  while (digits.endsWith('0')) {
    digits = digits.slice(0, -1);
    e++;
  }
  return `n:${sign}${digits}e${e}`;
}

/** Whether a raw id is a valid MCP request id read strictly: a string, or an integer lexeme. */
export function strictIdKind(raw: string): 'valid' | 'number-form' | 'invalid' {
  const t = raw.trim();
  if (t.startsWith('"')) return idKey(t) === undefined ? 'invalid' : 'valid';
  if (/^-?\d+$/.test(t)) return 'valid';
  if (/^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(t)) return 'number-form';
  return 'invalid';
}

/**
 * The raw text of each member of a top-level JSON object (the last one of a repeated key, as
 * JSON.parse does), or undefined when `text` is not an object. Nothing is converted, so ids keep
 * every digit.
 */
export function rawMembers(text: string): Map<string, string> | undefined {
  let i = 0;
  const n = text.length;
  const ws = () => {
    while (i < n && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++;
  };
  const str = (): string | undefined => {
    const start = i;
    if (text[i] !== '"') return undefined;
    i++;
    while (i < n && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    if (i >= n) return undefined;
    i++;
    return text.slice(start, i);
  };
  const value = (): string | undefined => {
    ws();
    const start = i;
    const c = text[i];
    if (c === '"') return str();
    if (c === '{' || c === '[') {
      let depth = 0;
      while (i < n) {
        const d = text[i];
        if (d === '"') {
          if (str() === undefined) return undefined;
          continue;
        }
        if (d === '{' || d === '[') depth++;
        else if (d === '}' || d === ']') {
          depth--;
          if (depth === 0) {
            i++;
            return text.slice(start, i);
          }
        }
        i++;
      }
      return undefined;
    }
    while (i < n && !/[\s,}\]]/.test(text[i])) i++;
    return i > start ? text.slice(start, i) : undefined;
  };
  ws();
  if (text[i] !== '{') return undefined;
  i++;
  const out = new Map<string, string>();
  ws();
  if (text[i] === '}') return out;
  for (;;) {
    ws();
    const k = str();
    if (k === undefined) return undefined;
    ws();
    if (text[i] !== ':') return undefined;
    i++;
    const v = value();
    if (v === undefined) return undefined;
    let key: string;
    try {
      key = JSON.parse(k) as string;
    } catch {
      return undefined;
    }
    out.delete(key);
    out.set(key, v);
    ws();
    if (text[i] === ',') {
      i++;
      continue;
    }
    if (text[i] === '}') return out;
    return undefined;
  }
}

/** What one message (one stdio line, one POST body) obliges the server to. */
export interface Expectation {
  /** Id keys that must be answered: key → number of requests carrying it (duplicates: 1…n answers). */
  must: Map<string, number>;
  /** Id keys that may be answered (at most as many times as requests carry them). */
  may: Map<string, number>;
  /** How many answers without an id (or `id: null`) it may draw. */
  idless: number;
  /** Methods of the `must` requests, by id key. */
  methods: Map<string, string>;
  /** Whether this is exactly one well-formed notification. */
  notification: boolean;
  /** Id keys named by `notifications/cancelled` (a cancelled request may go unanswered, utilities/cancellation). */
  cancels: Set<string>;
}

export const emptyExpectation = (): Expectation => ({
  must: new Map(),
  may: new Map(),
  idless: 0,
  methods: new Map(),
  notification: false,
  cancels: new Set(),
});

/** Moves the requests a cancellation names from "must" to "may" (answered or not, both are right). */
export function applyCancels(e: Expectation, cancels: Set<string>): void {
  for (const k of cancels) {
    const n = e.must.get(k);
    if (n === undefined) continue;
    e.must.delete(k);
    e.may.set(k, (e.may.get(k) ?? 0) + n);
  }
}

const add = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);

export function mergeExpectations(into: Expectation, e: Expectation): void {
  for (const [k, v] of e.must) into.must.set(k, (into.must.get(k) ?? 0) + v);
  for (const [k, v] of e.may) into.may.set(k, (into.may.get(k) ?? 0) + v);
  for (const [k, v] of e.methods) into.methods.set(k, v);
  into.idless += e.idless;
  for (const k of e.cancels) into.cancels.add(k);
}

const isBlank = (s: string) => /^[ \t\r]*$/.test(s);
const utf8 = new TextDecoder('utf-8', { fatal: true });
const lossy = new TextDecoder('utf-8');

/** The expectation of one JSON text already decoded (one stdio line, one HTTP body). */
export function expectText(text: string, e: Expectation = emptyExpectation(), mayOnly = false): Expectation {
  // nested deeper than the runtime's bound: a parse error (-32700, no id), however well formed
  if (jsonTooDeep(text)) {
    e.idless++;
    return e;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    e.idless++;
    return e;
  }
  if (Array.isArray(value)) {
    // a batch: refused whole (-32600) where the revision has none; its requests may be answered
    // where it has them
    e.idless++;
    const inner = text.trim().slice(1, -1);
    for (const el of splitTopLevel(inner)) expectObject(el, value.length ? e : e, true);
    return e;
  }
  if (typeof value !== 'object' || value === null) {
    e.idless++;
    return e;
  }
  expectObject(text, e, mayOnly);
  return e;
}

/** The raw elements of the inside of a JSON array. */
function splitTopLevel(inner: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < inner.length; i++) {
    const c = inner[i];
    if (c === '"') {
      i++;
      while (i < inner.length && inner[i] !== '"') i += inner[i] === '\\' ? 2 : 1;
    } else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') depth--;
    else if (c === ',' && depth === 0) {
      out.push(inner.slice(start, i));
      start = i + 1;
    }
  }
  if (inner.trim()) out.push(inner.slice(start));
  return out;
}

function expectObject(text: string, e: Expectation, mayOnly: boolean): void {
  let v: Record<string, unknown>;
  try {
    v = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return;
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return;
  const raw = rawMembers(text);
  const own = (k: string) => Object.hasOwn(v, k);
  const hasMethod = own('method') && v.method !== undefined;
  const hasId = own('id');
  if (!hasMethod) {
    // a response (dropped) or an object with nothing of a message, an id or not (-32600 without id)
    if (!own('result') && !own('error')) e.idless++;
    return;
  }
  if (!hasId) {
    const wellFormed =
      v.jsonrpc === '2.0' &&
      typeof v.method === 'string' &&
      !own('result') &&
      !own('error') &&
      (v.params === undefined || (typeof v.params === 'object' && v.params !== null && !Array.isArray(v.params)));
    if (wellFormed) {
      e.notification = true;
      if (v.method === 'notifications/cancelled' && raw?.get('params') !== undefined) {
        const k = idKey(rawMembers(raw.get('params')!)?.get('requestId'));
        if (k !== undefined) e.cancels.add(k);
      }
    } else e.idless++; // a malformed notification: dropped, or refused without id
    return;
  }
  const rawId = raw?.get('id');
  const kind = rawId === undefined ? 'invalid' : strictIdKind(rawId);
  const key = idKey(rawId);
  const wellFormed =
    v.jsonrpc === '2.0' &&
    typeof v.method === 'string' &&
    !own('result') &&
    !own('error') &&
    (v.params === undefined || (typeof v.params === 'object' && v.params !== null && !Array.isArray(v.params)));
  if (kind === 'valid' && key !== undefined && wellFormed && !mayOnly) {
    add(e.must, key);
    e.methods.set(key, v.method as string);
    return;
  }
  if (kind !== 'invalid' && key !== undefined) add(e.may, key);
  if (kind === 'valid' && wellFormed) return; // a "may" only because its reading is uncertain
  e.idless++;
}

/**
 * The expectation of stdio bytes: split on LF, blank lines skipped, each line decoded as UTF-8
 * (a line that is not UTF-8 may be refused; whatever it says is only a "may").
 */
export function expectStdio(bytes: Uint8Array, e: Expectation = emptyExpectation()): Expectation {
  let start = 0;
  for (let i = 0; i <= bytes.length; i++) {
    if (i < bytes.length && bytes[i] !== 0x0a) continue;
    if (i === bytes.length && start === i) break;
    const line = bytes.subarray(start, i);
    start = i + 1;
    let text: string;
    try {
      text = utf8.decode(line);
    } catch {
      e.idless++;
      expectText(lossy.decode(line), emptyMay(e), true);
      continue;
    }
    if (isBlank(text)) continue;
    expectText(text, e);
  }
  applyCancels(e, e.cancels);
  return e;
}

/** A view of `e` whose "must" entries land in `may` (for text whose reading is uncertain). */
function emptyMay(e: Expectation): Expectation {
  const view = emptyExpectation();
  view.must = e.may;
  view.may = e.may;
  return view;
}

/** JSON-RPC / MCP error codes an answer may plausibly carry. */
export function plausibleCode(code: unknown): boolean {
  if (typeof code !== 'number' || !Number.isInteger(code)) return false;
  if ([-32700, -32600, -32601, -32602, -32603, -1].includes(code)) return true;
  return code >= -32099 && code <= -32000;
}

/** One answer line the server wrote, read without converting its id. */
export interface Answer {
  /** `undefined`: no id member; `null`: `id: null`. */
  key: string | undefined | null;
  rawId?: string;
  code?: number;
  isResult: boolean;
  /** For results: `isError` of a tool result. */
  isError?: boolean;
  /** Set when the line is a request or notification from the server. */
  method?: string;
  /** Set when the line is a server request (it has an id and a method). */
  requestRawId?: string;
  /** Set when the line is not a JSON-RPC message at all. */
  garbage?: string;
}

/** Reads one line the server wrote. */
export function readAnswer(text: string): Answer {
  let v: Record<string, unknown>;
  try {
    v = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return { key: undefined, isResult: false, garbage: `not JSON: ${text.slice(0, 120)}` };
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    return { key: undefined, isResult: false, garbage: `not an object: ${text.slice(0, 120)}` };
  const raw = rawMembers(text);
  if (typeof v.method === 'string')
    return { key: undefined, isResult: false, method: v.method, requestRawId: raw?.get('id') };
  const rawId = raw?.get('id');
  const key = rawId === undefined ? undefined : rawId.trim() === 'null' ? null : idKey(rawId);
  if (v.jsonrpc !== '2.0')
    return { key, rawId, isResult: false, garbage: `jsonrpc is not "2.0": ${text.slice(0, 120)}` };
  if ('result' in v) {
    const r = v.result as Record<string, unknown> | null;
    if (typeof r !== 'object' || r === null || Array.isArray(r))
      return { key, rawId, isResult: false, garbage: `result is not an object: ${text.slice(0, 120)}` };
    return { key, rawId, isResult: true, isError: r.isError === true };
  }
  const err = v.error as Record<string, unknown> | undefined;
  if (typeof err !== 'object' || err === null)
    return { key, rawId, isResult: false, garbage: `neither result nor error: ${text.slice(0, 120)}` };
  return { key, rawId, isResult: false, code: err.code as number };
}

/** Names that exist on every object through its prototype: peer-chosen strings must never find them. */
export const PROTOTYPE_NAMES = [
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  'valueOf',
  'isPrototypeOf',
  'propertyIsEnumerable',
  'toLocaleString',
  '__defineGetter__',
  '__lookupSetter__',
];
