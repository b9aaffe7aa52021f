// size: the model diff: views, comparison and rendering; split pending (#36)
/**
 * diff: a semantic comparison of two ProtocolModels (`mcpgen diff A B`). Pure: no I/O, output
 * depends only on the two models (sorted, no timestamps). Also a small line diff of two texts
 * for `mcpgen check` (firstLineDiff).
 *
 * What is compared: the lifecycle and protocol version; requests and notifications per
 * direction (added, removed, moved to another direction, embedded in an InputRequiredResult or
 * not, gating capability, result type and alternative results); the params and result schemas
 * of every method present in both, walked through `$ref`s in `model.types` property by
 * property (recursively, at most `maxDepth` levels, never re-entering a named type already on
 * the path); ClientCapabilities and ServerCapabilities the same way; named types added, removed
 * or newly deprecated; error codes.
 *
 * Paths: `<method> params.<field>`, `<method> result.<field>`, `[]` an array's items, `{}` a
 * map's values, `<Name>` a union member (its type name, its `prop=const` discriminator or its
 * JSON type), e.g. `tools/call params.arguments`, `tools/call result.content[]<TextContent>.text`.
 *
 * Union members are matched by type name, then by `prop=const` discriminator, then by JSON type,
 * so a renamed member (ResourceReference → ResourceTemplateReference) or an inline object that
 * became a named one is compared rather than reported removed and added; `{}` and a union of
 * every JSON type (JSONValue) count as the same.
 *
 * Breaking: each change is classified separately for a client implementer and a server
 * implementer ("an implementation written against A must change to stay correct against B").
 * Every payload has a sender and a receiver: request params are sent by the request's sender
 * (the client for clientToServer) and received by the other side; a result goes the other way;
 * notification params go with the notification; ClientCapabilities are sent by the client,
 * ServerCapabilities by the server. The rules, in terms of sender (S) and receiver (R):
 *
 * | change                                              | breaking for             |
 * |-----------------------------------------------------|--------------------------|
 * | field added, optional                               | nobody                   |
 * | field added, required                               | S (must now send it)     |
 * | field removed                                       | R (read it); S too when the object is closed (additionalProperties: false) |
 * | optional → required                                 | S (must now send it)     |
 * | required → optional                                 | R (may no longer get it) |
 * | narrowed: number → integer, any → string, string → enum or const, enum value removed, union member removed, constraint added or tightened, object closed | S (values it sent are now invalid) |
 * | widened: integer → number, object → any, enum or const → string, enum value added, union member added, constraint removed or loosened, object opened | R (gets values it does not handle) |
 * | changed otherwise: string → object, const changed, format or pattern changed | S and R |
 * | request added                                       | R when no capability gates it (must implement it); otherwise nobody |
 * | request removed                                     | S (calls now fail with method not found) |
 * | request moved to other direction(s)                 | the union of the removed and added rules per direction |
 * | request now / no longer embedded (InputRequiredResult) | S and R (both change how it travels) |
 * | gating capability added or changed                  | S (must check it) and R (must declare it) |
 * | gating capability removed                           | R (must handle it undeclared) |
 * | result type renamed                                 | nobody (its fields are compared separately) |
 * | alternative result added (InputRequiredResult, CreateTaskResult) | the requester, who receives it |
 * | alternative result removed                          | the responder, who may no longer answer with it |
 * | notification added                                  | nobody (unknown notifications are ignored) |
 * | notification removed                                | R (it no longer arrives) |
 * | capability (in *Capabilities) added / removed / changed | the field rules above, owner = S |
 * | named type added / removed / deprecated             | nobody (wire effects are reported where the type is used) |
 * | error code added                                    | nobody |
 * | error code removed or renumbered                    | client and server (the schema does not say which side sends it) |
 * | lifecycle changed (handshake ↔ stateless)           | client and server |
 * | protocol version changed                            | nobody (negotiated) |
 */
import type { Direction, JsonSchema, ProtocolModel } from './model.js';
import { byCodeUnit, stableJson } from './util.js';

export type Party = 'client' | 'server';

export type Section =
  | 'lifecycle'
  | 'methods'
  | 'notifications'
  | 'params'
  | 'results'
  | 'capabilities'
  | 'types'
  | 'errors';
/** Report order of the sections. */
export const SECTIONS: readonly Section[] = [
  'lifecycle',
  'methods',
  'notifications',
  'params',
  'results',
  'capabilities',
  'types',
  'errors',
];
export const SECTION_TITLES: Readonly<Record<Section, string>> = {
  lifecycle: 'Lifecycle',
  methods: 'Requests',
  notifications: 'Notifications',
  params: 'Params fields',
  results: 'Result fields',
  capabilities: 'Capabilities',
  types: 'Named types',
  errors: 'Error codes',
};

export type ChangeKind =
  | 'lifecycle'
  | 'protocol-version'
  | 'method-added'
  | 'method-removed'
  | 'notification-added'
  | 'notification-removed'
  | 'direction'
  | 'embedded'
  | 'capability-gate'
  | 'result-type'
  | 'alt-result-added'
  | 'alt-result-removed'
  | 'field-added'
  | 'field-removed'
  | 'optional-to-required'
  | 'required-to-optional'
  | 'type'
  | 'enum'
  | 'const'
  | 'variant-added'
  | 'variant-removed'
  | 'constraint'
  | 'type-added'
  | 'type-removed'
  | 'deprecated'
  | 'error-code-added'
  | 'error-code-removed'
  | 'error-code-changed';

export interface Breaking {
  client: boolean;
  server: boolean;
}

export interface Change {
  section: Section;
  kind: ChangeKind;
  /** What changed: a method, a field path (`tools/call params.arguments`), a type or an error name. */
  subject: string;
  /** The method the change belongs to, when it belongs to one. */
  method: string | null;
  direction: Direction | null;
  before: string | null;
  after: string | null;
  /** One line for people. */
  detail: string;
  breaking: Breaking;
}

export interface ModelRef {
  revision: string;
  protocolVersion: string;
  lifecycle: ProtocolModel['lifecycle'];
}

export interface Counts {
  total: number;
  breakingForClient: number;
  breakingForServer: number;
}

export interface DiffReport {
  from: ModelRef;
  to: ModelRef;
  /** Sorted by section (SECTIONS order), subject, direction, kind, detail. */
  changes: Change[];
  summary: Counts & {
    breaking: number;
    bySection: Record<Section, Counts>;
    byKind: Partial<Record<ChangeKind, number>>;
  };
}

export interface DiffOptions {
  /** How many levels below a params/result/capabilities root the walk descends. Default 10. */
  maxDepth?: number;
}

export const DEFAULT_MAX_DEPTH = 10;

/** Who a change breaks, relative to the payload: its sender, its receiver, both or nobody. */
type Effect = 'none' | 'sender' | 'receiver' | 'both';
interface Roles {
  sender: Party;
  receiver: Party;
}

const fromOf = (d: Direction): Party => (d === 'clientToServer' ? 'client' : 'server');
const toOf = (d: Direction): Party => (d === 'clientToServer' ? 'server' : 'client');
const other = (p: Party): Party => (p === 'client' ? 'server' : 'client');

function breakingOf(effect: Effect, roles: Roles): Breaking {
  const b: Breaking = { client: false, server: false };
  if (effect === 'sender' || effect === 'both') b[roles.sender] = true;
  if (effect === 'receiver' || effect === 'both') b[roles.receiver] = true;
  return b;
}
const anyBreaking = (...bs: Breaking[]): Breaking => ({
  client: bs.some((b) => b.client),
  server: bs.some((b) => b.server),
});
const NOBODY: Breaking = { client: false, server: false };
const BOTH: Breaking = { client: true, server: true };

// ---------------------------------------------------------------------------------------------
// Schema views

const REF_PREFIX = '#/$defs/';
const refName = (s: unknown): string | undefined => {
  const r = isObj(s) ? s.$ref : undefined;
  return typeof r === 'string' && r.startsWith(REF_PREFIX) ? r.slice(REF_PREFIX.length) : undefined;
};
function isObj(v: unknown): v is JsonSchema {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}

interface View {
  /** The schema with `$ref`s followed and `allOf` members merged. */
  s: JsonSchema;
  /** Named types followed to get here, outermost first. */
  names: string[];
}

/**
 * Follows `$ref`s and merges `allOf` members. Returns 'cycle' when a named type on `stack` would
 * be entered again, undefined for a reference to a type the model does not have.
 */
function viewOf(model: ProtocolModel, raw: unknown, stack: readonly string[]): View | 'cycle' | undefined {
  if (!isObj(raw)) return raw === true || raw === undefined ? { s: {}, names: [] } : undefined;
  const names: string[] = [];
  let cur: JsonSchema = raw;
  for (let i = 0; i < 64; i++) {
    const n = refName(cur);
    if (!n) break;
    if (stack.includes(n) || names.includes(n)) return 'cycle';
    const t = model.types[n];
    if (!t) return undefined;
    names.push(n);
    cur = t.schema;
  }
  if (!Array.isArray(cur.allOf)) return { s: cur, names };
  const merged: JsonSchema = { ...cur };
  delete merged.allOf;
  const props: JsonSchema = { ...((merged.properties as JsonSchema | undefined) ?? {}) };
  const required = new Set<string>((merged.required as string[] | undefined) ?? []);
  for (const member of cur.allOf as unknown[]) {
    const v = viewOf(model, member, [...stack, ...names]);
    if (!v || v === 'cycle') continue;
    for (const [k, x] of Object.entries(v.s)) {
      if (k === 'properties' && isObj(x)) Object.assign(props, x);
      else if (k === 'required' && Array.isArray(x)) for (const r of x) required.add(String(r));
      else if (!(k in merged)) merged[k] = x;
    }
  }
  if (Object.keys(props).length) merged.properties = props;
  if (required.size) merged.required = [...required].sort(byCodeUnit);
  return { s: merged, names };
}

const unionOf = (s: JsonSchema): unknown[] | undefined =>
  Array.isArray(s.anyOf) ? (s.anyOf as unknown[]) : Array.isArray(s.oneOf) ? (s.oneOf as unknown[]) : undefined;

/** Literal values a schema allows (`const` or `enum`), or null when it does not list them. */
function valuesOf(s: JsonSchema): unknown[] | null {
  if ('const' in s) return [s.const];
  return Array.isArray(s.enum) ? (s.enum as unknown[]) : null;
}

/** The JSON types a schema allows; empty means any. */
function typesOf(s: JsonSchema): string[] {
  if (typeof s.type === 'string') return [s.type];
  if (Array.isArray(s.type)) return [...new Set(s.type as string[])].sort(byCodeUnit);
  const vals = valuesOf(s);
  if (vals) return [...new Set(vals.map(jsonTypeOf))].sort(byCodeUnit);
  if (isObj(s.properties) || s.additionalProperties !== undefined) return ['object'];
  if (s.items !== undefined) return ['array'];
  return [];
}
function jsonTypeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}
const showTypes = (t: string[]): string => (t.length ? t.join(' | ') : 'any');
const showValue = (v: unknown): string => JSON.stringify(v) ?? 'undefined';
const showValues = (vs: unknown[]): string => vs.map(showValue).sort(byCodeUnit).join(', ');

const ALL_TYPES = ['array', 'boolean', 'null', 'number', 'object', 'string'];
/** A schema that constrains nothing (`{}`, or only annotations). */
const isAny = (s: JsonSchema): boolean => typesOf(s).length === 0 && !unionOf(s);

/** The JSON types a schema allows, looking through union members; empty means any. */
function typesDeep(model: ProtocolModel, s: JsonSchema, stack: readonly string[], depth = 0): string[] {
  const members = unionOf(s);
  if (!members) return typesOf(s);
  const out = new Set<string>();
  for (const m of members) {
    const v = viewOf(model, m, stack);
    if (!v || v === 'cycle' || depth > 4) return [];
    const t = typesDeep(model, v.s, [...stack, ...v.names], depth + 1);
    if (t.length === 0) return [];
    for (const x of t) out.add(x);
  }
  if (covers([...out], ALL_TYPES)) return [];
  return [...out].sort(byCodeUnit);
}

/** Whether every type in `narrow` is allowed by `wide` (integer is a number). */
function covers(wide: string[], narrow: string[]): boolean {
  if (wide.length === 0) return true;
  if (narrow.length === 0) return false;
  return narrow.every((t) => wide.includes(t) || (t === 'integer' && wide.includes('number')));
}

/** The `prop=const` discriminator of an object schema (`type`, `kind`, `method`, `mode` first). */
function discriminatorOf(model: ProtocolModel, s: JsonSchema): string | null {
  const props = isObj(s.properties) ? s.properties : {};
  const order = ['type', 'kind', 'method', 'mode'];
  const keys = Object.keys(props).sort((x, y) => {
    const ix = order.indexOf(x);
    const iy = order.indexOf(y);
    return (ix < 0 ? order.length : ix) - (iy < 0 ? order.length : iy) || byCodeUnit(x, y);
  });
  for (const k of keys) {
    const pv = viewOf(model, props[k], []);
    if (pv && pv !== 'cycle' && 'const' in pv.s) return `${k}=${String(pv.s.const)}`;
  }
  return null;
}

const CONSTRAINTS = [
  'format',
  'pattern',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'minProperties',
  'maxProperties',
  'uniqueItems',
] as const;

function constraintEffect(k: (typeof CONSTRAINTS)[number], a: unknown, b: unknown): Effect {
  if (a === undefined) return 'sender';
  if (b === undefined) return 'receiver';
  if (typeof a === 'number' && typeof b === 'number') {
    const lower = k.startsWith('min') || k === 'exclusiveMinimum';
    return (lower ? b > a : b < a) ? 'sender' : 'receiver';
  }
  if (k === 'uniqueItems') return b === true ? 'sender' : 'receiver';
  return 'both';
}

// ---------------------------------------------------------------------------------------------
// The walk

interface WalkCtx {
  a: ProtocolModel;
  b: ProtocolModel;
  out: Change[];
  maxDepth: number;
  section: Section;
  method: string | null;
  direction: Direction | null;
  roles: Roles;
}

function push(
  ctx: WalkCtx,
  kind: ChangeKind,
  subject: string,
  effect: Effect,
  detail: string,
  before: string | null = null,
  after: string | null = null,
) {
  ctx.out.push({
    section: ctx.section,
    kind,
    subject,
    method: ctx.method,
    direction: ctx.direction,
    before,
    after,
    detail,
    breaking: breakingOf(effect, ctx.roles),
  });
}

function walk(
  ctx: WalkCtx,
  path: string,
  rawA: unknown,
  rawB: unknown,
  depth: number,
  stA: readonly string[],
  stB: readonly string[],
) {
  if (depth > ctx.maxDepth) return;
  const va = viewOf(ctx.a, rawA, stA);
  const vb = viewOf(ctx.b, rawB, stB);
  if (!va || !vb || va === 'cycle' || vb === 'cycle') return;
  compareViews(ctx, path, rawA, rawB, va, vb, depth, [...stA, ...va.names], [...stB, ...vb.names]);
}

// size: one comparison per kind of change; split pending (#36)
function compareViews(
  ctx: WalkCtx,
  path: string,
  rawA: unknown,
  rawB: unknown,
  va: View,
  vb: View,
  depth: number,
  stA: readonly string[],
  stB: readonly string[],
) {
  const ua = unionOf(va.s);
  const ub = unionOf(vb.s);
  if (ua || ub) {
    // `{}` against a union (e.g. JSONValue): compare what each allows instead of members
    if ((!ua && isAny(va.s)) || (!ub && isAny(vb.s))) {
      const ta = typesDeep(ctx.a, va.s, stA);
      const tb = typesDeep(ctx.b, vb.s, stB);
      const wider = covers(tb, ta);
      const narrower = covers(ta, tb);
      if (!(wider && narrower))
        push(
          ctx,
          'type',
          path,
          wider ? 'receiver' : narrower ? 'sender' : 'both',
          `${showTypes(ta)} → ${showTypes(tb)}`,
          showTypes(ta),
          showTypes(tb),
        );
      return;
    }
    compareUnions(ctx, path, rawA, rawB, va, vb, depth, stA, stB);
    return;
  }
  const A = va.s;
  const B = vb.s;

  // literal values (const / enum)
  const xa = valuesOf(A);
  const xb = valuesOf(B);
  if (xa && xb) {
    const key = (v: unknown) => stableJson(v);
    const ka = new Set(xa.map(key));
    const kb = new Set(xb.map(key));
    const added = xb.filter((v) => !ka.has(key(v)));
    const removed = xa.filter((v) => !kb.has(key(v)));
    if ('const' in A && 'const' in B) {
      if (added.length || removed.length)
        push(
          ctx,
          'const',
          path,
          'both',
          `const ${showValue(A.const)} → ${showValue(B.const)}`,
          showValue(A.const),
          showValue(B.const),
        );
    } else if (added.length || removed.length) {
      const effect: Effect = added.length && removed.length ? 'both' : added.length ? 'receiver' : 'sender';
      const parts = [
        added.length ? `values added: ${showValues(added)}` : '',
        removed.length ? `values removed: ${showValues(removed)}` : '',
      ];
      push(ctx, 'enum', path, effect, parts.filter(Boolean).join('; '), showValues(xa), showValues(xb));
    }
  } else if (xa || xb) {
    const kind: ChangeKind = 'const' in A || 'const' in B ? 'const' : 'enum';
    const show = (s: JsonSchema, x: unknown[] | null) =>
      x ? ('const' in s ? `const ${showValue(s.const)}` : `enum ${showValues(x)}`) : showTypes(typesOf(s));
    push(ctx, kind, path, xa ? 'receiver' : 'sender', `${show(A, xa)} → ${show(B, xb)}`, show(A, xa), show(B, xb));
  }

  // JSON types
  const ta = typesOf(A);
  const tb = typesOf(B);
  if (showTypes(ta) !== showTypes(tb)) {
    const wider = covers(tb, ta);
    const narrower = covers(ta, tb);
    const effect: Effect = wider && !narrower ? 'receiver' : narrower && !wider ? 'sender' : 'both';
    push(ctx, 'type', path, effect, `${showTypes(ta)} → ${showTypes(tb)}`, showTypes(ta), showTypes(tb));
  }

  // constraints
  for (const k of CONSTRAINTS) {
    const a = A[k];
    const b = B[k];
    if (stableJson(a ?? null) === stableJson(b ?? null)) continue;
    const show = (v: unknown) => (v === undefined ? '(none)' : showValue(v));
    push(
      ctx,
      'constraint',
      path,
      constraintEffect(k, a, b),
      `${k} ${show(a)} → ${show(b)}`,
      a === undefined ? null : show(a),
      b === undefined ? null : show(b),
    );
  }

  // object members
  const objA = ta.includes('object') || isObj(A.properties);
  const objB = tb.includes('object') || isObj(B.properties);
  if (objA && objB) {
    const pa = (isObj(A.properties) ? A.properties : {}) as JsonSchema;
    const pb = (isObj(B.properties) ? B.properties : {}) as JsonSchema;
    const ra = new Set((A.required as string[] | undefined) ?? []);
    const rb = new Set((B.required as string[] | undefined) ?? []);
    for (const k of [...new Set([...Object.keys(pa), ...Object.keys(pb)])].sort(byCodeUnit)) {
      const sub = `${path}.${k}`;
      const inA = Object.hasOwn(pa, k);
      const inB = Object.hasOwn(pb, k);
      if (!inA) {
        const req = rb.has(k);
        push(
          ctx,
          'field-added',
          sub,
          req ? 'sender' : 'none',
          `added (${req ? 'required' : 'optional'})`,
          null,
          req ? 'required' : 'optional',
        );
      } else if (!inB) {
        const closed = B.additionalProperties === false;
        const open =
          !closed &&
          B.additionalProperties !== undefined &&
          isObj(B.additionalProperties) &&
          isAny(B.additionalProperties);
        push(
          ctx,
          'field-removed',
          sub,
          closed ? 'both' : 'receiver',
          `removed (was ${ra.has(k) ? 'required' : 'optional'})${open ? '; still allowed as an additional property' : ''}`,
          ra.has(k) ? 'required' : 'optional',
          null,
        );
      } else {
        if (ra.has(k) && !rb.has(k))
          push(ctx, 'required-to-optional', sub, 'receiver', 'required → optional', 'required', 'optional');
        if (!ra.has(k) && rb.has(k))
          push(ctx, 'optional-to-required', sub, 'sender', 'optional → required', 'optional', 'required');
        walk(ctx, sub, pa[k], pb[k], depth + 1, stA, stB);
      }
    }
    const apA = A.additionalProperties;
    const apB = B.additionalProperties;
    if ((apA === false) !== (apB === false)) {
      const closing = apB === false;
      push(
        ctx,
        'constraint',
        path,
        closing ? 'sender' : 'receiver',
        closing ? 'additional properties no longer allowed' : 'additional properties now allowed',
        closing ? 'open' : 'closed',
        closing ? 'closed' : 'open',
      );
    } else if (apA !== false && (isObj(apA) || isObj(apB))) {
      walk(ctx, `${path}{}`, apA ?? {}, apB ?? {}, depth + 1, stA, stB);
    }
  }

  // array items
  if (isObj(A.items) && isObj(B.items)) walk(ctx, `${path}[]`, A.items, B.items, depth + 1, stA, stB);
}

function compareUnions(
  ctx: WalkCtx,
  path: string,
  rawA: unknown,
  rawB: unknown,
  va: View,
  vb: View,
  depth: number,
  stA: readonly string[],
  stB: readonly string[],
) {
  /** A union member: named by its type name, else its discriminator, else its JSON type. */
  type Member = { key: string; disc: string | null; sig: string; raw: unknown; view?: View };
  const members = (model: ProtocolModel, raw: unknown, v: View, stack: readonly string[]): Map<string, Member> => {
    const list: Array<{ raw: unknown; view?: View }> = unionOf(v.s)?.map((r) => ({ raw: r })) ?? [{ raw, view: v }];
    const out = new Map<string, Member>();
    for (const m of list) {
      const got = m.view ?? viewOf(model, m.raw, stack);
      const mv = got && got !== 'cycle' ? got : undefined;
      const disc = mv ? discriminatorOf(model, mv.s) : null;
      const sig = showTypes(mv ? typesOf(mv.s) : []);
      let key = (m.view ? m.view.names[0] : (refName(m.raw) ?? mv?.names[0])) ?? disc ?? sig;
      for (let i = 2; out.has(key); i++) key = `${key.replace(/#\d+$/, '')}#${i}`;
      out.set(key, { key, disc, sig, ...m });
    }
    return out;
  };
  const ma = members(ctx.a, rawA, va, stA);
  const mb = members(ctx.b, rawB, vb, stB);
  const pairs: Array<[Member, Member]> = [];
  const onlyA = [...ma.values()].filter((m) => !mb.has(m.key));
  const onlyB = [...mb.values()].filter((m) => !ma.has(m.key));
  for (const m of ma.values()) if (mb.has(m.key)) pairs.push([m, mb.get(m.key)!]);
  // a renamed member keeps its discriminator (ResourceReference → ResourceTemplateReference), an
  // inline member that became a named one keeps its JSON type (object → JSONObject)
  for (const by of ['disc', 'sig'] as const) {
    const unique = (ms: Member[], v: string) => ms.filter((m) => m[by] === v).length === 1;
    for (const x of [...onlyA]) {
      const v = x[by];
      if (!v || v === 'any' || !unique(onlyA, v) || !unique(onlyB, v)) continue;
      const y = onlyB.find((m) => m[by] === v)!;
      pairs.push([x, y]);
      onlyA.splice(onlyA.indexOf(x), 1);
      onlyB.splice(onlyB.indexOf(y), 1);
    }
  }
  for (const m of onlyB)
    push(ctx, 'variant-added', `${path}<${m.key}>`, 'receiver', `union member ${m.key} added`, null, m.key);
  for (const m of onlyA)
    push(ctx, 'variant-removed', `${path}<${m.key}>`, 'sender', `union member ${m.key} removed`, m.key, null);
  if (depth + 1 > ctx.maxDepth) return;
  for (const [x, y] of pairs) {
    // a member that is the non-union side itself is compared as already viewed
    const sub = ma.size === 1 && mb.size === 1 ? path : `${path}<${y.key}>`;
    const vx = x.view ?? viewOf(ctx.a, x.raw, stA);
    const vy = y.view ?? viewOf(ctx.b, y.raw, stB);
    if (!vx || !vy || vx === 'cycle' || vy === 'cycle') continue;
    compareViews(
      ctx,
      sub,
      x.raw,
      y.raw,
      vx,
      vy,
      depth + 1,
      x.view ? stA : [...stA, ...vx.names],
      y.view ? stB : [...stB, ...vy.names],
    );
  }
}

/** A message type's `params` member: its schema and whether it is required. */
function paramsOf(model: ProtocolModel, messageType: string): { raw: unknown; required: boolean } | null {
  const v = viewOf(model, { $ref: `${REF_PREFIX}${messageType}` }, []);
  if (!v || v === 'cycle') return null;
  const props = isObj(v.s.properties) ? v.s.properties : {};
  if (!Object.hasOwn(props, 'params')) return null;
  return { raw: props.params, required: Array.isArray(v.s.required) && v.s.required.includes('params') };
}

/** Compares the params of one message present in both models. */
function compareParams(ctx: WalkCtx, subject: string, typeA: string, typeB: string) {
  const pa = paramsOf(ctx.a, typeA);
  const pb = paramsOf(ctx.b, typeB);
  const path = `${subject} params`;
  if (!pa && !pb) return;
  if (!pa) {
    push(
      ctx,
      'field-added',
      path,
      pb!.required ? 'sender' : 'none',
      `params added (${pb!.required ? 'required' : 'optional'})`,
      null,
      pb!.required ? 'required' : 'optional',
    );
    return;
  }
  if (!pb) {
    push(
      ctx,
      'field-removed',
      path,
      'receiver',
      `params removed (was ${pa.required ? 'required' : 'optional'})`,
      pa.required ? 'required' : 'optional',
      null,
    );
    return;
  }
  if (pa.required && !pb.required)
    push(ctx, 'required-to-optional', path, 'receiver', 'params required → optional', 'required', 'optional');
  if (!pa.required && pb.required)
    push(ctx, 'optional-to-required', path, 'sender', 'params optional → required', 'optional', 'required');
  walk(ctx, path, pa.raw, pb.raw, 0, [], []);
}

const typeRef = (name: string) => ({ $ref: `${REF_PREFIX}${name}` });
const showCap = (c: string[] | null) => (c ? c.join('.') : '(none)');
const sameSet = (x: readonly string[], y: readonly string[]) => x.length === y.length && x.every((v) => y.includes(v));

// ---------------------------------------------------------------------------------------------

/** The semantic differences from model `a` to model `b`. */
// size: the diff of two models, section by section; split pending (#36)
export function diffModels(a: ProtocolModel, b: ProtocolModel, options: DiffOptions = {}): DiffReport {
  const out: Change[] = [];
  const maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
  const ctx = (section: Section, method: string | null, direction: Direction | null, roles: Roles): WalkCtx => ({
    a,
    b,
    out,
    maxDepth,
    section,
    method,
    direction,
    roles,
  });
  const top = (
    section: Section,
    kind: ChangeKind,
    subject: string,
    breaking: Breaking,
    detail: string,
    extra: Partial<Change> = {},
  ) =>
    out.push({
      section,
      kind,
      subject,
      method: null,
      direction: null,
      before: null,
      after: null,
      detail,
      breaking,
      ...extra,
    });

  // lifecycle
  if (a.lifecycle !== b.lifecycle)
    top('lifecycle', 'lifecycle', 'lifecycle', BOTH, `${a.lifecycle} → ${b.lifecycle}`, {
      before: a.lifecycle,
      after: b.lifecycle,
    });
  if (a.protocolVersion !== b.protocolVersion)
    top('lifecycle', 'protocol-version', 'protocolVersion', NOBODY, `${a.protocolVersion} → ${b.protocolVersion}`, {
      before: a.protocolVersion,
      after: b.protocolVersion,
    });

  // requests and notifications, per direction
  for (const kind of ['request', 'notification'] as const) {
    const section: Section = kind === 'request' ? 'methods' : 'notifications';
    type Def = { method: string; direction: Direction; capability: string[] | null; type: string };
    const defs = (m: ProtocolModel): Def[] =>
      kind === 'request'
        ? m.requests.map((r) => ({
            method: r.method,
            direction: r.direction,
            capability: r.capability,
            type: r.requestType,
          }))
        : m.notifications.map((n) => ({
            method: n.method,
            direction: n.direction,
            capability: n.capability,
            type: n.notificationType,
          }));
    const da = defs(a);
    const db = defs(b);
    const added: ChangeKind = kind === 'request' ? 'method-added' : 'notification-added';
    const removed: ChangeKind = kind === 'request' ? 'method-removed' : 'notification-removed';
    // who a method's removal / addition in one direction breaks
    const removedBreaks = (d: Direction): Breaking =>
      kind === 'request'
        ? breakingOf('sender', { sender: fromOf(d), receiver: toOf(d) })
        : breakingOf('receiver', { sender: fromOf(d), receiver: toOf(d) });
    const addedBreaks = (x: Def): Breaking =>
      kind === 'request' && !x.capability
        ? breakingOf('receiver', { sender: fromOf(x.direction), receiver: toOf(x.direction) })
        : NOBODY;

    for (const method of [...new Set([...da, ...db].map((x) => x.method))].sort(byCodeUnit)) {
      const inA = da.filter((x) => x.method === method);
      const inB = db.filter((x) => x.method === method);
      const dirsA = inA.map((x) => x.direction).sort(byCodeUnit);
      const dirsB = inB.map((x) => x.direction).sort(byCodeUnit);
      const gone = inA.filter((x) => !dirsB.includes(x.direction));
      const fresh = inB.filter((x) => !dirsA.includes(x.direction));
      if (dirsA.length && dirsB.length && !sameSet(dirsA, dirsB)) {
        top(
          section,
          'direction',
          method,
          anyBreaking(...gone.map((x) => removedBreaks(x.direction)), ...fresh.map(addedBreaks)),
          `${dirsA.join(' + ')} → ${dirsB.join(' + ')}`,
          {
            method,
            before: dirsA.join(', '),
            after: dirsB.join(', '),
          },
        );
      } else {
        for (const x of gone)
          top(section, removed, method, removedBreaks(x.direction), `${kind} removed (${x.direction})`, {
            method,
            direction: x.direction,
          });
        for (const x of fresh)
          top(
            section,
            added,
            method,
            addedBreaks(x),
            `${kind} added (${x.direction}${x.capability ? `, gated by ${showCap(x.capability)}` : ''})`,
            {
              method,
              direction: x.direction,
            },
          );
      }
      for (const x of inA) {
        const y = inB.find((v) => v.direction === x.direction);
        if (!y) continue;
        const d = x.direction;
        const roles: Roles = { sender: fromOf(d), receiver: toOf(d) };
        if (showCap(x.capability) !== showCap(y.capability)) {
          const effect: Effect = y.capability ? 'both' : 'receiver';
          push(
            ctx(section, method, d, roles),
            'capability-gate',
            method,
            effect,
            `gating capability ${showCap(x.capability)} → ${showCap(y.capability)}`,
            showCap(x.capability),
            showCap(y.capability),
          );
        }
        compareParams(ctx('params', method, d, roles), method, x.type, y.type);
        if (kind === 'request') compareRequest(method, d);
      }
    }
  }

  function compareRequest(method: string, d: Direction) {
    const ra = a.requests.find((r) => r.method === method && r.direction === d)!;
    const rb = b.requests.find((r) => r.method === method && r.direction === d)!;
    const reqRoles: Roles = { sender: fromOf(d), receiver: toOf(d) };
    const resRoles: Roles = { sender: toOf(d), receiver: fromOf(d) };
    const c = ctx('methods', method, d, reqRoles);
    if (ra.embedded !== rb.embedded)
      push(
        c,
        'embedded',
        method,
        'both',
        rb.embedded
          ? 'now travels only inside an InputRequiredResult (embedded input request)'
          : 'no longer embedded: sent as a standalone request',
        String(ra.embedded),
        String(rb.embedded),
      );
    if (ra.resultType !== rb.resultType)
      push(
        c,
        'result-type',
        method,
        'none',
        `result type ${ra.resultType} → ${rb.resultType}`,
        ra.resultType,
        rb.resultType,
      );
    const rc = ctx('methods', method, d, resRoles);
    for (const alt of rb.altResultTypes.filter((x) => !ra.altResultTypes.includes(x)))
      push(rc, 'alt-result-added', method, 'receiver', `may now be answered with ${alt}`, null, alt);
    for (const alt of ra.altResultTypes.filter((x) => !rb.altResultTypes.includes(x)))
      push(rc, 'alt-result-removed', method, 'sender', `may no longer be answered with ${alt}`, alt, null);
    const res = ctx('results', method, d, resRoles);
    walk(res, `${method} result`, typeRef(ra.resultType), typeRef(rb.resultType), 0, [], []);
    for (const alt of rb.altResultTypes.filter((x) => ra.altResultTypes.includes(x)).sort(byCodeUnit))
      walk(res, `${method} result<${alt}>`, typeRef(alt), typeRef(alt), 0, [], []);
  }

  // capabilities
  for (const [name, owner] of [
    ['ClientCapabilities', 'client'],
    ['ServerCapabilities', 'server'],
  ] as const) {
    if (!a.types[name] || !b.types[name]) continue;
    walk(
      ctx('capabilities', null, null, { sender: owner, receiver: other(owner) }),
      name,
      typeRef(name),
      typeRef(name),
      0,
      [],
      [],
    );
  }

  // named types
  for (const name of [...new Set([...Object.keys(a.types), ...Object.keys(b.types)])].sort(byCodeUnit)) {
    const ta = a.types[name];
    const tb = b.types[name];
    if (!ta)
      top('types', 'type-added', name, NOBODY, `type added${tb.category ? ` (${tb.category})` : ''}`, { after: name });
    else if (!tb)
      top('types', 'type-removed', name, NOBODY, `type removed${ta.category ? ` (${ta.category})` : ''}`, {
        before: name,
      });
    else if ((ta.deprecated === undefined) !== (tb.deprecated === undefined))
      top(
        'types',
        'deprecated',
        name,
        NOBODY,
        tb.deprecated !== undefined
          ? `deprecated${tb.deprecated ? `: ${tb.deprecated.split('\n')[0]}` : ''}`
          : 'no longer deprecated',
        {
          before: ta.deprecated === undefined ? null : 'deprecated',
          after: tb.deprecated === undefined ? null : 'deprecated',
        },
      );
  }

  // error codes
  for (const name of [...new Set([...Object.keys(a.errorCodes), ...Object.keys(b.errorCodes)])].sort(byCodeUnit)) {
    const x = a.errorCodes[name];
    const y = b.errorCodes[name];
    if (x === undefined)
      top('errors', 'error-code-added', name, NOBODY, `error code added (${y})`, { after: String(y) });
    else if (y === undefined)
      top('errors', 'error-code-removed', name, BOTH, `error code removed (was ${x})`, { before: String(x) });
    else if (x !== y)
      top('errors', 'error-code-changed', name, BOTH, `error code ${x} → ${y}`, {
        before: String(x),
        after: String(y),
      });
  }

  const changes = sortChanges(dedupe(out));
  return { from: refOf(a), to: refOf(b), changes, summary: summarise(changes) };
}

const refOf = (m: ProtocolModel): ModelRef => ({
  revision: m.revision,
  protocolVersion: m.protocolVersion,
  lifecycle: m.lifecycle,
});

const changeKey = (c: Change) =>
  [SECTIONS.indexOf(c.section).toString().padStart(2, '0'), c.subject, c.direction ?? '', c.kind, c.detail].join(
    '\u0000',
  );

function dedupe(changes: Change[]): Change[] {
  const seen = new Map<string, Change>();
  for (const c of changes) {
    const k = changeKey(c);
    const prev = seen.get(k);
    if (prev) prev.breaking = anyBreaking(prev.breaking, c.breaking);
    else seen.set(k, c);
  }
  return [...seen.values()];
}

function sortChanges(changes: Change[]): Change[] {
  return changes
    .map((c) => [changeKey(c), c] as const)
    .sort(([x], [y]) => byCodeUnit(x, y))
    .map(([, c]) => c);
}

function count(changes: Change[]): Counts {
  return {
    total: changes.length,
    breakingForClient: changes.filter((c) => c.breaking.client).length,
    breakingForServer: changes.filter((c) => c.breaking.server).length,
  };
}

function summarise(changes: Change[]): DiffReport['summary'] {
  const bySection = {} as Record<Section, Counts>;
  for (const s of SECTIONS) bySection[s] = count(changes.filter((c) => c.section === s));
  const byKind: Partial<Record<ChangeKind, number>> = {};
  for (const c of changes) byKind[c.kind] = (byKind[c.kind] ?? 0) + 1;
  return {
    ...count(changes),
    breaking: changes.filter((c) => c.breaking.client || c.breaking.server).length,
    bySection,
    byKind: Object.fromEntries(
      Object.entries(byKind).sort(([x], [y]) => byCodeUnit(x, y)),
    ) as DiffReport['summary']['byKind'],
  };
}

/** Whether the report holds any change that breaks a client or a server. */
export const hasBreaking = (r: DiffReport): boolean => r.summary.breaking > 0;

// ---------------------------------------------------------------------------------------------
// Renderers

/** Stable JSON for CI: sorted keys, changes in report order, trailing newline. */
export function renderJson(report: DiffReport): string {
  return stableJson(report);
}

const cell = (s: string | null) => (s ?? '').replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
/**
 * Options of {@link renderMarkdown}: the title (default `MCP protocol diff`) and the names of the
 * two parties (default `client` and `server`; an extension's channel names its own, e.g. `view`
 * and `host`).
 */
export interface MarkdownOptions {
  title?: string;
  parties?: { client: string; server: string };
}
const flag = (b: boolean) => (b ? '**breaking**' : '·');

/** Markdown for people: a summary table, then one section per kind of change. */
export function renderMarkdown(report: DiffReport, options: MarkdownOptions = {}): string {
  const { from, to, summary } = report;
  const lines: string[] = [];
  const client = options.parties?.client ?? 'client';
  const server = options.parties?.server ?? 'server';
  const dirShort: Record<Direction, string> = {
    clientToServer: `${client} → ${server}`,
    serverToClient: `${server} → ${client}`,
  };
  const Client = client.charAt(0).toUpperCase() + client.slice(1);
  const Server = server.charAt(0).toUpperCase() + server.slice(1);
  lines.push(`# ${options.title ?? 'MCP protocol diff'}: ${from.revision} → ${to.revision}`, '');
  lines.push(
    `Protocol version ${from.protocolVersion} → ${to.protocolVersion} · lifecycle ${from.lifecycle}${from.lifecycle === to.lifecycle ? '' : ` → ${to.lifecycle}`}`,
    '',
  );
  lines.push(
    `**${summary.total} change(s)**, ${summary.breaking} breaking: ${summary.breakingForClient} for ${client}s, ${summary.breakingForServer} for ${server}s.`,
    '',
  );
  if (summary.total === 0) {
    lines.push('No semantic differences.', '');
    return lines.join('\n');
  }
  lines.push(`| Section | Changes | Breaking for ${client}s | Breaking for ${server}s |`, '|---|--:|--:|--:|');
  for (const s of SECTIONS) {
    const c = summary.bySection[s];
    if (c.total) lines.push(`| ${SECTION_TITLES[s]} | ${c.total} | ${c.breakingForClient} | ${c.breakingForServer} |`);
  }
  lines.push(`| **Total** | ${summary.total} | ${summary.breakingForClient} | ${summary.breakingForServer} |`, '');
  for (const s of SECTIONS) {
    const cs = report.changes.filter((c) => c.section === s);
    if (!cs.length) continue;
    lines.push(`## ${SECTION_TITLES[s]} (${cs.length})`, '');
    lines.push(`| Subject | Direction | Change | Detail | ${Client} | ${Server} |`, '|---|---|---|---|---|---|');
    for (const c of cs)
      lines.push(
        `| \`${cell(c.subject)}\` | ${c.direction ? dirShort[c.direction] : ''} | ${c.kind} | ${cell(c.detail)} | ${flag(c.breaking.client)} | ${flag(c.breaking.server)} |`,
      );
    lines.push('');
  }
  return lines.join('\n');
}

// ---------------------------------------------------------------------------------------------
// Text diff (for `mcpgen check`)

/**
 * A short unified-style diff of two texts: the first region where their lines differ, with
 * `context` lines around it and at most `maxLines` removed and added lines shown. Empty when
 * the texts are equal.
 */
export function firstLineDiff(
  before: string,
  after: string,
  options: { context?: number; maxLines?: number } = {},
): string[] {
  if (before === after) return [];
  const context = options.context ?? 3;
  const maxLines = options.maxLines ?? 12;
  const a = before.split('\n');
  const b = after.split('\n');
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const from = Math.max(0, start - context);
  const toA = Math.min(a.length, endA + context);
  const toB = Math.min(b.length, endB + context);
  const out = [`@@ -${from + 1},${toA - from} +${from + 1},${toB - from} @@`];
  for (const l of a.slice(from, start)) out.push(` ${l}`);
  const shown = (lines: string[], mark: string) => {
    for (const l of lines.slice(0, maxLines)) out.push(`${mark}${l}`);
    if (lines.length > maxLines) out.push(`${mark}… ${lines.length - maxLines} more line(s)`);
  };
  shown(a.slice(start, endA), '-');
  shown(b.slice(start, endB), '+');
  for (const l of a.slice(endA, toA)) out.push(` ${l}`);
  return out;
}
