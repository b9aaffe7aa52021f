/**
 * The methods of a revision, from its schemas: each request's and notification's method from
 * its `method.const`, its direction from the Client… and Server… unions (and InputRequest,
 * 2026-07-28+), its params, the capability that gates it, and each request's result type, paired
 * from the `*ResultResponse` types, then the `@category` JSDoc tag, then the name (the few
 * exceptions in ../overrides.ts).
 */
import type { Direction, JsonSchema, NotificationDef, RequestDef } from '../model.js';
import { CAPABILITY_OVERRIDES, INPUT_REQUIRED_RESULT_TYPE, RESULT_OVERRIDES, TASK_RESULT_TYPE } from '../overrides.js';
import { byCodeUnit } from '../util.js';
import { IngestError } from '../ingest-error.js';
import { deref, propertyAt, refName } from './defs.js';
import type { TsDecl } from './schema-ts.js';

/** What the method passes read: the revision, both inputs, and where warnings go. */
export interface MethodContext {
  revision: string;
  defs: Record<string, JsonSchema>;
  decls: Map<string, TsDecl>;
  /** schema.json's and schema.ts's paths, for errors and warnings. */
  jf: string;
  tf: string;
  warnings: string[];
}

export /** Capability gate of a method: the receiver's capability named by the method's first segment. */
function capabilityOf(defs: Record<string, JsonSchema>, method: string, receiverCaps: string): string[] | null {
  if (Object.hasOwn(CAPABILITY_OVERRIDES, method)) return [...CAPABILITY_OVERRIDES[method]];
  const segs = method.replace(/^notifications\//, '').split('/');
  const caps = deref(defs, defs[receiverCaps]);
  const props = (caps?.properties ?? {}) as Record<string, JsonSchema>;
  const key = [segs[0], `${segs[0]}s`].find((k) => k && Object.hasOwn(props, k));
  if (!key) return null;
  const sub = deref(defs, props[key]);
  const subProps = (sub?.properties ?? {}) as Record<string, JsonSchema>;
  const second = segs[1] === 'list_changed' ? 'listChanged' : segs[1];
  if (second && Object.hasOwn(subProps, second) && second !== 'requests') return [key, second];
  return [key];
}

/** The member type names of a schema.ts union (a one-member union may be a plain alias). */
export function unionMembers(ctx: MethodContext, name: string): string[] {
  const d = ctx.decls.get(name);
  if (!d) return [];
  if (!d.unionRefs) {
    // a one-member union is written as a plain alias: `type ClientNotification = CancelledNotification`
    const def = ctx.defs[name];
    const one = refName(def);
    if (one) return [one];
    const any = (def?.anyOf ?? def?.oneOf) as unknown[] | undefined;
    return any ? any.map(refName).filter((x): x is string => !!x) : [];
  }
  return d.unionRefs;
}

/** The constant string a message type's member holds (its method). @throws IngestError when it has none. */
function constOf(ctx: MethodContext, typeName: string, field: string): string {
  const s = propertyAt(ctx.defs, typeName, [field]);
  const c = s?.const ?? (Array.isArray(s?.enum) && s.enum.length === 1 ? s.enum[0] : undefined);
  if (typeof c !== 'string')
    throw new IngestError(ctx.jf, `$defs.${typeName}.properties.${field}.const`, 'missing: cannot tell the method');
  return c;
}

/** Whether a message type has params, requires them, and the type they name. */
function paramsOf(ctx: MethodContext, typeName: string) {
  const def = deref(ctx.defs, ctx.defs[typeName]);
  if (!def)
    throw new IngestError(ctx.jf, `$defs.${typeName}`, 'named in a schema.ts union but not defined in schema.json');
  const p = (def.properties as Record<string, JsonSchema> | undefined)?.params;
  const required = Array.isArray(def.required) && def.required.includes('params');
  return { hasParams: !!p, paramsRequired: required, paramsType: (p && refName(p)) ?? null };
}

/** The requests of both directions (and the embedded input requests), sorted by direction and method. */
export function requestsOf(ctx: MethodContext): RequestDef[] {
  const { defs, tf, warnings } = ctx;
  const results = new Set([...unionMembers(ctx, 'ServerResult'), ...unionMembers(ctx, 'ClientResult')]);
  const requests: RequestDef[] = [];
  const seen = new Map<string, RequestDef>();
  const addRequests = (unionName: string, direction: Direction, embedded: boolean) => {
    for (const t of unionMembers(ctx, unionName)) {
      if (!defs[t]) {
        warnings.push(`${tf}: ${unionName} member ${t} has no schema.json definition; left out of the model`);
        continue;
      }
      const method = constOf(ctx, t, 'method');
      const key = `${direction} ${method}`;
      if (seen.has(key)) continue;
      const receiverCaps = direction === 'clientToServer' ? 'ServerCapabilities' : 'ClientCapabilities';
      const r: RequestDef = {
        method,
        direction,
        requestType: t,
        ...paramsOf(ctx, t),
        ...pairResult(ctx, results, t, method),
        capability: method === 'initialize' || method === 'ping' ? null : capabilityOf(defs, method, receiverCaps),
        taskAugmentable: !!propertyAt(defs, receiverCaps, ['tasks', 'requests', ...method.split('/')]),
        embedded,
      };
      if (r.taskAugmentable && defs[TASK_RESULT_TYPE] && !r.altResultTypes.includes(TASK_RESULT_TYPE))
        r.altResultTypes.push(TASK_RESULT_TYPE);
      r.altResultTypes.sort(byCodeUnit);
      seen.set(key, r);
      requests.push(r);
    }
  };
  addRequests('ClientRequest', 'clientToServer', false);
  addRequests('ServerRequest', 'serverToClient', false);
  addRequests('InputRequest', 'serverToClient', true);
  if (requests.length === 0)
    throw new IngestError(tf, 'ClientRequest', 'no request union found: is this an MCP schema.ts?');
  return requests.sort(byDirectionAndMethod);
}

/**
 * The result type of a request: an override, else its `*ResultResponse`, else the one result of
 * its `@category`, else `<Base>Result`, else (with a warning) the schema's base result type.
 */
function pairResult(ctx: MethodContext, results: ReadonlySet<string>, requestType: string, method: string) {
  const { defs, decls, tf } = ctx;
  const base = requestType.replace(/Request$/, '');
  const over = RESULT_OVERRIDES.find(
    (o) => o.method === method && (!o.revisions || o.revisions.includes(ctx.revision)),
  );
  const alts: string[] = [];
  let resultType: string | undefined;
  let pairedBy: RequestDef['pairedBy'] = 'override';
  const rr = `${base}ResultResponse`;
  const resultResponseType = defs[rr] ? rr : null;
  if (over && defs[over.result]) {
    resultType = over.result;
  } else if (resultResponseType) {
    const res = propertyAt(defs, rr, []) && (defs[rr].properties as Record<string, JsonSchema> | undefined)?.result;
    const names = [refName(res), ...((res?.anyOf as unknown[] | undefined) ?? []).map(refName)].filter(
      (x): x is string => !!x,
    );
    const main = names.filter((n) => n !== INPUT_REQUIRED_RESULT_TYPE);
    if (main.length === 1) {
      resultType = main[0];
      pairedBy = 'resultResponse';
      alts.push(...names.filter((n) => n === INPUT_REQUIRED_RESULT_TYPE));
    }
  }
  if (!resultType) {
    const cat = decls.get(requestType)?.category;
    const byCat = cat
      ? [...decls.values()].filter(
          (d) =>
            d.category === cat && /Result$/.test(d.name) && defs[d.name] && (results.size === 0 || results.has(d.name)),
        )
      : [];
    if (byCat.length === 1) {
      resultType = byCat[0].name;
      pairedBy = 'category';
    } else if (defs[`${base}Result`]) {
      resultType = `${base}Result`;
      pairedBy = 'name';
    }
  }
  if (!resultType) {
    // A revision nobody has seen yet must still generate: type the result as the base Result.
    const fallback = ['EmptyResult', 'Result'].find((n) => defs[n]);
    if (!fallback)
      throw new IngestError(
        tf,
        requestType,
        `cannot pair request ${method} with a result and the schema has no Result type`,
      );
    ctx.warnings.push(
      `${tf}: ${requestType}: no result type for ${method} (no ${rr}, no single @category result, no ${base}Result); typed as ${fallback} — add an entry to generator/overrides.ts if that is wrong`,
    );
    resultType = fallback;
    pairedBy = 'override';
  }
  return {
    resultType,
    altResultTypes: alts,
    resultResponseType,
    inputRequired: alts.includes(INPUT_REQUIRED_RESULT_TYPE),
    resultOfOriginalRequest: !!over?.resultOfOriginalRequest && pairedBy === 'override',
    pairedBy,
  };
}

/** The notifications of both directions, sorted by direction and method. */
export function notificationsOf(ctx: MethodContext): NotificationDef[] {
  const { defs, tf, warnings } = ctx;
  const notifications: NotificationDef[] = [];
  for (const [unionName, direction] of [
    ['ClientNotification', 'clientToServer'],
    ['ServerNotification', 'serverToClient'],
  ] as const) {
    for (const t of unionMembers(ctx, unionName)) {
      if (!defs[t]) {
        warnings.push(`${tf}: ${unionName} member ${t} has no schema.json definition; left out of the model`);
        continue;
      }
      const method = constOf(ctx, t, 'method');
      const receiverCaps = direction === 'clientToServer' ? 'ClientCapabilities' : 'ServerCapabilities';
      const senderGated =
        direction === 'serverToClient' && /list_changed$|^notifications\/(message|resources\/updated)$/.test(method);
      notifications.push({
        method,
        direction,
        notificationType: t,
        ...paramsOf(ctx, t),
        capability:
          senderGated || (direction === 'clientToServer' && /list_changed$/.test(method))
            ? capabilityOf(defs, method, receiverCaps)
            : null,
      });
    }
  }
  return notifications.sort(byDirectionAndMethod);
}

function byDirectionAndMethod(a: { direction: string; method: string }, b: { direction: string; method: string }) {
  return byCodeUnit(a.direction, b.direction) || byCodeUnit(a.method, b.method);
}
