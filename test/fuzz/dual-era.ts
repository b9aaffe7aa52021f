/**
 * The dual-era property (issue 45): over the dual-era endpoints (`mcpgen serve --rev draft`,
 * stdio and Streamable HTTP), for random sequences of both eras' messages, valid and mutated,
 * every request id gets exactly one answer and no answer names an id that was never sent as a
 * request (JSON-RPC 2.0 §5: one response per request, echoing its id).
 *
 * A sequence ("run") is drawn with fast-check from its own seed (run seed, transport, run
 * number), so one run replays alone. Its messages mix:
 * - eras: the modern `_meta` (2026-07-28), none (legacy), both (`_meta` and, over HTTP, a
 *   2025-11-25 session's headers), a broken `_meta` (a version that is not a string, or one
 *   no era serves);
 * - kinds: requests of both eras (`initialize` and `server/discover` among them), requests named
 *   like notifications (`notifications/cancelled` with an id, …), notifications (cancellations
 *   of earlier requests of the run, request names without an id), client responses to nothing,
 *   batches, invalid messages (wrong `jsonrpc`, `method` or `params` types, an id that is no id,
 *   `result` beside `method`), bytes that are no JSON; over HTTP, header mutations (no or an
 *   unknown session, no `Mcp-Method`, another protocol version).
 *
 * Each id encodes its run and place (`seq = run × 1000 + k`) in one of four forms: an integer
 * `seq + 1`, its negation, a string `r<run>k<k>`, an integer beyond 2^53 (`10^22 + seq`); a
 * client response's id is a string `q<seq>`. An answer is read back from its raw id text, so
 * a double, an answer to a response or notification, an unknown id, and an id not echoed in
 * its form are told apart without keeping a table of every id sent.
 *
 * What each message obliges the server to: a well-formed request: exactly one answer (over
 * HTTP an error status without a JSON-RPC body is that answer); a cancelled request, a
 * request inside a batch, an invalid message with a readable id: at most one; anything else:
 * none with its id (an error without id only for messages whose id cannot be read, batches,
 * and bytes that are no JSON, at most one each).
 *
 * The stdio process is restarted every `restartEvery` runs, so sequences meet the pipe before
 * and after a 2025-11-25 `initialize`. The HTTP target holds one 2025-11-25 session (declaring
 * sampling, elicitation and roots, so the server's requests and the client's responses cross
 * the front), re-opened when lost; sessions other messages open are deleted.
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { SseParser } from '../../runtime/codec/sse.js';
import { encodeHeaderValue } from '../../runtime/transport/http/stateless/headers.js';
import { META, MODERN_VERSION } from './frames.js';
import { rawMembers } from './oracle.js';
import { HttpTarget, StdioTarget } from './targets.js';

type Obj = Record<string, unknown>;
export type DualTransport = 'stdio' | 'http';

/** Runs whose books are kept for late answers (older ones are dropped: memory stays bounded). */
const KEPT_RUNS = 2000;
/** Places per run: ids encode `run × RUN_STRIDE + k`. */
const RUN_STRIDE = 1000;
const BIG_BASE = 10n ** 22n;

type Marker = 'modern' | 'legacy' | 'both' | 'bad-meta';
type IdForm = 'int' | 'negative' | 'string' | 'big';
type Invalid = 'jsonrpc' | 'method-type' | 'params-array' | 'result-and-method' | 'id-null' | 'id-object' | 'id-bool';
type HeaderOp = 'none' | 'no-session' | 'unknown-session' | 'no-mcp-method' | 'other-version';

/** One message's plan. */
export interface Plan {
  kind: 'request' | 'notification' | 'response' | 'batch' | 'invalid' | 'garbage';
  method: string;
  params?: Obj;
  marker: Marker;
  id: IdForm;
  /** notifications/cancelled: which earlier request of the run it names (a fraction of the ones before). */
  target?: number;
  invalid?: Invalid;
  inner?: Plan[];
  garbage?: number[];
  header: HeaderOp;
}

const INIT_PARAMS = (caps: Obj) => ({
  protocolVersion: '2025-11-25',
  capabilities: caps,
  clientInfo: { name: 'dual-era-property', version: '1' },
});
const FULL_CAPS = { sampling: {}, elicitation: {}, roots: {} };

/** Tools of either era, quick ones (none runs longer than ~50 ms), and names no era has. */
const TOOLS: [string, Obj][] = [
  ['echo', { text: 'hi' }],
  ['test_simple_text', {}],
  ['test_error_handling', {}],
  ['test_tool_with_progress', {}],
  ['test_tool_with_logging', {}],
  ['test_sampling', { prompt: 'hi' }],
  ['test_elicitation', { message: 'who?' }],
  ['test_logging_tool', {}],
  ['test_input_required_result_elicitation', {}],
  ['greet', { name: 'x' }],
  ['slow_compute', { seconds: 0 }],
  ['no_such_tool', {}],
  ['constructor', {}],
];

const requestBase: fc.Arbitrary<{ method: string; params?: Obj }> = fc.oneof(
  { weight: 6, arbitrary: fc.constant({ method: 'ping' }) },
  { weight: 3, arbitrary: fc.constant({ method: 'server/discover' }) },
  {
    weight: 2,
    arbitrary: fc.constantFrom<Obj>({}, FULL_CAPS).map((caps) => ({ method: 'initialize', params: INIT_PARAMS(caps) })),
  },
  { weight: 2, arbitrary: fc.constant({ method: 'tools/list' }) },
  {
    weight: 8,
    arbitrary: fc
      .constantFrom(...TOOLS)
      .map(([name, args]) => ({ method: 'tools/call', params: { name, arguments: args } })),
  },
  { weight: 1, arbitrary: fc.constant({ method: 'resources/list' }) },
  { weight: 1, arbitrary: fc.constant({ method: 'resources/read', params: { uri: 'test://static-text' } }) },
  { weight: 1, arbitrary: fc.constant({ method: 'prompts/list' }) },
  { weight: 1, arbitrary: fc.constant({ method: 'prompts/get', params: { name: 'test_simple_prompt' } }) },
  {
    weight: 1,
    arbitrary: fc.constant({
      method: 'completion/complete',
      params: {
        ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' },
        argument: { name: 'arg1', value: 'a' },
      },
    }),
  },
  { weight: 1, arbitrary: fc.constant({ method: 'logging/setLevel', params: { level: 'debug' } }) },
  // notification names as requests
  {
    weight: 5,
    arbitrary: fc.constantFrom(
      { method: 'notifications/cancelled', params: { requestId: 'zz' } },
      { method: 'notifications/initialized' },
      { method: 'notifications/progress', params: { progressToken: 1, progress: 1 } },
      { method: 'notifications/message', params: { level: 'info', data: 'x' } },
      { method: 'notifications/roots/list_changed' },
    ),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom({ method: 'fuzz/unknown' }, { method: 'toString' }, { method: '__proto__' }),
  },
);

const notificationBase: fc.Arbitrary<{ method: string; params?: Obj }> = fc.oneof(
  { weight: 3, arbitrary: fc.constant({ method: 'notifications/initialized' }) },
  { weight: 5, arbitrary: fc.constant({ method: 'notifications/cancelled' }) },
  {
    weight: 1,
    arbitrary: fc.constant({ method: 'notifications/progress', params: { progressToken: 1, progress: 1 } }),
  },
  { weight: 1, arbitrary: fc.constant({ method: 'notifications/roots/list_changed' }) },
  // request names without an id: notifications nobody answers
  { weight: 2, arbitrary: fc.constantFrom({ method: 'ping' }, { method: 'tools/list' }, { method: 'initialize' }) },
);

const marker = fc.constantFrom<Marker>('modern', 'modern', 'legacy', 'legacy', 'both', 'bad-meta');
const idForm = fc.constantFrom<IdForm>('int', 'int', 'negative', 'string', 'string', 'big');
const headerOp = fc.oneof(
  { weight: 16, arbitrary: fc.constant<HeaderOp>('none') },
  {
    weight: 1,
    arbitrary: fc.constantFrom<HeaderOp>('no-session', 'unknown-session', 'no-mcp-method', 'other-version'),
  },
);

const single: fc.Arbitrary<Plan> = fc.oneof(
  {
    weight: 12,
    arbitrary: fc
      .record({ base: requestBase, marker, id: idForm, header: headerOp })
      .map(({ base, ...r }) => ({ kind: 'request' as const, ...base, ...r })),
  },
  {
    weight: 5,
    arbitrary: fc
      .record({ base: notificationBase, marker, target: fc.double({ min: 0, max: 1, noNaN: true }), header: headerOp })
      .map(({ base, ...r }) => ({ kind: 'notification' as const, id: 'int' as const, ...base, ...r })),
  },
  {
    weight: 2,
    arbitrary: fc.record({ marker, header: headerOp, error: fc.boolean() }).map(({ error, ...r }) => ({
      kind: 'response' as const,
      method: error ? 'error' : 'result',
      id: 'string' as const,
      ...r,
    })),
  },
  {
    weight: 2,
    arbitrary: fc
      .record({
        base: requestBase,
        marker,
        id: idForm,
        header: headerOp,
        invalid: fc.constantFrom<Invalid>(
          'jsonrpc',
          'method-type',
          'params-array',
          'result-and-method',
          'id-null',
          'id-object',
          'id-bool',
        ),
      })
      .map(({ base, ...r }) => ({ kind: 'invalid' as const, ...base, ...r })),
  },
  {
    weight: 1,
    arbitrary: fc
      .record({
        garbage: fc.array(fc.integer({ min: 0x20, max: 0x7e }), { minLength: 1, maxLength: 24 }),
        header: headerOp,
      })
      .map((r) => ({ kind: 'garbage' as const, method: '', marker: 'legacy' as const, id: 'int' as const, ...r })),
  },
);

const planArb: fc.Arbitrary<Plan> = fc.oneof(
  { weight: 30, arbitrary: single },
  {
    weight: 1,
    arbitrary: fc
      .record({ inner: fc.array(single, { minLength: 1, maxLength: 3 }), header: headerOp })
      .map((r) => ({ kind: 'batch' as const, method: '', marker: 'legacy' as const, id: 'int' as const, ...r })),
  },
);

/** A run's plans: 20 to 160 messages. */
export const runArb = fc.array(planArb, { minLength: 20, maxLength: 160 });

/** The seed of run `i` of a transport. */
export function runSeed(seed: number, transport: DualTransport, i: number): number {
  return createHash('sha256').update(`dual-era/${seed}/${transport}/${i}`).digest().readInt32LE(0);
}

/** Draws run `i`. */
export function drawRun(seed: number, transport: DualTransport, i: number): Plan[] {
  return fc.sample(runArb, { seed: runSeed(seed, transport, i), numRuns: 1 })[0];
}

/** What an answer to a place may be: none, at most one, exactly one. */
const NONE = 0;
const MAY = 1;
const MUST = 2;

/** The form code of an id text (kept per place to check the echo). */
const FORM = { int: 1, negative: 2, string: 3, big: 4, response: 5 } as const;

/** One rendered message. */
export interface Rendered {
  text: string;
  /** HTTP header overrides (null drops). */
  headers: Record<string, string | null>;
  /** The place whose answer the message obliges (a request or an invalid one), if any. */
  place?: number;
  /** Places of the requests inside a batch. */
  innerPlaces: number[];
  /** May draw one error without id. */
  idless: boolean;
  /** The message's plan. */
  plan: Plan;
}

/** The answers a run expects and the ones that came, per place; kept for the whole test. */
class RunBook {
  readonly expect = new Uint8Array(RUN_STRIDE);
  readonly got = new Uint8Array(RUN_STRIDE);
  readonly form = new Uint8Array(RUN_STRIDE);
  readonly what: string[] = [];
  /** Answers without id this run may draw. */
  idless = 0;
}

/** Totals and the first violations. */
export interface DualReport {
  transport: DualTransport;
  runs: number;
  messages: number;
  requests: number;
  answers: number;
  idlessAnswers: number;
  doubleAnswers: number;
  unknownIdAnswers: number;
  idNotEchoed: number;
  unanswered: number;
  idlessExcess: number;
  serverRequests: number;
  /** HTTP: answers to server requests whose POST failed (a request waiting on one may end unanswered). */
  serverAnswerFailures: number;
  restarts: number;
  /** stdio: runs sent to a pipe a 2025-11-25 initialize had initialized. */
  runsInitialized: number;
  seconds: number;
  /** When the ledger started (performance.now(), ms). */
  startedAt: number;
  violations: string[];
}

/** The totals and the checks over one transport's target. */
export class Ledger {
  readonly books = new Map<number, RunBook>();
  readonly report: DualReport;
  constructor(transport: DualTransport) {
    this.report = {
      transport,
      runs: 0,
      messages: 0,
      requests: 0,
      answers: 0,
      idlessAnswers: 0,
      doubleAnswers: 0,
      unknownIdAnswers: 0,
      idNotEchoed: 0,
      unanswered: 0,
      idlessExcess: 0,
      serverRequests: 0,
      serverAnswerFailures: 0,
      restarts: 0,
      runsInitialized: 0,
      seconds: 0,
      startedAt: performance.now(),
      violations: [],
    };
  }

  violation(kind: keyof DualReport, detail: string): void {
    (this.report[kind] as number)++;
    if (this.report.violations.length < 40) this.report.violations.push(`${kind}: ${detail}`);
  }

  /** Renders a run's plans (ids from the run's number), recording what each place expects. */
  render(run: number, plans: Plan[], transport: DualTransport, sessionId: () => string | undefined): Rendered[] {
    const book = new RunBook();
    this.books.set(run, book);
    // an answer to a run this far back is a violation still (its id then names no kept run)
    this.books.delete(run - KEPT_RUNS);
    let k = 0;
    const requestPlaces: number[] = [];
    const out: Rendered[] = [];
    const place = (): number => {
      if (k >= RUN_STRIDE) throw new Error('run too long');
      return k++;
    };
    const idText = (form: IdForm, p: number): string => {
      const seq = run * RUN_STRIDE + p;
      book.form[p] = FORM[form];
      switch (form) {
        case 'int':
          return String(seq + 1);
        case 'negative':
          return String(-(seq + 1));
        case 'string':
          return JSON.stringify(`r${run}k${p}`);
        case 'big':
          return (BIG_BASE + BigInt(seq)).toString();
      }
    };
    let cancelTarget: string | undefined;
    const paramsOf = (plan: Plan): Obj | undefined => {
      cancelTarget = undefined;
      let params: Obj | undefined = plan.params === undefined ? undefined : structuredClone(plan.params);
      if (plan.kind === 'notification' && plan.method === 'notifications/cancelled') {
        const before = requestPlaces.length;
        const target = before
          ? requestPlaces[Math.min(before - 1, Math.floor((plan.target ?? 0) * before))]
          : undefined;
        if (target !== undefined) {
          // the request it names may end unanswered (utilities/cancellation)
          if (book.expect[target] === MUST) book.expect[target] = MAY;
          // the id's exact text goes in after JSON.stringify (a big one is no JS number)
          params = { requestId: REQUEST_ID_SLOT, reason: 'property' };
          cancelTarget = idTextOf(run, target, book.form[target]);
        } else params = { requestId: 'nothing', reason: 'property' };
      }
      if (plan.marker === 'modern' || plan.marker === 'both')
        params = { ...(params ?? {}), _meta: { ...(params?._meta as Obj | undefined), ...META } };
      if (plan.marker === 'bad-meta')
        params = {
          ...(params ?? {}),
          _meta: {
            ...META,
            'io.modelcontextprotocol/protocolVersion': plan.method.length % 2 ? 20260728 : '2099-01-01',
          },
        };
      return params;
    };
    /** One message's JSON text (an id place taken when it carries one). */
    const messageText = (plan: Plan, inBatch: boolean, r: { place?: number; inner: number[] }): string => {
      const params = paramsOf(plan);
      const members: string[] = [];
      const jsonrpc = plan.invalid === 'jsonrpc' ? '"1.0"' : '"2.0"';
      members.push(`"jsonrpc":${jsonrpc}`);
      if (plan.kind === 'response') {
        const p = place();
        book.form[p] = FORM.response;
        book.what[p] = `response ${plan.method}`;
        members.push(`"id":"q${run * RUN_STRIDE + p}"`);
        members.push(plan.method === 'error' ? '"error":{"code":-32601,"message":"no"}' : '"result":{"roots":[]}');
        return `{${members.join(',')}}`;
      }
      let idMember: string | undefined;
      if (plan.kind === 'request' || plan.kind === 'invalid') {
        if (plan.invalid === 'id-null') idMember = 'null';
        else if (plan.invalid === 'id-object') idMember = '{"n":1}';
        else if (plan.invalid === 'id-bool') idMember = 'true';
        else {
          const p = place();
          idMember = idText(plan.id, p);
          book.what[p] = `${plan.kind} ${plan.method} (${plan.marker}${plan.invalid ? `, ${plan.invalid}` : ''})`;
          if (inBatch) {
            book.expect[p] = MAY;
            r.inner.push(p);
          } else if (plan.kind === 'invalid') {
            book.expect[p] = MAY;
            r.place = p;
          } else {
            book.expect[p] = MUST;
            r.place = p;
            requestPlaces.push(p);
          }
        }
      }
      if (idMember !== undefined) members.push(`"id":${idMember}`);
      members.push(`"method":${plan.invalid === 'method-type' ? '7' : JSON.stringify(plan.method)}`);
      if (plan.invalid === 'params-array') members.push('"params":[1]');
      else if (params !== undefined) {
        const text = JSON.stringify(params);
        members.push(`"params":${cancelTarget ? text.replace(`"${REQUEST_ID_SLOT}"`, cancelTarget) : text}`);
      }
      if (plan.invalid === 'result-and-method') members.push('"result":{}');
      return `{${members.join(',')}}`;
    };
    for (const plan of plans) {
      const r: { place?: number; inner: number[] } = { inner: [] };
      let text: string;
      let idless = false;
      if (plan.kind === 'garbage') {
        text = Buffer.from(plan.garbage ?? [0x7b]).toString('latin1');
        idless = true;
      } else if (plan.kind === 'batch') {
        text = `[${(plan.inner ?? []).map((p) => messageText(p, true, r)).join(',')}]`;
        idless = true;
      } else {
        text = messageText(plan, false, r);
        idless = plan.invalid === 'id-null' || plan.invalid === 'id-object' || plan.invalid === 'id-bool';
      }
      if (idless) book.idless++;
      out.push({
        text,
        headers: transport === 'http' ? headersOf(plan, sessionId()) : {},
        place: r.place,
        innerPlaces: r.inner,
        idless,
        plan,
      });
    }
    this.report.messages += out.length;
    this.report.requests += book.expect.reduce((n, e) => n + (e === MUST ? 1 : 0), 0);
    return out;
  }

  /** Counts one answer (a JSON-RPC response the server wrote); returns its place when it names one. */
  answer(line: string): number | undefined {
    let v: Obj;
    try {
      v = JSON.parse(line) as Obj;
    } catch {
      this.violation('unknownIdAnswers', `not JSON: ${line.slice(0, 120)}`);
      return undefined;
    }
    if (typeof v !== 'object' || v === null || Array.isArray(v)) {
      this.violation('unknownIdAnswers', `not a message: ${line.slice(0, 120)}`);
      return undefined;
    }
    if (typeof v.method === 'string') {
      if (v.id !== undefined) this.report.serverRequests++;
      return undefined; // a server request or notification
    }
    this.report.answers++;
    const raw = rawMembers(line)?.get('id');
    if (raw === undefined || raw.trim() === 'null') {
      this.report.idlessAnswers++;
      return undefined;
    }
    const decoded = decodeId(raw.trim());
    const book = decoded && this.books.get(decoded.run);
    if (!decoded || !book) {
      const late =
        decoded && decoded.run >= 0 && decoded.run < this.report.runs ? ` (or a run over ${KEPT_RUNS} runs back)` : '';
      this.violation('unknownIdAnswers', `id ${raw} names nothing sent${late}: ${line.slice(0, 160)}`);
      return undefined;
    }
    const { p, form } = decoded;
    if (book.expect[p] === NONE) {
      this.violation(
        'unknownIdAnswers',
        `id ${raw} was no request (${book.what[p] ?? 'a notification or response'}): ${line.slice(0, 160)}`,
      );
      return p;
    }
    if (book.form[p] !== form) this.violation('idNotEchoed', `place ${decoded.run}/${p} answered as ${raw}`);
    book.got[p]++;
    if (book.got[p] > 1)
      this.violation(
        'doubleAnswers',
        `${book.what[p]}, id ${raw}, answered ${book.got[p]} times: ${line.slice(0, 160)}`,
      );
    return p;
  }

  /** An HTTP refusal without a JSON-RPC body: the answer of the message's request. */
  refusal(run: number, p: number): void {
    const book = this.books.get(run)!;
    this.report.answers++;
    book.got[p]++;
    if (book.got[p] > 1) this.violation('doubleAnswers', `${book.what[p]} refused after an answer`);
  }

  /** The places of a run still owed an answer. */
  pending(run: number): number[] {
    const book = this.books.get(run);
    if (!book) return [];
    const out: number[] = [];
    for (let p = 0; p < RUN_STRIDE; p++) if (book.expect[p] === MUST && book.got[p] === 0) out.push(p);
    return out;
  }

  /** Ends a run: its unanswered requests are violations. */
  close(run: number): void {
    const book = this.books.get(run)!;
    for (const p of this.pending(run)) this.violation('unanswered', `${book.what[p]} (place ${run}/${p})`);
    this.report.runs++;
  }

  /**
   * Ends runs sent together (stdio): besides {@link close}, the answers without id since
   * `idlessBefore` are at most one per message whose id cannot be read.
   */
  closeGroup(runs: number[], idlessBefore: number): void {
    let may = 0;
    for (const run of runs) {
      may += this.books.get(run)!.idless;
      this.close(run);
    }
    const idless = this.report.idlessAnswers - idlessBefore;
    if (idless > may)
      this.violation('idlessExcess', `runs ${runs.join(', ')}: ${idless} answers without id for ${may}`);
  }
}

const REQUEST_ID_SLOT = '\u0000request-id';

/** The id text of a place in its recorded form. */
function idTextOf(run: number, p: number, form: number): string {
  const seq = run * RUN_STRIDE + p;
  if (form === FORM.int) return String(seq + 1);
  if (form === FORM.negative) return String(-(seq + 1));
  if (form === FORM.string) return JSON.stringify(`r${run}k${p}`);
  return (BIG_BASE + BigInt(seq)).toString();
}

/** The run, place and form an id text encodes, or undefined. */
export function decodeId(raw: string): { run: number; p: number; form: number } | undefined {
  let seq: number;
  let form: number;
  if (/^\d{23,}$/.test(raw)) {
    const s = BigInt(raw) - BIG_BASE;
    if (s < 0n || s > BigInt(Number.MAX_SAFE_INTEGER)) return undefined;
    seq = Number(s);
    form = FORM.big;
  } else if (/^[1-9]\d{0,15}$/.test(raw)) {
    seq = Number(raw) - 1;
    form = FORM.int;
  } else if (/^-[1-9]\d{0,15}$/.test(raw)) {
    seq = -Number(raw) - 1;
    form = FORM.negative;
  } else if (raw.startsWith('"')) {
    let s: string;
    try {
      s = JSON.parse(raw) as string;
    } catch {
      return undefined;
    }
    const m = /^r(\d+)k(\d+)$/.exec(s) ?? /^q(\d+)$/.exec(s);
    if (!m) return undefined;
    if (m.length === 3) return { run: Number(m[1]), p: Number(m[2]), form: FORM.string };
    seq = Number(m[1]);
    form = FORM.response;
  } else return undefined;
  return { run: Math.floor(seq / RUN_STRIDE), p: seq % RUN_STRIDE, form };
}

/** The headers a client of the message's era sends, then the plan's mutation. */
function headersOf(plan: Plan, sessionId: string | undefined): Record<string, string | null> {
  const h: Record<string, string | null> = {};
  const modern = plan.marker === 'modern' || plan.marker === 'both' || plan.marker === 'bad-meta';
  const legacy = plan.marker === 'legacy' || plan.marker === 'both';
  // a 2025-11-25 initialize opens its own session
  const opens = plan.method === 'initialize' && plan.marker === 'legacy';
  if (modern) {
    h['mcp-protocol-version'] = MODERN_VERSION;
    if (plan.method) h['mcp-method'] = encodeHeaderValue(plan.method);
    const name = plan.params?.name ?? plan.params?.uri;
    if (typeof name === 'string') h['mcp-name'] = encodeHeaderValue(name);
  } else h['mcp-protocol-version'] = '2025-11-25';
  if (legacy && !opens && sessionId) h['mcp-session-id'] = sessionId;
  if (!modern) {
    h['mcp-method'] = null;
    if (opens) h['mcp-protocol-version'] = null;
  }
  switch (plan.header) {
    case 'no-session':
      h['mcp-session-id'] = null;
      break;
    case 'unknown-session':
      h['mcp-session-id'] = 'no-such-session';
      break;
    case 'no-mcp-method':
      h['mcp-method'] = null;
      break;
    case 'other-version':
      h['mcp-protocol-version'] = h['mcp-protocol-version'] === MODERN_VERSION ? '2025-11-25' : MODERN_VERSION;
      break;
  }
  return h;
}

/** The JSON-RPC messages of an HTTP reply (JSON or SSE), as text. */
function replyLines(contentType: string | undefined, body: string): string[] {
  const ct = (contentType ?? '').toLowerCase();
  if (ct.startsWith('text/event-stream')) {
    const p = new SseParser();
    return [...p.push(Buffer.from(body)), ...p.end()].filter((e) => e.data !== '').map((e) => e.data);
  }
  if (ct.startsWith('application/json') && body.trim()) {
    const t = body.trim();
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

export interface DualOptions {
  seed: number;
  /** Messages per transport, at least (runs are drawn until reached). */
  messages: number;
  transports: DualTransport[];
  /** Restart the stdio process every this many runs (default 25). */
  restartEvery?: number;
  /** How long a run's requests may stay unanswered, ms (default 20000). */
  answerMs?: number;
  /** stdio: runs on the pipe at once (default 4). */
  lanes?: number;
  /** Only this run (replay). */
  run?: number;
  log?: (line: string) => void;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** The server processes the property runs now (killed by {@link killTargets}). */
const live = new Set<StdioTarget | HttpTarget>();
/** What the property is doing (for a watchdog's message). */
export const state = { phase: 'not started' };

/** Kills every server process the property started that still runs (a watchdog's way out). */
export function killTargets(): void {
  for (const t of live) if (!t.exited) t.child?.kill('SIGKILL');
  live.clear();
}

/** Runs the property on each transport; returns one report per transport. */
export async function runDualEra(o: DualOptions): Promise<DualReport[]> {
  const reports: DualReport[] = [];
  for (const transport of o.transports) reports.push(transport === 'stdio' ? await overStdio(o) : await overHttp(o));
  return reports;
}

async function overStdio(o: DualOptions): Promise<DualReport> {
  const ledger = new Ledger('stdio');
  const answerMs = o.answerMs ?? 20_000;
  const restartEvery = o.restartEvery ?? 25;
  const lanes = o.run === undefined ? Math.max(1, o.lanes ?? 4) : 1;
  const started = performance.now();
  /** Runs waiting for their requests' answers. */
  const waiting = new Map<number, () => void>();
  /** Probes waiting for their answer, by id text. */
  const probes = new Map<string, () => void>();
  /** A 2025-11-25 initialize succeeded on the current pipe. */
  let initialized = false;
  const onLine = (line: string) => {
    if (line.includes('"probe-')) {
      const id = rawMembers(line)?.get('id')?.trim();
      const done = id === undefined ? undefined : probes.get(id);
      if (done && !line.includes('"method"')) return done();
    }
    if (!initialized && line.includes('"result"') && line.includes('"protocolVersion":"2025-11-25"'))
      initialized = true;
    const p = ledger.answer(line);
    if (p === undefined) return;
    for (const [run, done] of waiting) if (ledger.pending(run).length === 0) done();
  };
  // start() takes the target's line handler for its readiness probe: ours goes on after it
  const spawnTarget = (): Promise<StdioTarget> => {
    const target = new StdioTarget('draft');
    live.add(target);
    // a start may take long on a loaded machine (the sources load through tsx)
    target.startTimeoutMs = 120_000;
    const started = target.start().then(
      () => {
        void target.exit.then(() => live.delete(target));
        return target;
      },
      async (e: Error) => {
        await target.stop();
        throw e;
      },
    );
    started.catch(() => undefined); // a spare is awaited later: its failure is handled there
    return started;
  };
  const take = async (next: Promise<StdioTarget>): Promise<StdioTarget> => {
    let target: StdioTarget | undefined;
    for (let attempt = 0; !target; attempt++)
      try {
        target = await (attempt ? spawnTarget() : next);
      } catch (e) {
        if (attempt >= 2) throw e;
        o.log?.(`stdio: a server did not start (${(e as Error).message}); starting another`);
      }
    target.onLine = onLine;
    initialized = false;
    return target;
  };
  let t = await take(spawnTarget());
  // the next process starts while this one is fuzzed (a start costs seconds)
  let spare: Promise<StdioTarget> | undefined = o.run === undefined ? spawnTarget() : undefined;
  let sinceStart = 0;

  /** One run on the pipe: its messages in one write, its answers, then a probe behind them. */
  const oneRun = async (i: number): Promise<void> => {
    state.phase = `stdio run ${i}: writing`;
    const rendered = ledger.render(i, drawRun(o.seed, 'stdio', i), 'stdio', () => undefined);
    const bytes = Buffer.from(`${rendered.map((r) => r.text).join('\n')}\n`, 'utf8');
    const all = new Promise<void>((resolve) => waiting.set(i, resolve));
    await t.write(bytes);
    state.phase = `stdio run ${i}: waiting for answers`;
    if (ledger.pending(i).length) await Promise.race([all, sleep(answerMs), t.exit]);
    state.phase = `stdio run ${i}: probe`;
    waiting.delete(i);
    // what a run's last requests may still draw (a second answer, an error without id) comes
    // before the answer to a probe sent after them
    if (!t.exited && !(await probe(t, i, probes))) ledger.violation('unanswered', `run ${i}: the probe after it`);
  };

  for (let i = o.run ?? 0; o.run !== undefined ? i === o.run : ledger.report.messages < o.messages; i += lanes) {
    if (spare && initialized && sinceStart >= restartEvery) {
      // a fresh pipe: the next runs meet it before a 2025-11-25 initialize
      void t.stop();
      t = await take(spare);
      spare = spawnTarget();
      sinceStart = 0;
      ledger.report.restarts++;
    }
    const group = Array.from({ length: lanes }, (_, k) => i + k);
    if (initialized) ledger.report.runsInitialized += lanes;
    sinceStart += lanes;
    const idlessBefore = ledger.report.idlessAnswers;
    // a group's runs go on the pipe at once, interleaved run by run
    await Promise.all(group.map(oneRun));
    if (t.exited) {
      ledger.violation('unanswered', `run ${i}: the process exited (${t.exitInfo}): ${t.stderrTail.slice(-400)}`);
      t = await take(spare ?? spawnTarget());
      spare = o.run === undefined ? spawnTarget() : undefined;
      sinceStart = 0;
      ledger.report.restarts++;
    }
    ledger.closeGroup(group, idlessBefore);
    if (i % 200 < lanes) o.log?.(`stdio run ${i}: ${progress(ledger.report)}`);
  }
  await sleep(500); // any late answer still counts
  await t.stop();
  if (spare) await (await spare).stop();
  ledger.report.seconds = (performance.now() - started) / 1000;
  return ledger.report;
}

/**
 * Sends a modern `server/discover` with a probe id and waits (at most 10 s) for its answer;
 * whether it came.
 */
async function probe(t: StdioTarget, run: number, probes: Map<string, () => void>): Promise<boolean> {
  const id = `"probe-${run}"`;
  const answered = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), 10_000);
    probes.set(id, () => {
      clearTimeout(timer);
      resolve(true);
    });
    void t.write(
      `{"jsonrpc":"2.0","id":${id},"method":"server/discover","params":{"_meta":${JSON.stringify(META)}}}\n`,
    );
  });
  probes.delete(id);
  return answered;
}

async function overHttp(o: DualOptions): Promise<DualReport> {
  const ledger = new Ledger('http');
  const t = new HttpTarget('draft');
  live.add(t);
  state.phase = 'http: starting';
  const started = performance.now();
  await t.start();
  let session = await openSession(t, FULL_CAPS);
  const answerMs = o.answerMs ?? 20_000;
  for (let i = o.run ?? 0; o.run !== undefined ? i === o.run : ledger.report.messages < o.messages; i++) {
    state.phase = `http run ${i}`;
    const rendered = ledger.render(i, drawRun(o.seed, 'http', i), 'http', () => session);
    let next = 0;
    let lost = false;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < rendered.length) {
          const r = rendered[next++];
          const res = await t.post(Buffer.from(r.text, 'utf8'), r.headers, answerMs);
          if (res.failure) {
            ledger.violation('unanswered', `POST ${r.plan.kind} ${r.plan.method}: ${res.failure}`);
            continue;
          }
          let named = false;
          let idless = 0;
          for (const line of replyLines(res.contentType, res.body)) {
            const before = ledger.report.idlessAnswers;
            if (ledger.answer(line) === r.place) named = true;
            idless += ledger.report.idlessAnswers - before;
          }
          // an error without id: the body of a refusal (a 4xx, Streamable HTTP's "JSON-RPC error
          // response that has no id"), or the answer to a message whose id cannot be read; one per POST
          const mayIdless = r.idless || (res.status !== undefined && res.status >= 400) ? 1 : 0;
          if (idless > mayIdless)
            ledger.violation(
              'idlessExcess',
              `POST ${r.plan.kind} ${r.plan.method}: ${idless} answers without id (status ${res.status}): ${res.body.slice(0, 160)}`,
            );
          if (r.place !== undefined && !named) {
            if (res.status !== undefined && res.status >= 400) ledger.refusal(i, r.place);
            // a 2xx without the answer stays owed (a violation when the run ends)
          }
          if (res.status === 404 && r.headers['mcp-session-id'] === session) lost = true;
          // a session another message opened is ended (the main one is kept)
          const opened = res.headers?.['mcp-session-id'];
          if (typeof opened === 'string' && opened !== session)
            await fetch(t.url, {
              method: 'DELETE',
              headers: { 'mcp-session-id': opened, 'mcp-protocol-version': '2025-11-25' },
              signal: AbortSignal.timeout(5000),
            })
              .then((d) => d.arrayBuffer())
              .catch(() => undefined);
        }
      }),
    );
    if (t.exited) {
      ledger.violation('unanswered', `run ${i}: the process exited (${t.exitInfo}): ${t.stderrTail.slice(-400)}`);
      await t.start();
      ledger.report.restarts++;
      lost = true;
    }
    if (lost) session = await openSession(t, FULL_CAPS);
    ledger.close(i);
    if (i % 200 === 0) o.log?.(`http run ${i}: ${progress(ledger.report)}`);
  }
  await t.stop();
  live.delete(t);
  ledger.report.serverAnswerFailures = t.serverAnswerFailures.length;
  for (const f of t.serverAnswerFailures.slice(0, 10))
    ledger.report.violations.push(`(the client's answer failed: ${f})`);
  ledger.report.seconds = (performance.now() - started) / 1000;
  return ledger.report;
}

/** Opens a 2025-11-25 session declaring `caps`; returns its id. */
async function openSession(t: HttpTarget, caps: Obj): Promise<string> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 'open', method: 'initialize', params: INIT_PARAMS(caps) });
  const r = await t.post(Buffer.from(body), { 'mcp-protocol-version': null }, 30_000);
  const sid = r.headers?.['mcp-session-id'];
  if (r.status !== 200 || typeof sid !== 'string')
    throw new Error(`initialize failed: ${r.status} ${r.failure ?? ''} ${r.body.slice(0, 200)}`);
  await t.post(
    Buffer.from('{"jsonrpc":"2.0","method":"notifications/initialized"}'),
    { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' },
    30_000,
  );
  return sid;
}

/** The figures of a report, one `name: value unit` line each. */
export function dualFigures(r: DualReport): string[] {
  const p = `dual_era.${r.transport}`;
  return [
    `${p}.messages: ${r.messages} messages`,
    `${p}.requests: ${r.requests} requests`,
    `${p}.runs: ${r.runs} runs`,
    `${p}.answers: ${r.answers} answers`,
    `${p}.answers_without_id: ${r.idlessAnswers} answers`,
    `${p}.server_requests: ${r.serverRequests} requests`,
    ...(r.transport === 'http' ? [`${p}.server_request_answers_failed: ${r.serverAnswerFailures} answers`] : []),
    `${p}.double_answers: ${r.doubleAnswers} answers`,
    `${p}.unknown_id_answers: ${r.unknownIdAnswers} answers`,
    `${p}.id_not_echoed: ${r.idNotEchoed} answers`,
    `${p}.unanswered: ${r.unanswered} requests`,
    `${p}.idless_excess: ${r.idlessExcess} ${r.transport === 'http' ? 'posts' : 'runs'}`,
    `${p}.restarts: ${r.restarts} restarts`,
    ...(r.transport === 'stdio' ? [`${p}.runs_on_initialized_pipe: ${r.runsInitialized} runs`] : []),
    `${p}.seconds: ${r.seconds.toFixed(1)} s`,
    `${p}.messages_per_s: ${(r.messages / Math.max(r.seconds, 0.001)).toFixed(0)} messages/s`,
  ];
}

/** A progress line: messages so far and the violations among them (a stopped run still tells). */
const progress = (r: DualReport): string =>
  `${r.messages} messages, ${r.requests} requests, ${r.doubleAnswers} double answers, ${r.unknownIdAnswers} unknown ids, ${r.idNotEchoed} not echoed, ${r.unanswered} unanswered, ${r.idlessExcess} idless excess, ${((performance.now() - r.startedAt) / 1000).toFixed(0)} s`;

/** Whether a report holds no violation. */
export const clean = (r: DualReport): boolean =>
  r.doubleAnswers + r.unknownIdAnswers + r.idNotEchoed + r.unanswered + r.idlessExcess === 0;
