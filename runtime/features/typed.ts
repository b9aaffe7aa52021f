/**
 * The features' shapes typed by a revision's generated method maps `P` (`Protocol` of
 * `generated/<rev>/protocol.gen.ts`): what a tool, prompt or resource handler returns is that
 * revision's `CallToolResult`, `GetPromptResult` or `ReadResourceResult` contents, so a content
 * block the revision does not define (`{ type: 'txt' }`) is a compile error. With the untyped
 * default `ProtocolMaps` (results `unknown`) each shape falls back to its loose form (`Loose`).
 *
 * The fields `ServerFeatures` fills itself (`resultType`, and the caching fields `ttlMs`,
 * `cacheScope` of stateless revisions) are optional in what a handler returns. Types only: no
 * value at run time.
 */
import type { ProtocolMaps } from '../protocol/table.js';

/** Result fields ServerFeatures fills in (stateless revisions): optional for handlers. */
type Filled = 'resultType' | 'ttlMs' | 'cacheScope';

/** `R` with the {@link Filled} members optional (index signatures and other members kept). */
export type HandlerReturn<R> = R extends object
  ? { [K in keyof R as K extends Filled ? never : K]: R[K] } & { [K in keyof R & Filled]?: R[K] }
  : R;

/**
 * What a handler of client request `M` returns in `P`: the revision's result (filled fields
 * optional) or one of its other results (`alt`: CreateTaskResult, InputRequiredResult); `Loose`
 * when `P` does not type `M`.
 */
export type ResultOf<P extends ProtocolMaps, M extends string, Loose> = M extends keyof P['clientRequests']
  ? unknown extends P['clientRequests'][M]['result']
    ? Loose
    : HandlerReturn<P['clientRequests'][M]['result']> | P['clientRequests'][M]['alt']
  : Loose;

/** The element type of array member `K` of `P`'s result of `M` (e.g. `messages` of prompts/get), or `Loose`. */
export type ResultElementOf<P extends ProtocolMaps, M extends string, K extends string, Loose> = M extends keyof P['clientRequests']
  ? unknown extends P['clientRequests'][M]['result']
    ? Loose
    : P['clientRequests'][M]['result'] extends { [Q in K]: ReadonlyArray<infer E> }
      ? E
      : Loose
  : Loose;
