/**
 * The diff of two models, section by section (lifecycle, methods and notifications per
 * direction, capabilities, named types, error codes), then deduplicated, sorted and summarised.
 */
import type { Direction, ProtocolModel } from '../model.js';
import { byCodeUnit } from '../util.js';
import {
  BOTH,
  type Breaking,
  type Change,
  type ChangeKind,
  type Counts,
  DEFAULT_MAX_DEPTH,
  type DiffOptions,
  type DiffReport,
  type Effect,
  type ModelRef,
  NOBODY,
  type Roles,
  SECTIONS,
  type Section,
  anyBreaking,
  breakingOf,
  fromOf,
  other,
  toOf,
} from './report.js';
import { type WalkCtx, compareParams, push, sameSet, showCap, typeRef, walk } from './walk.js';

/** One diff under way: the two models, the changes found, and how to record one. */
export interface Run {
  a: ProtocolModel;
  b: ProtocolModel;
  out: Change[];
  /** The walk context of a section, method, direction and roles. */
  ctx(section: Section, method: string | null, direction: Direction | null, roles: Roles): WalkCtx;
  /** Records a change of the model itself (not of a schema below a method). */
  top(
    section: Section,
    kind: ChangeKind,
    subject: string,
    breaking: Breaking,
    detail: string,
    extra?: Partial<Change>,
  ): void;
}

/** The semantic differences from model `a` to model `b`. */
export function diffModels(a: ProtocolModel, b: ProtocolModel, options: DiffOptions = {}): DiffReport {
  const out: Change[] = [];
  const maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
  const run: Run = {
    a,
    b,
    out,
    ctx: (section, method, direction, roles) => ({ a, b, out, maxDepth, section, method, direction, roles }),
    top: (section, kind, subject, breaking, detail, extra = {}) =>
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
      }),
  };
  diffLifecycle(run);
  diffMessages(run, 'request');
  diffMessages(run, 'notification');
  diffCapabilities(run);
  diffTypes(run);
  diffErrorCodes(run);
  const changes = sortChanges(dedupe(out));
  return { from: refOf(a), to: refOf(b), changes, summary: summarise(changes) };
}

/** The lifecycle and the protocol version. */
export function diffLifecycle({ a, b, top }: Run) {
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
}

/** Requests or notifications, per direction: added, removed, moved, gated; their params and results. */
export function diffMessages(run: Run, kind: 'request' | 'notification') {
  const { a, b, top, ctx } = run;
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
      if (kind === 'request') compareRequest(run, method, d);
    }
  }
}

/** One request present in both models: embedding, result type, alternative results and the results' schemas. */
export function compareRequest({ a, b, ctx }: Run, method: string, d: Direction) {
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

/** ClientCapabilities and ServerCapabilities, walked like a payload their owner sends. */
export function diffCapabilities({ a, b, ctx }: Run) {
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
}

/** Named types added, removed or (no longer) deprecated. */
export function diffTypes({ a, b, top }: Run) {
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
}

/** Error codes added, removed or renumbered. */
export function diffErrorCodes({ a, b, top }: Run) {
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
}

export const refOf = (m: ProtocolModel): ModelRef => ({
  revision: m.revision,
  protocolVersion: m.protocolVersion,
  lifecycle: m.lifecycle,
});

export const changeKey = (c: Change) =>
  [SECTIONS.indexOf(c.section).toString().padStart(2, '0'), c.subject, c.direction ?? '', c.kind, c.detail].join(
    '\u0000',
  );

export function dedupe(changes: Change[]): Change[] {
  const seen = new Map<string, Change>();
  for (const c of changes) {
    const k = changeKey(c);
    const prev = seen.get(k);
    if (prev) prev.breaking = anyBreaking(prev.breaking, c.breaking);
    else seen.set(k, c);
  }
  return [...seen.values()];
}

export function sortChanges(changes: Change[]): Change[] {
  return changes
    .map((c) => [changeKey(c), c] as const)
    .sort(([x], [y]) => byCodeUnit(x, y))
    .map(([, c]) => c);
}

export function count(changes: Change[]): Counts {
  return {
    total: changes.length,
    breakingForClient: changes.filter((c) => c.breaking.client).length,
    breakingForServer: changes.filter((c) => c.breaking.server).length,
  };
}

export function summarise(changes: Change[]): DiffReport['summary'] {
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
