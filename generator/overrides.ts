/**
 * The true exceptions to the derivation rules of `ingest`, one small table. Each entry cites
 * the spec page that states it. An entry applies to every revision that has the method unless
 * it names revisions.
 */
export interface ResultOverride {
  method: string;
  /** The result type to pair with the request. */
  result: string;
  /** The result is the original request's result (tasks/result). */
  resultOfOriginalRequest?: boolean;
  /** Restrict to these revisions (ids); all when absent. */
  revisions?: readonly string[];
  why: string;
}

export const RESULT_OVERRIDES: readonly ResultOverride[] = [
  {
    method: 'ping',
    result: 'EmptyResult',
    why: 'basic/utilities/ping: the receiver MUST respond promptly with an empty response',
  },
  {
    method: 'logging/setLevel',
    result: 'EmptyResult',
    why: 'server/utilities/logging: setLevel is answered with an empty result',
  },
  {
    method: 'resources/subscribe',
    result: 'EmptyResult',
    why: 'server/resources (Subscriptions): subscribe is answered with an empty result',
  },
  {
    method: 'resources/unsubscribe',
    result: 'EmptyResult',
    why: 'server/resources (Subscriptions): unsubscribe is answered with an empty result',
  },
  {
    method: 'tasks/result',
    result: 'GetTaskPayloadResult',
    resultOfOriginalRequest: true,
    why: 'basic/utilities/tasks (Retrieving Results): tasks/result returns what the original request would have returned',
  },
];

/**
 * basic/utilities/tasks (Task-augmented requests): a receiver that supports task-augmented
 * execution of a request answers it with CreateTaskResult instead of the request's result.
 */
export const TASK_RESULT_TYPE = 'CreateTaskResult';

/**
 * draft basic/patterns/mrtr: a request may be answered with an InputRequiredResult; derived from
 * the `*ResultResponse` types, whose `result` lists it.
 */
export const INPUT_REQUIRED_RESULT_TYPE = 'InputRequiredResult';

/**
 * Capability gates that the method name does not spell: notifications/resources/updated is sent
 * only for subscriptions (server/resources: `subscribe`).
 */
export const CAPABILITY_OVERRIDES: Readonly<Record<string, readonly string[]>> = {
  'notifications/resources/updated': ['resources', 'subscribe'],
  'resources/unsubscribe': ['resources', 'subscribe'],
};

/**
 * Types where schema.json's narrowing of schema.ts is kept: JSON-RPC ids and progress tokens stay
 * integer-or-string (JSON-RPC 2.0 §4: numbers SHOULD NOT contain fractional parts; an id of 1.5
 * is an invalid request). Everywhere else schema.ts wins (e.g. JSONValue keeps null and
 * non-integer numbers).
 */
export const KEEP_SCHEMA_JSON_NUMBERS: readonly string[] = ['ProgressToken', 'RequestId'];

/**
 * HTTP transport facts by protocol version, from each revision's `basic/transports` page:
 * - 2024-11-05 defines the HTTP+SSE transport; 2025-03-26 replaces it with Streamable HTTP.
 * - 2025-06-18 and 2025-11-25 ("Protocol Version Header"): without `MCP-Protocol-Version` and
 *   no other way to tell, the server SHOULD assume protocol version 2025-03-26.
 * - 2025-11-25 ("Sending Messages to the Server", 6): the server SHOULD start an SSE stream with
 *   an event ID and an empty `data` field to prime the client to reconnect.
 * - 2026-07-28 (basic/transports): stateless Streamable HTTP, no sessions, no resumption.
 * A protocol version not listed takes the facts of the newest listed one of its lifecycle
 * (ingest warns).
 */
export const HTTP_FACTS: Readonly<
  Record<
    string,
    {
      lifecycle: 'handshake' | 'stateless';
      transport: 'http+sse' | 'streamable-http';
      primesStreams: boolean;
      assumedVersion: string | null;
    }
  >
> = {
  '2024-11-05': { lifecycle: 'handshake', transport: 'http+sse', primesStreams: false, assumedVersion: null },
  '2025-03-26': { lifecycle: 'handshake', transport: 'streamable-http', primesStreams: false, assumedVersion: null },
  '2025-06-18': {
    lifecycle: 'handshake',
    transport: 'streamable-http',
    primesStreams: false,
    assumedVersion: '2025-03-26',
  },
  '2025-11-25': {
    lifecycle: 'handshake',
    transport: 'streamable-http',
    primesStreams: true,
    assumedVersion: '2025-03-26',
  },
  '2026-07-28': { lifecycle: 'stateless', transport: 'streamable-http', primesStreams: false, assumedVersion: null },
};
