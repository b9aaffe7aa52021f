/**
 * A complete server handler table for generated/2025-11-25: every client→server request, each
 * returning a value of its result type. Shared by the dispatch tests.
 */
import type { ServerHandlers } from '../../generated/2025-11-25/dispatch.gen.js';
import type { Task } from '../../generated/2025-11-25/types.gen.js';

export const task: Task = {
  taskId: 't1',
  status: 'working',
  createdAt: '2025-01-01T00:00:00Z',
  lastUpdatedAt: '2025-01-01T00:00:00Z',
  ttl: null,
};

export const completeServerHandlers = {
  'completion/complete': () => ({ completion: { values: [] } }),
  initialize: (params) => ({
    protocolVersion: params.protocolVersion,
    capabilities: {},
    serverInfo: { name: 'test', version: '1.0.0' },
  }),
  'logging/setLevel': () => ({}),
  ping: () => ({}),
  'prompts/get': (params) => ({ messages: [{ role: 'user', content: { type: 'text', text: params.name } }] }),
  'prompts/list': () => ({ prompts: [] }),
  'resources/list': () => ({ resources: [] }),
  'resources/read': (params) => ({ contents: [{ uri: params.uri, text: '' }] }),
  'resources/subscribe': () => ({}),
  'resources/templates/list': () => ({ resourceTemplates: [] }),
  'resources/unsubscribe': () => ({}),
  'tasks/cancel': () => ({ ...task, status: 'cancelled' }),
  'tasks/get': () => task,
  'tasks/list': () => ({ tasks: [task] }),
  'tasks/result': () => ({}),
  'tools/call': async (params) => (params.task ? { task } : { content: [{ type: 'text', text: params.name }] }),
  'tools/list': () => ({ tools: [] }),
} satisfies ServerHandlers;
