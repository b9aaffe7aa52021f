/**
 * What an inbound request is about, to name its handler in logs and in -32603 messages: the tool
 * of `tools/call`, the prompt of `prompts/get`, the resource of `resources/read`, the prompt or
 * resource of `completion/complete` (each from the request's own params, so a message naming it
 * tells the client nothing it did not send).
 */
import { isObject } from '../jsonrpc/message.js';

/** The kinds of handler a request can name. */
export type SubjectKind = 'tool' | 'prompt' | 'resource' | 'completion';

/** The subject of each method that has one, from its params (own members only). */
const SUBJECTS: Readonly<Record<string, (p: Record<string, unknown>) => [SubjectKind, string]>> = {
  'tools/call': (p) => ['tool', String(p.name)],
  'prompts/get': (p) => ['prompt', String(p.name)],
  'resources/read': (p) => ['resource', String(p.uri)],
  'completion/complete': (p) => [
    'completion',
    isObject(p.ref) ? String(p.ref.type === 'ref/resource' ? p.ref.uri : p.ref.name) : '',
  ],
};

/** The methods {@link requestSubject} names a subject of. */
export const SUBJECT_METHODS: readonly string[] = Object.keys(SUBJECTS);

/**
 * The kind and name of what a `method` request with `params` is about (`['tool', 'add']` for
 * `tools/call` of tool `add`), or undefined for a method that names none.
 */
export function requestSubject(method: string, params: unknown): [kind: SubjectKind, name: string] | undefined {
  const subject = Object.hasOwn(SUBJECTS, method) ? SUBJECTS[method] : undefined;
  return subject?.(isObject(params) ? params : {});
}

/** The handler of a request, in words: `tool add`, `prompt greet`, `resource mem://x`, else `the <method> handler`. */
export function handlerLabel(method: string, params: unknown): string {
  const s = requestSubject(method, params);
  return s ? `${s[0]} ${s[1]}` : `the ${method} handler`;
}
