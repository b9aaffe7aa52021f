/**
 * ExtensionModel: what an emitter needs to know about one MCP extension published as a schema
 * (MCP Apps' `schema.json` + `spec.types.d.ts`), as plain JSON-serialisable data. Built by
 * ./ingest.ts; diffed by ../diff.ts like a revision's model.
 *
 * An extension whose messages travel on a channel of their own (MCP Apps: JSON-RPC over
 * `postMessage` between a host and the view it renders) has two parties. The model names each
 * message's direction as the ProtocolModel does, the party that starts the channel's handshake
 * being the `client` (`clientToServer`: MCP Apps' view → host, as the extension's transport
 * section puts it: views act as MCP clients of their host) and the other the `server`
 * (`serverToClient`: host → view); `parties` gives the extension's own names for the two.
 */
import type { InputFile, NotificationDef, ProtocolModel, RequestDef, TypeDef } from '../model.js';

export interface ExtensionFacts {
  /** The extension's name in the pins (`apps`). */
  name: string;
  /** The identifier it is negotiated by (`io.modelcontextprotocol/ui`). */
  identifier: string;
  /** The npm package and version the schema comes from. */
  package: string;
  version: string;
  /** The extension's names of the two parties: the `client` side of its channel and the `server` side. */
  parties: { client: string; server: string };
  /** The capabilities types each party declares in the handshake (`McpUiAppCapabilities`, `McpUiHostCapabilities`); null when the schema has none. */
  capabilityTypes: { client: string | null; server: string | null };
}

/**
 * What rides on MCP itself, typed into each revision's client and server: the `_meta` member of
 * tools and resources the extension defines, and the settings a client declares under
 * `capabilities.extensions[identifier]`. Each type is null when the schema defines none.
 */
export interface McpRiders {
  /** The `_meta` member name (`ui`: `_meta.ui`). */
  metaKey: string;
  /** Type of `Tool._meta[metaKey]` (`McpUiToolMeta`). */
  toolMeta: string | null;
  /** Type of `Resource._meta[metaKey]` and of a read content's `_meta[metaKey]` (`McpUiResourceMeta`). */
  resourceMeta: string | null;
  /** Type of `ClientCapabilities.extensions[identifier]` (`McpUiClientCapabilities`). */
  clientCapabilities: string | null;
}

export interface ExtensionModel {
  extension: ExtensionFacts;
  /** `<name>@<version>` (`apps@2.0.4`): names the inputs in preambles and diffs. */
  revision: string;
  /** The extension protocol's version (LATEST_PROTOCOL_VERSION of its declarations, e.g. `2026-01-26`). */
  protocolVersion: string;
  /** An initialize request and initialized notification open the channel. */
  lifecycle: 'handshake';
  dialect: string;
  inputs: { schemaJson: InputFile; typesTs: InputFile; pinned: boolean };
  /** Every named type, sorted by name. */
  types: Record<string, TypeDef>;
  /** Sorted by direction then method. */
  requests: RequestDef[];
  notifications: NotificationDef[];
  /** The extension defines no error codes of its own (empty): kept for the diff. */
  errorCodes: Record<string, number>;
  constants: Record<string, string | number>;
  mcp: McpRiders;
  /** Where the inputs needed a repair or a rule from ./overrides.ts, and what was done. */
  warnings: string[];
}

/**
 * The extension model as the revision emitters read one (types, messages, inputs for the
 * preamble) and the diff (../diff.ts) do: they read nothing else of it. The declarations
 * file stands where a revision's schema.ts does; the HTTP facts are a revision's and unused.
 */
export function asRevisionModel(ext: ExtensionModel): ProtocolModel {
  return {
    revision: ext.revision,
    protocolVersion: ext.protocolVersion,
    lifecycle: 'handshake',
    http: { transport: 'streamable-http', primesStreams: false, assumedVersion: null },
    dialect: ext.dialect,
    inputs: {
      schemaJson: ext.inputs.schemaJson,
      schemaTs: ext.inputs.typesTs,
      pinned: ext.inputs.pinned,
      commit: null,
    },
    types: ext.types,
    requests: ext.requests,
    notifications: ext.notifications,
    errorCodes: {},
    constants: ext.constants,
    warnings: [],
  };
}

/**
 * Whether an extension model's warning reports a fact about the extension's published inputs that
 * mcpgen handles by a rule of its own (a definition local to another hoisted, a direction taken
 * from ./overrides.ts, a request without a result type typed as Result): the same on every run,
 * nothing the user can act on. `mcpgen generate --ext` counts these in one note line and
 * `<rev>/<name>/model.json` lists them; the other warnings are printed one per line.
 */
export const handledUpstream = (warning: string): boolean =>
  / a definition local to \S+ \(its \$refs are relative to \S+\); hoisted as \S+$/.test(warning) ||
  /: no direction stated; .*\(generator\/extension\/overrides\.ts\)$/.test(warning) ||
  warning.endsWith('; its result is typed as Result (any result object)');
