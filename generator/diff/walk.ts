/**
 * The walk of two schemas, property by property (at most `maxDepth` levels, never re-entering a
 * named type on the path): unions, literal values, JSON types, constraints, members, items and a
 * message's params, each difference recorded as a change with who it breaks.
 */
import type { Direction, JsonSchema, ProtocolModel } from '../model.js';
import { byCodeUnit, stableJson } from '../util.js';
import { type Change, type ChangeKind, type Effect, type Roles, type Section, breakingOf } from './report.js';
import {
  CONSTRAINTS,
  REF_PREFIX,
  type View,
  constraintEffect,
  covers,
  discriminatorOf,
  isAny,
  isObj,
  refName,
  showTypes,
  showValue,
  showValues,
  typesDeep,
  typesOf,
  unionOf,
  valuesOf,
  viewOf,
} from './schema.js';

export interface WalkCtx {
  a: ProtocolModel;
  b: ProtocolModel;
  out: Change[];
  maxDepth: number;
  section: Section;
  method: string | null;
  direction: Direction | null;
  roles: Roles;
}

export function push(
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

export function walk(
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

/** Compares two schema views at `path`: unions, literal values, JSON types, constraints, members and items. */
export function compareViews(
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
  compareValues(ctx, path, A, B);
  const ta = typesOf(A);
  const tb = typesOf(B);
  compareTypes(ctx, path, ta, tb);
  compareConstraints(ctx, path, A, B);
  if ((ta.includes('object') || isObj(A.properties)) && (tb.includes('object') || isObj(B.properties)))
    compareMembers(ctx, path, A, B, depth, stA, stB);
  // array items
  if (isObj(A.items) && isObj(B.items)) walk(ctx, `${path}[]`, A.items, B.items, depth + 1, stA, stB);
}

/** Literal values (const / enum). */
export function compareValues(ctx: WalkCtx, path: string, A: JsonSchema, B: JsonSchema) {
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
}

/** JSON types. */
export function compareTypes(ctx: WalkCtx, path: string, ta: string[], tb: string[]) {
  if (showTypes(ta) !== showTypes(tb)) {
    const wider = covers(tb, ta);
    const narrower = covers(ta, tb);
    const effect: Effect = wider && !narrower ? 'receiver' : narrower && !wider ? 'sender' : 'both';
    push(ctx, 'type', path, effect, `${showTypes(ta)} → ${showTypes(tb)}`, showTypes(ta), showTypes(tb));
  }
}

/** Constraints (bounds, lengths, formats, patterns). */
export function compareConstraints(ctx: WalkCtx, path: string, A: JsonSchema, B: JsonSchema) {
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
}

/** Object members: added, removed, required or not, and additional properties. */
export function compareMembers(
  ctx: WalkCtx,
  path: string,
  A: JsonSchema,
  B: JsonSchema,
  depth: number,
  stA: readonly string[],
  stB: readonly string[],
) {
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

export function compareUnions(
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
export function paramsOf(model: ProtocolModel, messageType: string): { raw: unknown; required: boolean } | null {
  const v = viewOf(model, { $ref: `${REF_PREFIX}${messageType}` }, []);
  if (!v || v === 'cycle') return null;
  const props = isObj(v.s.properties) ? v.s.properties : {};
  if (!Object.hasOwn(props, 'params')) return null;
  return { raw: props.params, required: Array.isArray(v.s.required) && v.s.required.includes('params') };
}

/** Compares the params of one message present in both models. */
export function compareParams(ctx: WalkCtx, subject: string, typeA: string, typeB: string) {
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

export const typeRef = (name: string) => ({ $ref: `${REF_PREFIX}${name}` });
export const showCap = (c: string[] | null) => (c ? c.join('.') : '(none)');
export const sameSet = (x: readonly string[], y: readonly string[]) =>
  x.length === y.length && x.every((v) => y.includes(v));
