/**
 * diff: a semantic comparison of two ProtocolModels (`mcpgen diff A B`). Pure: no I/O, output
 * depends only on the two models (sorted, no timestamps). Also a small line diff of two texts
 * for `mcpgen check` (firstLineDiff).
 *
 * The parts live in ./diff/: report.ts (the report's shape and who a change breaks), schema.ts
 * (schema views), walk.ts (the walk of two schemas), models.ts (the diff of two models, section
 * by section), render.ts (JSON, Markdown, the line diff).
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
export {
  type Breaking,
  type Change,
  type ChangeKind,
  type Counts,
  DEFAULT_MAX_DEPTH,
  type DiffOptions,
  type DiffReport,
  type ModelRef,
  type Party,
  SECTIONS,
  SECTION_TITLES,
  type Section,
} from './diff/report.js';
export { diffModels, hasBreaking } from './diff/models.js';
export { type MarkdownOptions, firstLineDiff, renderJson, renderMarkdown } from './diff/render.js';
