/**
 * client / server emitters: the named one-liners (`client.callTool(params, options)`) over the
 * runtime's hand-written `ClientSession<P>` / `ServerSession<P>`; names come from the schema's
 * request types (`CallToolRequest` → `callTool`) and notification types
 * (`ToolListChangedNotification` → `sendToolListChanged`).
 */
import type { JsonSchema, NotificationDef, ProtocolModel, RequestDef } from '../model.js';
import { type EmitOptions, type Files, jsdoc, methodName, preamble, render } from './common.js';

function doc(model: ProtocolModel, typeName: string, method: string, extra: string[] = []): string {
  const t = model.types[typeName];
  const lines = [
    `\`${method}\`${t?.description ? `: ${t.description}` : ''}`,
    ...extra,
    '',
    `@see ${model.revision} #/$defs/${typeName}`,
  ];
  if (t?.deprecated !== undefined) lines.push(`@deprecated ${t.deprecated}`.trim());
  return jsdoc(lines, '  ');
}

/**
 * Whether a client request's caller must pass params: the schema requires them and they have a
 * required member besides `_meta`, which `ClientParams` makes optional (the session fills in the
 * stateless revisions' `_meta`, so a draft `listTools()` needs no argument, as on 2025-11-25).
 */
function clientMustPass(model: ProtocolModel, r: RequestDef): boolean {
  if (!r.paramsRequired) return false;
  const params = r.paramsType
    ? model.types[r.paramsType]?.schema
    : (model.types[r.requestType]?.schema.properties as Record<string, JsonSchema> | undefined)?.params;
  const required = params?.required;
  return !Array.isArray(required) || required.some((k) => k !== '_meta');
}

const requestView = (model: ProtocolModel) => (r: RequestDef) => ({
  name: methodName(r),
  method: r.method,
  paramsRequired: r.direction === 'clientToServer' ? clientMustPass(model, r) : r.paramsRequired,
  jsdoc: doc(model, r.requestType, r.method, [
    ...(r.taskAugmentable
      ? [
          '',
          'With `options.task` (`{ ttl }`) the call runs as a task (basic/utilities/tasks): it resolves with the final result once the task ends, and `options.onTask` receives the task handle (status, updates, cancel) at once.',
        ]
      : []),
    ...(r.inputRequired ? ['', 'May be answered with an InputRequiredResult (multi round-trip).'] : []),
  ]),
});

const notificationView = (model: ProtocolModel) => (n: NotificationDef) => {
  const base = n.notificationType.replace(/Notification$/, '');
  return {
    name: `send${base}`,
    method: n.method,
    paramsRequired: n.paramsRequired,
    jsdoc: doc(model, n.notificationType, n.method),
  };
};

/**
 * Methods the sessions run themselves, left out of the named facades: the handshake
 * (`connect()` sends initialize / notifications/initialized), cancellation (an AbortSignal)
 * and progress (`onProgress` / `ctx.sendProgress`).
 */
export const ENGINE_METHODS: ReadonlySet<string> = new Set([
  'initialize',
  'notifications/initialized',
  'notifications/cancelled',
  'notifications/progress',
]);

export function emitFacades(model: ProtocolModel, opts: EmitOptions): Files {
  const base = {
    preamble: preamble(model),
    revision: model.revision,
    runtimeImport: opts.runtimeImport,
    stateless: model.lifecycle === 'stateless',
  };
  const side = (dir: RequestDef['direction']) => ({
    ...base,
    requests: model.requests
      .filter((r) => r.direction === dir && !r.embedded && !ENGINE_METHODS.has(r.method))
      .map(requestView(model)),
    notifications: model.notifications
      .filter((n) => n.direction === dir && !ENGINE_METHODS.has(n.method))
      .map(notificationView(model)),
  });
  return new Map([
    ['client.gen.ts', render('client', side('clientToServer'))],
    ['server.gen.ts', render('server', side('serverToClient'))],
  ]);
}
