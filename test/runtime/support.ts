/**
 * Shared pieces for the runtime tests: a small hand-built ProtocolTable (a slice of 2025-11-25)
 * with real ajv validators, a scripted "wire" end for a memory pair, and a recording logger.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';
import type { Direction, MethodEntry, ProtocolTable, Validator } from '../../runtime/protocol/table.js';
import { createMemoryPair, type MemoryTransport } from '../../runtime/transport/memory.js';
import type { Logger } from '../../runtime/engine/peer.js';
import type { MessageInfo } from '../../runtime/jsonrpc/transport.js';

const ajv = new Ajv2020({ allErrors: true, strict: false });
// ajv-formats is CommonJS: under NodeNext its default import is the module object, whose
// `default` is the plugin (the plugin function also carries `default` pointing to itself).
formats.default(ajv);

const meta = { type: 'object' };
const obj = (properties: Record<string, unknown>, required: string[] = []) => ({
  type: 'object',
  properties: { _meta: meta, ...properties },
  required,
});
const compile = (schema: object): Validator => ajv.compile(schema) as unknown as Validator;

interface Spec {
  params?: object;
  paramsRequired?: boolean;
  result?: object;
  capability?: string[];
}

function entry(method: string, kind: 'request' | 'notification', direction: Direction, s: Spec): MethodEntry {
  return {
    method,
    kind,
    direction,
    requestType: method,
    paramsType: s.params ? `${method} params` : null,
    resultTypes: s.result ? [`${method} result`] : [],
    paramsRequired: s.paramsRequired ?? false,
    params: s.params ? compile(s.params) : undefined,
    result: s.result ? compile(s.result) : undefined,
    capability: s.capability,
  };
}

function group(
  kind: 'request' | 'notification',
  direction: Direction,
  specs: Record<string, Spec>,
): Record<string, MethodEntry> {
  const out: Record<string, MethodEntry> = {};
  for (const [m, s] of Object.entries(specs)) out[m] = entry(m, kind, direction, s);
  return out;
}

const implementation = obj({ name: { type: 'string' }, version: { type: 'string' } }, ['name', 'version']);
const content = {
  type: 'array',
  items: obj({ type: { type: 'string' }, text: { type: 'string' } }, ['type']),
};
const ping = { params: obj({}), result: obj({}) };
const progressParams = obj(
  {
    progressToken: { type: ['string', 'integer'] },
    progress: { type: 'number' },
    total: { type: 'number' },
    message: { type: 'string' },
  },
  ['progressToken', 'progress'],
);
const cancelledParams = obj({ requestId: { type: ['string', 'integer'] }, reason: { type: 'string' } });

/** A slice of 2025-11-25: enough methods for the peer and transport tests. */
export const table: ProtocolTable = {
  revision: 'test-slice',
  protocolVersion: '2025-11-25',
  lifecycle: 'handshake',
  requests: {
    clientToServer: group('request', 'clientToServer', {
      initialize: {
        params: obj(
          { protocolVersion: { type: 'string' }, capabilities: { type: 'object' }, clientInfo: implementation },
          ['protocolVersion', 'capabilities', 'clientInfo'],
        ),
        paramsRequired: true,
        result: obj(
          { protocolVersion: { type: 'string' }, capabilities: { type: 'object' }, serverInfo: implementation },
          ['protocolVersion', 'capabilities', 'serverInfo'],
        ),
      },
      ping,
      'tools/list': {
        params: obj({ cursor: { type: 'string' } }),
        result: obj({ tools: { type: 'array' } }, ['tools']),
        capability: ['tools'],
      },
      'tools/call': {
        params: obj({ name: { type: 'string' }, arguments: { type: 'object' } }, ['name']),
        paramsRequired: true,
        result: obj({ content, isError: { type: 'boolean' } }, ['content']),
        capability: ['tools'],
      },
      'prompts/list': {
        params: obj({ cursor: { type: 'string' } }),
        result: obj({ prompts: { type: 'array' } }, ['prompts']),
        capability: ['prompts'],
      },
    }),
    serverToClient: group('request', 'serverToClient', {
      ping,
      'roots/list': {
        params: obj({}),
        result: obj({ roots: { type: 'array', items: obj({ uri: { type: 'string', format: 'uri' } }, ['uri']) } }, [
          'roots',
        ]),
        capability: ['roots'],
      },
      'sampling/createMessage': {
        params: obj({ messages: { type: 'array' }, maxTokens: { type: 'integer' } }, ['messages', 'maxTokens']),
        paramsRequired: true,
        result: obj({ role: { enum: ['user', 'assistant'] }, content: { type: 'object' }, model: { type: 'string' } }, [
          'role',
          'content',
          'model',
        ]),
        capability: ['sampling'],
      },
    }),
  },
  notifications: {
    clientToServer: group('notification', 'clientToServer', {
      'notifications/initialized': { params: obj({}) },
      'notifications/cancelled': { params: cancelledParams, paramsRequired: true },
      'notifications/progress': { params: progressParams, paramsRequired: true },
      'notifications/roots/list_changed': { params: obj({}) },
    }),
    serverToClient: group('notification', 'serverToClient', {
      'notifications/message': {
        params: obj({ level: { type: 'string' }, data: {} }, ['level', 'data']),
        paramsRequired: true,
      },
      'notifications/cancelled': { params: cancelledParams, paramsRequired: true },
      'notifications/progress': { params: progressParams, paramsRequired: true },
      'notifications/tools/list_changed': { params: obj({}) },
    }),
  },
  errorCodes: {
    PARSE_ERROR: -32700,
    INVALID_REQUEST: -32600,
    METHOD_NOT_FOUND: -32601,
    INVALID_PARAMS: -32602,
    INTERNAL_ERROR: -32603,
  },
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Msg = Record<string, any>;

/**
 * A memory pair whose far end is driven by the test: `send` writes any JSON value to the peer,
 * `received` collects what the peer wrote, `next()` waits for the next one.
 */
export async function wire(): Promise<{
  transport: MemoryTransport;
  send(value: unknown, info?: MessageInfo): Promise<void>;
  received: Msg[];
  next(): Promise<Msg>;
  closed: Promise<Error | undefined>;
}> {
  const [near, far] = createMemoryPair();
  const received: Msg[] = [];
  let cursor = 0;
  const waiters: Array<() => void> = [];
  let onClosed!: (e: Error | undefined) => void;
  const closed = new Promise<Error | undefined>((r) => (onClosed = r));
  await far.start({
    onMessage: (m) => {
      received.push(m);
      for (const w of waiters.splice(0)) w();
    },
    onClose: (e) => onClosed(e),
  });
  return {
    transport: near,
    send: (v, info) => far.sendRaw(v, info),
    received,
    closed,
    async next() {
      while (cursor >= received.length) await new Promise<void>((r) => waiters.push(r));
      return received[cursor++];
    },
  };
}

/** Lets every queued microtask and I/O callback run. */
export function settle(rounds = 3): Promise<void> {
  let p = Promise.resolve();
  for (let i = 0; i < rounds; i++) p = p.then(() => new Promise<void>((r) => setImmediate(r)));
  return p;
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** A logger that keeps every entry, for asserting what was dropped and why. */
export function recordingLogger(): Logger & {
  entries: Array<{ level: string; message: string; data?: Record<string, unknown> }>;
} {
  const entries: Array<{ level: string; message: string; data?: Record<string, unknown> }> = [];
  const at = (level: string) => (message: string, data?: Record<string, unknown>) =>
    void entries.push({ level, message, data });
  return { entries, debug: at('debug'), warn: at('warn'), error: at('error') };
}
