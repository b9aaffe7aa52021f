/**
 * Revision facts read from the generated tables, so that no part of the runtime names a
 * protocol version itself: the versions a set of tables serves, the version an HTTP server
 * assumes for a request that names none, and which versions start SSE streams with a priming
 * event (each revision's `basic/transports` page, emitted as `table.http`).
 *
 * Protocol versions are only ever compared for equality; their order is the order of the
 * tables given (a server's own table first, then its fallbacks, newest first).
 */
import type { ProtocolTable } from './table.js';

/** What the HTTP transports need to know of the revisions they serve. */
export interface HttpVersionFacts {
  /** Every protocol version of the tables, each once, in table order. */
  readonly versions: readonly string[];
  /** The version assumed for a request without `MCP-Protocol-Version` (first table stating one), if any. */
  readonly assumed: string | undefined;
  /** Versions whose SSE streams start with a priming event. */
  readonly priming: ReadonlySet<string>;
}

/** The protocol versions of `tables`, each once, in the order given. */
export function protocolVersions(tables: Iterable<Pick<ProtocolTable, 'protocolVersion'>>): string[] {
  return [...new Set([...tables].map((t) => t.protocolVersion))];
}

/** The tables of one lifecycle (`handshake`: initialize and sessions; `stateless`: per-request `_meta`). */
export function tablesOf<T extends Pick<ProtocolTable, 'lifecycle'>>(
  tables: Iterable<T>,
  lifecycle: ProtocolTable['lifecycle'],
): T[] {
  return [...tables].filter((t) => t.lifecycle === lifecycle);
}

/** The HTTP facts of `tables` (see {@link HttpVersionFacts}). */
export function httpVersionFacts(tables: Iterable<ProtocolTable>): HttpVersionFacts {
  const list = [...tables];
  return {
    versions: protocolVersions(list),
    // (the table found states one: it is not null there)
    assumed: list.find((t) => t.http?.assumedVersion)?.http?.assumedVersion as string | undefined,
    priming: new Set(list.filter((t) => t.http?.primesStreams).map((t) => t.protocolVersion)),
  };
}
