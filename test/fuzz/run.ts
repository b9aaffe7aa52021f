/**
 * The fuzz run: batches of mutated frames (./frames.ts) into `mcpgen serve` over stdio and
 * Streamable HTTP of each era, each batch followed by a `ping`, every answer checked by the
 * oracle (./oracle.ts):
 * - every request with a valid id answered exactly once, with exactly its id and a result or a
 *   plausible code; a notification never answered; errors without id only for frames that are
 *   not messages; no server request to a client that declared no capabilities;
 * - clean frames naming an `Object.prototype` member: -32601 for a method, -32602 or an
 *   `isError` result for a tool;
 * - the ping after each batch answered (else a hang), the process alive (else a crash), RSS
 *   sampled after each batch and bounded;
 * - HTTP: every POST ends with a status in time (no reset, no timeout), 2xx/4xx only (503 for
 *   a refusal of load), a foreign Host or Origin refused with 403 whatever the body, a request's
 *   200 carrying exactly one answer to its id, a notification's POST carrying none.
 *
 * Batch `i` of a target is drawn from its own seed (run seed, target, `i`) with ids counted from
 * `i × 10⁶`, so one batch replays alone (`--batch i`). A failing batch is minimized by
 * delta debugging over its frames (the smallest subset still showing the same violation) and
 * can be saved as a regression case (./regressions/*.json, replayed by regressions.test.ts).
 */
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { SseParser } from '../../runtime/codec/sse.js';
import { batchArb, type Era, type Frame, Renderer } from './frames.js';
import {
  type Answer,
  applyCancels,
  type Expectation,
  emptyExpectation,
  expectStdio,
  expectText,
  idKey,
  plausibleCode,
  readAnswer,
} from './oracle.js';
import { HttpTarget, pingText, PROBE_METHOD, rssOf, StdioTarget } from './targets.js';

export type TransportName = 'stdio' | 'http';

export interface FuzzOptions {
  seed: number;
  /** Seconds per target (transport × era). */
  seconds: number;
  transports: TransportName[];
  eras: Era[];
  /** Frames per batch, at most (default 24). */
  maxFrames?: number;
  /** Only this batch of each target (replay). */
  batch?: number;
  /** Minimize failing batches (default true). */
  minimize?: boolean;
  /** Where minimized cases are written (none: not saved). */
  saveDir?: string;
  /** ms a ping (stdio) or a POST (HTTP) may take before it counts as a hang (default 15000). */
  hangMs?: number;
  /** Largest RSS growth over the run, MiB (default 512). */
  rssGrowthMiB?: number;
  log?: (line: string) => void;
}

/** One oracle violation. */
export interface Violation {
  kind: 'crash' | 'hang' | 'wrong';
  /** Stable category, e.g. `hang: request never answered`. */
  category: string;
  detail: string;
}

export interface FailedBatch {
  batch: number;
  violations: Violation[];
  frames: Frame[];
}

export interface TargetReport {
  name: string;
  transport: TransportName;
  era: Era;
  frames: number;
  batches: number;
  seconds: number;
  answers: Record<string, number>;
  statuses: Record<string, number>;
  crashes: number;
  hangs: number;
  wrong: number;
  rssStart: number;
  rssEnd: number;
  rssPeak: number;
  /** Violations by category. */
  categories: Record<string, number>;
  failed: FailedBatch[];
  saved: string[];
}

/** A saved regression case. */
export interface RegressionCase {
  transport: TransportName;
  era: Era;
  seed: number;
  batch: number;
  violation: string;
  /** Each frame's bytes: `b64`, or `gz` (base64 of gzip) for long frames. */
  frames: { label: string; b64?: string; gz?: string; headers?: Record<string, string | null>; rule?: Frame['rule'] }[];
}

/** The seed of batch `i` of a target. */
export function batchSeed(seed: number, target: string, i: number): number {
  return createHash('sha256').update(`${seed}/${target}/${i}`).digest().readInt32LE(0);
}

/** The frames of batch `i` of a target. */
export function drawBatch(seed: number, transport: TransportName, era: Era, i: number, maxFrames: number): Frame[] {
  const [plans] = fc.sample(batchArb(era, maxFrames), { seed: batchSeed(seed, `${transport}/${era}`, i), numRuns: 1 });
  const r = new Renderer(era, i * 1_000_000 + 1, `b${i}`);
  return plans.map((p) => (transport === 'stdio' ? r.stdio(p) : r.http(p)));
}

/** Per-target state the checks update. */
class Tally {
  answers: Record<string, number> = {};
  statuses: Record<string, number> = {};
  crashes = 0;
  hangs = 0;
  wrong = 0;
  categories: Record<string, number> = {};
  count(a: Answer): void {
    const k = a.garbage ? 'garbage' : a.isResult ? (a.isError ? 'result(isError)' : 'result') : String(a.code);
    this.answers[k] = (this.answers[k] ?? 0) + 1;
  }
  add(v: Violation[]): void {
    for (const x of v) {
      this.categories[x.category] = (this.categories[x.category] ?? 0) + 1;
      if (x.kind === 'crash') this.crashes++;
      else if (x.kind === 'hang') this.hangs++;
      else this.wrong++;
    }
  }
}

/** What an earlier batch expected and got (stdio answers may come after their batch's probe). */
interface Recent {
  e: Expectation;
  got: Map<string, number>;
  /** When its batch ended (ms since the epoch). */
  at: number;
}
/**
 * How long a batch's requests may still be answered after it ended, ms: the slowest reference
 * tool runs 60 s (slow_compute), so a late answer within this window is one of its own.
 */
const LATE_ANSWER_MS = 90_000;
const recentOf = new WeakMap<object, Recent[]>();

/** An id key as the JSON text of its id. */
export function keyText(k: string): string {
  if (k.startsWith('s:')) return JSON.stringify(k.slice(2));
  const m = /^n:(-?)(\d+)e(-?\d+)$/.exec(k);
  if (!m) return k;
  const e = Number(m[3]);
  return e >= 0 ? `${m[1]}${m[2]}${'0'.repeat(e)}` : `${m[1]}${m[2]}e${e}`;
}

/** Checks one answer against what was asked; returns its violations. */
function checkAnswer(
  a: Answer,
  e: Expectation,
  got: Map<string, number>,
  rules: Map<string, Frame['rule']>,
  idless: { n: number },
  recent?: Recent[],
): Violation[] {
  const out: Violation[] = [];
  if (a.garbage) return [{ kind: 'wrong', category: 'wrong: not a JSON-RPC message', detail: a.garbage }];
  if (a.method !== undefined) {
    if (a.requestRawId !== undefined && a.method !== 'ping')
      out.push({
        kind: 'wrong',
        category: 'wrong: server request the client did not declare',
        detail: `${a.method} (id ${a.requestRawId})`,
      });
    return out;
  }
  if (!a.isResult && !plausibleCode(a.code))
    out.push({ kind: 'wrong', category: 'wrong: implausible error code', detail: `code ${a.code} for id ${a.rawId}` });
  if (a.key === undefined || a.key === null) {
    idless.n++;
    if (a.isResult) out.push({ kind: 'wrong', category: 'wrong: result without id', detail: '' });
    // the error-id rule (runtime/jsonrpc/message.ts, docs/findings.md): an unknown id is no id member, never null
    else if (a.key === null)
      out.push({ kind: 'wrong', category: 'wrong: error with id null', detail: `code ${a.code}` });
    return out;
  }
  let key = a.key;
  let max = (e.must.get(key) ?? 0) + (e.may.get(key) ?? 0);
  if (max === 0 && key.startsWith('n:')) {
    // an id that went through a double on the way: the request it was meant for, if any
    const same = [...e.must.keys(), ...e.may.keys()].filter(
      (k) => k.startsWith('n:') && Number(k.slice(2)) === Number(key.slice(2)),
    );
    const sent = same.find((k) => (got.get(k) ?? 0) < (e.must.get(k) ?? 0) + (e.may.get(k) ?? 0)) ?? same[0];
    if (sent) {
      out.push({
        kind: 'wrong',
        category: 'wrong: id not echoed exactly',
        detail: `sent ${keyText(sent)}, answered ${a.rawId}`,
      });
      key = sent;
      max = (e.must.get(key) ?? 0) + (e.may.get(key) ?? 0);
    }
  }
  if (max === 0 && recent) {
    // a late answer to a request of an earlier batch (a duplicate id answered after its batch)
    for (const r of recent) {
      const m = (r.e.must.get(key) ?? 0) + (r.e.may.get(key) ?? 0);
      if (m === 0) continue;
      const c = (r.got.get(key) ?? 0) + 1;
      r.got.set(key, c);
      if (c > m)
        out.push({
          kind: 'wrong',
          category: 'wrong: answered more than once',
          detail: `id ${a.rawId} answered ${c} times`,
        });
      return out;
    }
  }
  const n = (got.get(key) ?? 0) + 1;
  got.set(key, n);
  if (max === 0) out.push({ kind: 'wrong', category: 'wrong: answer to an id never sent', detail: `id ${a.rawId}` });
  else if (n > max)
    out.push({
      kind: 'wrong',
      category: 'wrong: answered more than once',
      detail: `id ${a.rawId} answered ${n} times`,
    });
  const rule = rules.get(key);
  if (rule?.rule === 'method-not-found' && (a.isResult || a.code !== -32601)) {
    out.push({
      kind: 'wrong',
      category: 'wrong: prototype member taken as a method',
      detail: `${e.methods.get(key)} → ${a.isResult ? 'result' : a.code}`,
    });
  }
  if (rule?.rule === 'unknown-tool' && !(a.isResult ? a.isError : a.code === -32602)) {
    out.push({
      kind: 'wrong',
      category: 'wrong: prototype member taken as a tool',
      detail: `id ${a.rawId} → ${a.isResult ? 'result' : a.code}`,
    });
  }
  return out;
}

/** The clean-frame rules of a batch, by id key (none for a key that more than one request carries). */
function rulesOf(frames: Frame[], e: Expectation): Map<string, Frame['rule']> {
  const m = new Map<string, Frame['rule']>();
  for (const f of frames) {
    const k = f.rule && idKey(f.rule.rawId)!;
    if (k && (e.must.get(k) ?? 0) + (e.may.get(k) ?? 0) === 1) m.set(k, f.rule);
  }
  return m;
}

/**
 * Ids a session saw before (`0`, `""` recur across batches) may be dropped as reused (a client
 * MUST NOT reuse an id within a session, basic/index "Requests"), and their answers cannot be
 * told apart: their requests become "may", any number of times.
 */
const usedOf = new WeakMap<object, Set<string>>();
function forgetReused(t: object, e: Expectation): void {
  let used = usedOf.get(t);
  if (!used) usedOf.set(t, (used = new Set()));
  for (const k of [...e.must.keys(), ...e.may.keys()]) {
    if (!used.has(k)) continue;
    // which request an answer to a reused id belongs to cannot be told: any count goes
    e.must.delete(k);
    e.may.set(k, Number.MAX_SAFE_INTEGER);
  }
  for (const k of [...e.must.keys(), ...e.may.keys()]) if (k === 'n:0' || k === 's:') used.add(k);
}

/** Runs one stdio batch on a started target; returns its violations (the target is restarted after a crash or hang). */
async function stdioBatch(
  t: StdioTarget,
  frames: Frame[],
  i: number,
  tally: Tally,
  hangMs: number,
): Promise<Violation[]> {
  const bytes = Buffer.concat(frames.map((f) => Buffer.from(f.bytes)));
  const e = expectStdio(bytes);
  forgetReused(t, e);
  const rules = rulesOf(frames, e);
  const got = new Map<string, number>();
  const idless = { n: 0 };
  const out: Violation[] = [];
  const pingRaw = `"fuzz-ping-${i}"`;
  const pingKey = idKey(pingRaw)!;
  let pinged!: () => void;
  const pingSeen = new Promise<void>((r) => (pinged = r));
  let allSeen: (() => void) | undefined;
  const pendingMust = () => [...e.must.keys()].filter((k) => !got.has(k));
  const recent = recentOf.get(t) ?? [];
  recentOf.set(t, recent);
  t.onLine = (line) => {
    const a = readAnswer(line);
    if (a.key === pingKey) {
      if (!a.isResult)
        out.push({ kind: 'wrong', category: 'wrong: ping not answered with a result', detail: line.slice(0, 200) });
      return pinged();
    }
    tally.count(a);
    out.push(...checkAnswer(a, e, got, rules, idless, recent));
    if (allSeen && pendingMust().length === 0) allSeen();
  };
  await t.write(Buffer.concat([bytes, Buffer.from(`\n${pingText(t.era, pingRaw)}\n`)]));
  const timedOut = Symbol('timeout');
  const wait = <T>(p: Promise<T>, ms: number) => {
    let timer: NodeJS.Timeout;
    return Promise.race([p, new Promise<typeof timedOut>((r) => (timer = setTimeout(() => r(timedOut), ms)))]).finally(
      () => clearTimeout(timer),
    );
  };
  const r = await wait(Promise.race([pingSeen, t.exit]), hangMs);
  let restart = false;
  if (t.exited) {
    out.push({
      kind: 'crash',
      category: 'crash: process exited',
      detail: `${t.exitInfo}: ${t.stderrTail.slice(-600)}`,
    });
    restart = true;
  } else if (r === timedOut) {
    out.push({ kind: 'hang', category: 'hang: ping not answered', detail: `after ${hangMs} ms` });
    restart = true;
  } else if (pendingMust().length) {
    await wait(new Promise<void>((res) => (allSeen = res)), Math.min(5000, hangMs));
  }
  if (!restart) {
    for (const k of pendingMust())
      out.push({
        kind: 'hang',
        category: 'hang: request never answered',
        detail: `id ${keyText(k)} (${e.methods.get(k)})`,
      });
    if (idless.n > e.idless)
      out.push({
        kind: 'wrong',
        category: 'wrong: errors without id beyond the frames that are not messages',
        detail: `${idless.n} for ${e.idless}`,
      });
  }
  t.onLine = () => undefined;
  const now = Date.now();
  recent.unshift({ e, got, at: now });
  while (recent.length > 0 && now - recent[recent.length - 1]!.at > LATE_ANSWER_MS) recent.pop();
  tally.add(out);
  if (restart) {
    recent.length = 0;
    usedOf.delete(t);
    await t.stop();
    await t.start();
  }
  return out;
}

const OK_STATUSES = new Set([200, 202, 400, 403, 404, 405, 406, 413, 415, 429, 503]);

/** The JSON-RPC messages of a POST's answer (JSON or SSE). */
function answerLines(r: { contentType?: string; body: string }): string[] {
  const ct = (r.contentType ?? '').toLowerCase();
  if (ct.startsWith('text/event-stream')) {
    const p = new SseParser();
    const events = [...p.push(Buffer.from(r.body)), ...p.end()];
    return events.filter((ev) => ev.data !== '').map((ev) => ev.data);
  }
  if (ct.startsWith('application/json') && r.body.trim()) {
    const t = r.body.trim();
    if (t.startsWith('[')) {
      try {
        return (JSON.parse(t) as unknown[]).map((x) => JSON.stringify(x));
      } catch {
        return [t];
      }
    }
    return [t];
  }
  return [];
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Checks one POST of a frame. */
async function httpFrame(
  t: HttpTarget,
  f: Frame,
  tally: Tally,
  hangMs: number,
  cancels: Set<string>,
): Promise<Violation[]> {
  const headers = f.headers ?? {};
  const r = await t.post(f.bytes, headers, hangMs);
  const out: Violation[] = [];
  if (r.failure?.startsWith('unsendable')) return out;
  tally.statuses[String(r.status ?? r.failure)] = (tally.statuses[String(r.status ?? r.failure)] ?? 0) + 1;
  if (r.failure === 'timeout')
    return [{ kind: 'hang', category: 'hang: POST without a status in time', detail: `${f.label} after ${hangMs} ms` }];
  if (r.status === undefined || r.failure)
    return [{ kind: 'wrong', category: 'wrong: POST ended without its status', detail: `${f.label}: ${r.failure}` }];
  let e: Expectation;
  try {
    e = expectText(utf8.decode(f.bytes));
  } catch {
    e = emptyExpectation();
    e.idless = 1;
    const loose = expectText(new TextDecoder().decode(f.bytes), emptyExpectation(), true);
    e.may = loose.may;
  }
  const foreign = (typeof headers.host === 'string' && headers.host !== '') || typeof headers.origin === 'string';
  if (!OK_STATUSES.has(r.status))
    out.push({ kind: 'wrong', category: `wrong: HTTP ${r.status}`, detail: `${f.label}: ${r.body.slice(0, 200)}` });
  if (foreign && r.status !== 403)
    out.push({
      kind: 'wrong',
      category: 'wrong: foreign Host/Origin not refused with 403',
      detail: `${f.label}: ${r.status}`,
    });
  if (t.era === '2025-11-25') {
    // in a session a cancellation from another POST of the batch may end a request; in the
    // stateless revision it never reaches another POST's request
    applyCancels(e, cancels);
    forgetReused(t, e);
  }
  const got = new Map<string, number>();
  const idless = { n: 0 };
  const rules = rulesOf([f], e);
  for (const line of answerLines(r)) {
    const a = readAnswer(line);
    if (a.method === undefined) tally.count(a);
    out.push(...checkAnswer(a, e, got, rules, idless));
  }
  if (r.status === 200) {
    for (const k of e.must.keys())
      if (!got.has(k))
        out.push({
          kind: 'wrong',
          category: 'wrong: 200 without the answer to its request',
          detail: `${f.label} id ${keyText(k)}`,
        });
    if (e.notification && got.size + idless.n > 0)
      out.push({ kind: 'wrong', category: 'wrong: answer to a notification', detail: f.label });
  }
  if (r.status === 202 && e.must.size > 0)
    out.push({ kind: 'wrong', category: 'wrong: request taken as a notification (202)', detail: f.label });
  if (idless.n > Math.max(1, e.idless))
    out.push({
      kind: 'wrong',
      category: 'wrong: errors without id beyond the frames that are not messages',
      detail: `${f.label}: ${idless.n}`,
    });
  return out;
}

/** Runs one HTTP batch: the frames 4 at a time, then a ping. */
async function httpBatch(
  t: HttpTarget,
  frames: Frame[],
  i: number,
  tally: Tally,
  hangMs: number,
): Promise<Violation[]> {
  const out: Violation[] = [];
  const cancels = new Set<string>();
  for (const f of frames) for (const k of expectText(new TextDecoder().decode(f.bytes)).cancels) cancels.add(k);
  let next = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (next < frames.length) out.push(...(await httpFrame(t, frames[next++], tally, hangMs, cancels)));
    }),
  );
  let restart = t.exited;
  if (t.exited)
    out.push({
      kind: 'crash',
      category: 'crash: process exited',
      detail: `${t.exitInfo}: ${t.stderrTail.slice(-600)}`,
    });
  else {
    const headers: Record<string, string | null> = t.era === 'draft' ? { 'mcp-method': PROBE_METHOD(t.era) } : {};
    const p = await t.post(Buffer.from(pingText(t.era, `"fuzz-ping-${i}"`)), headers, hangMs);
    const ok =
      p.status === 200 &&
      answerLines(p).some((l) => {
        const a = readAnswer(l);
        return a.key === idKey(`"fuzz-ping-${i}"`) && a.isResult;
      });
    if (!ok) {
      if (t.exited)
        out.push({
          kind: 'crash',
          category: 'crash: process exited',
          detail: `${t.exitInfo}: ${t.stderrTail.slice(-600)}`,
        });
      else if (p.failure === 'timeout')
        out.push({ kind: 'hang', category: 'hang: ping not answered', detail: `after ${hangMs} ms` });
      else if (p.status === 404 && t.era === '2025-11-25') {
        out.push({ kind: 'wrong', category: 'wrong: session lost', detail: `ping → 404 ${p.body.slice(0, 200)}` });
        await t.openSession();
      } else
        out.push({
          kind: 'wrong',
          category: 'wrong: ping not answered with a result',
          detail: `${p.status ?? p.failure} ${p.body.slice(0, 200)}`,
        });
      restart = t.exited || p.failure === 'timeout';
    }
  }
  tally.add(out);
  if (restart) {
    usedOf.delete(t);
    await t.stop();
    await t.start();
  }
  return out;
}

type Target = StdioTarget | HttpTarget;
const runBatch = (t: Target, frames: Frame[], i: number, tally: Tally, hangMs: number) =>
  t instanceof StdioTarget ? stdioBatch(t, frames, i, tally, hangMs) : httpBatch(t, frames, i, tally, hangMs);

/**
 * Delta debugging (ddmin) over a failing batch's frames: the smallest subset (within `budget`
 * replays, each on a restarted target) that still shows a violation of `category`.
 */
export async function minimize(
  t: Target,
  frames: Frame[],
  category: string,
  hangMs: number,
  budget = 24,
): Promise<Frame[]> {
  let current = frames;
  let n = 2;
  let tries = 0;
  let replay = 0;
  const fails = async (subset: Frame[]) => {
    tries++;
    // each attempt on a fresh process: what the failing batch left behind must not decide
    await t.stop();
    usedOf.delete(t);
    recentOf.delete(t);
    await t.start();
    const v = await runBatch(t, subset, 900_000 + replay++, new Tally(), hangMs);
    return v.some((x) => x.category === category);
  };
  while (current.length > 1 && tries < budget) {
    const size = Math.ceil(current.length / n);
    const chunks = Array.from({ length: Math.ceil(current.length / size) }, (_, k) =>
      current.slice(k * size, (k + 1) * size),
    );
    let reduced = false;
    for (const c of chunks) {
      if (tries >= budget) break;
      if (await fails(c)) {
        current = c;
        n = 2;
        reduced = true;
        break;
      }
    }
    if (!reduced) {
      for (let k = 0; k < chunks.length && tries < budget && n > 2; k++) {
        const rest = chunks.filter((_, j) => j !== k).flat();
        if (await fails(rest)) {
          current = rest;
          n = Math.max(n - 1, 2);
          reduced = true;
          break;
        }
      }
    }
    if (!reduced) {
      if (n >= current.length) break;
      n = Math.min(current.length, n * 2);
    }
  }
  return current;
}

/** Replays saved frames on a fresh target of their transport and era; returns the violations. */
export async function replayCase(c: RegressionCase, hangMs = 15_000): Promise<Violation[]> {
  const t: Target = c.transport === 'stdio' ? new StdioTarget(c.era) : new HttpTarget(c.era);
  await t.start();
  try {
    const frames: Frame[] = c.frames.map((f) => ({
      label: f.label,
      bytes: f.gz !== undefined ? gunzipSync(Buffer.from(f.gz, 'base64')) : Buffer.from(f.b64 ?? '', 'base64'),
      headers: f.headers,
      rule: f.rule,
    }));
    return await runBatch(t, frames, 0, new Tally(), hangMs);
  } finally {
    await t.stop();
  }
}

/** A frame's bytes as saved: base64, gzipped first when longer than 4 KiB. */
const stored = (b: Uint8Array) =>
  b.length > 4096 ? { gz: gzipSync(b, { level: 9 }).toString('base64') } : { b64: Buffer.from(b).toString('base64') };

const slug = (s: string) =>
  s
    .replace(/[^a-z0-9]+/gi, '-')
    .replace(/^-|-$/g, '')
    .toLowerCase()
    .slice(0, 60);

/** Runs every selected target for `seconds` each, one after another; returns their reports. */
export async function fuzz(o: FuzzOptions): Promise<TargetReport[]> {
  const log = o.log ?? (() => undefined);
  const hangMs = o.hangMs ?? 15_000;
  const maxFrames = o.maxFrames ?? 24;
  const reports: TargetReport[] = [];
  for (const transport of o.transports) {
    for (const era of o.eras) {
      const name = `${transport}.${era}`;
      const t: Target = transport === 'stdio' ? new StdioTarget(era) : new HttpTarget(era);
      await t.start();
      const tally = new Tally();
      const rssStart = rssOf(t.pid);
      let rssPeak = rssStart;
      let frames = 0;
      let batches = 0;
      const failed: FailedBatch[] = [];
      const saved: string[] = [];
      const savedCategories = new Set<string>();
      const started = performance.now();
      let deadline = started + o.seconds * 1000;
      let fuzzMs = 0;
      for (let i = o.batch ?? 0; o.batch !== undefined ? i === o.batch : performance.now() < deadline; i++) {
        const batch = drawBatch(o.seed, transport, era, i, maxFrames);
        const b0 = performance.now();
        const v = await runBatch(t, batch, i, tally, hangMs);
        fuzzMs += performance.now() - b0;
        frames += batch.length;
        batches++;
        rssPeak = Math.max(rssPeak, rssOf(t.pid));
        if (!v.length) continue;
        if (failed.length < 20) failed.push({ batch: i, violations: v, frames: batch });
        log(
          `${name} batch ${i}: ${v
            .slice(0, 3)
            .map((x) => `${x.category} (${x.detail.slice(0, 160)})`)
            .join('; ')}${v.length > 3 ? ` … ${v.length} violations` : ''}`,
        );
        const category = v[0].category;
        if (o.minimize !== false && !savedCategories.has(category)) {
          savedCategories.add(category);
          const m0 = performance.now();
          const small = await minimize(t, batch, category, hangMs);
          deadline += performance.now() - m0; // minimizing does not eat the fuzzing time
          log(
            `${name} batch ${i}: minimized to ${small.length} of ${batch.length} frames: ${small.map((f) => f.label).join(' | ')}`,
          );
          if (o.saveDir) {
            const c: RegressionCase = {
              transport,
              era,
              seed: o.seed,
              batch: i,
              violation: category,
              frames: small.map((f) => ({
                label: f.label,
                ...stored(f.bytes),
                ...(f.headers && Object.keys(f.headers).length ? { headers: f.headers } : {}),
                ...(f.rule ? { rule: f.rule } : {}),
              })),
            };
            const json = JSON.stringify(c, null, 2);
            const file = join(
              o.saveDir,
              `${transport}-${era}-${slug(category)}-${createHash('sha256').update(json).digest('hex').slice(0, 8)}.json`,
            );
            mkdirSync(o.saveDir, { recursive: true });
            writeFileSync(file, `${json}\n`);
            saved.push(file);
            log(`${name}: saved ${file}`);
          }
        }
      }
      const rssEnd = rssOf(t.pid);
      const growth = Math.max(rssPeak, rssEnd) - rssStart;
      if (growth > (o.rssGrowthMiB ?? 512) * 1024 * 1024) {
        tally.add([{ kind: 'wrong', category: 'wrong: memory not bounded', detail: '' }]);
        failed.push({
          batch: -1,
          violations: [
            {
              kind: 'wrong',
              category: 'wrong: memory not bounded',
              detail: `RSS grew ${(growth / 1048576).toFixed(1)} MiB`,
            },
          ],
          frames: [],
        });
      }
      await t.stop();
      reports.push({
        name,
        transport,
        era,
        frames,
        batches,
        seconds: fuzzMs / 1000,
        answers: tally.answers,
        statuses: tally.statuses,
        crashes: tally.crashes,
        hangs: tally.hangs,
        wrong: tally.wrong,
        categories: tally.categories,
        rssStart,
        rssEnd,
        rssPeak,
        failed,
        saved,
      });
    }
  }
  return reports;
}

/** The figures of a report, one `name: value unit` line each. */
export function figures(r: TargetReport): string[] {
  const p = `fuzz.${r.name}`;
  const mib = (b: number) => (b / 1048576).toFixed(1);
  const lines = [
    `${p}.frames: ${r.frames} frames`,
    `${p}.batches: ${r.batches} batches`,
    `${p}.frames_per_s: ${(r.frames / Math.max(r.seconds, 0.001)).toFixed(0)} frames/s`,
    ...Object.entries(r.answers)
      .sort()
      .map(([k, v]) => `${p}.answers.${k}: ${v} answers`),
    ...Object.entries(r.statuses)
      .sort()
      .map(([k, v]) => `${p}.status.${k}: ${v} posts`),
    `${p}.crashes: ${r.crashes} crashes`,
    `${p}.hangs: ${r.hangs} hangs`,
    `${p}.wrong_answers: ${r.wrong} answers`,
    `${p}.rss_start: ${mib(r.rssStart)} MiB`,
    `${p}.rss_end: ${mib(r.rssEnd)} MiB`,
    `${p}.rss_peak: ${mib(r.rssPeak)} MiB`,
    ...Object.entries(r.categories)
      .sort()
      .map(([k, v]) => `${p}.violations.${slug(k)}: ${v} violations`),
  ];
  return lines;
}
