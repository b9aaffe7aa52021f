/**
 * ProtocolModel: everything an emitter needs to know about one MCP revision, as plain
 * JSON-serialisable data (written to `generated/<rev>/model.json`). Built by `ingest`.
 */
/**
 * Which side sends a message. The runtime's table (runtime/protocol/table.ts) names directions
 * the same way; the generated protocol.gen.ts, which fills that table from this model, would
 * not type-check if they parted.
 */
export type Direction = 'clientToServer' | 'serverToClient';

/** A JSON Schema object (2020-12; references are `#/$defs/<Name>`). */
export type JsonSchema = { [key: string]: unknown };

export interface TypeDef {
  name: string;
  /** The definition, normalised to `#/$defs/` references. */
  schema: JsonSchema;
  description?: string;
  /** `@deprecated` from schema.ts (its text, or '' when it has none). */
  deprecated?: string;
  /** `@category` from schema.ts (backticks removed), e.g. `tools/call` or `Common Types`. */
  category?: string;
  /** `@internal` in schema.ts. */
  internal?: boolean;
}

export interface RequestDef {
  method: string;
  direction: Direction;
  /** The request message type, e.g. `CallToolRequest`. */
  requestType: string;
  /** Named params type (e.g. `CallToolRequestParams`), or null when params are inline or absent. */
  paramsType: string | null;
  /** Whether the request has a `params` member at all. */
  hasParams: boolean;
  paramsRequired: boolean;
  /** The result type of a plain call, e.g. `CallToolResult`. */
  resultType: string;
  /** Other results the receiver may answer with (`CreateTaskResult`, `InputRequiredResult`). */
  altResultTypes: string[];
  /** `*ResultResponse` type when the schema has one. */
  resultResponseType: string | null;
  /** Capability path the receiver must declare, e.g. ['resources', 'subscribe']. */
  capability: string[] | null;
  /** May carry `params.task` (task-augmented, 2025-11-25). */
  taskAugmentable: boolean;
  /** May be answered with an InputRequiredResult (multi round-trip, 2026-07-28+). */
  inputRequired: boolean;
  /** Server→client request that only travels inside an InputRequiredResult. */
  embedded: boolean;
  /** The result is the result of another request (tasks/result). */
  resultOfOriginalRequest: boolean;
  /** How the pairing was found: schema `*ResultResponse`, `@category`, name, or override. */
  pairedBy: 'resultResponse' | 'category' | 'name' | 'override';
}

export interface NotificationDef {
  method: string;
  direction: Direction;
  notificationType: string;
  paramsType: string | null;
  hasParams: boolean;
  paramsRequired: boolean;
  capability: string[] | null;
}

export interface InputFile {
  path: string;
  sha256: string;
  size: number;
}

/**
 * What a revision's transports page says that its schema cannot, and the runtime needs to serve
 * it over HTTP (from generator/overrides.ts `HTTP_FACTS`).
 */
export interface HttpFacts {
  /** `http+sse`: the HTTP+SSE transport (2024-11-05); `streamable-http`: Streamable HTTP. */
  transport: 'http+sse' | 'streamable-http';
  /** Server SSE streams start with a priming event (an event ID and empty data). */
  primesStreams: boolean;
  /** The version a server assumes for a request without `MCP-Protocol-Version` and no other clue; null when the page says none. */
  assumedVersion: string | null;
}

export interface ProtocolModel {
  /** Revision id: a pinned revision (`2025-11-25`, `draft`) or an unpinned folder's name. */
  revision: string;
  /** LATEST_PROTOCOL_VERSION of schema.ts. */
  protocolVersion: string;
  lifecycle: 'handshake' | 'stateless';
  /** HTTP transport facts of the revision. */
  http: HttpFacts;
  /** The JSON Schema dialect schema.json declared. */
  dialect: string;
  inputs: { schemaJson: InputFile; schemaTs: InputFile; pinned: boolean; commit: string | null };
  /** Every named type, sorted by name. */
  types: Record<string, TypeDef>;
  /** Sorted by direction then method. */
  requests: RequestDef[];
  notifications: NotificationDef[];
  /**
   * Exported numeric error constants of schema.ts, e.g. METHOD_NOT_FOUND: -32601, and the codes
   * of `XxxError` types no constant names, under the type's constant name (`UNSUPPORTED_PROTOCOL_VERSION`
   * from `UnsupportedProtocolVersionError`; ./runtime-facts.ts `errorCodesOfErrorTypes`).
   */
  errorCodes: Record<string, number>;
  /** Other exported constants (LATEST_PROTOCOL_VERSION, JSONRPC_VERSION). */
  constants: Record<string, string | number>;
  /**
   * The members of schema.ts's `LoggingLevel` union in declaration order, least severe first
   * (schema.json's enum is sorted and loses the order); empty when the revision has no such type
   * (absent in models built by hand: none).
   */
  loggingLevels?: string[];
  /** Where schema.json loses what schema.ts says, and what was done about it. */
  warnings: string[];
}
