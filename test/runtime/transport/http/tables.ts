/**
 * The generated tables the HTTP endpoints of the tests serve: the runtime names no revision, so
 * an endpoint is told which ones it serves (accepted `MCP-Protocol-Version` values, the version
 * assumed without one, which streams are primed).
 */
import type { ProtocolTable } from '../../../../runtime/protocol/table.js';
import { table as t20250326 } from '../../../../generated/2025-03-26/index.js';
import { table as t20250618 } from '../../../../generated/2025-06-18/index.js';
import { table as t20251125 } from '../../../../generated/2025-11-25/index.js';
import { table as tDraft } from '../../../../generated/draft/index.js';

/** The Streamable HTTP revisions with sessions, newest first. */
export const SESSION_TABLES: readonly ProtocolTable[] = [t20251125, t20250618, t20250326];
/** The stateless revision of the tests. */
export const STATELESS_TABLES: readonly ProtocolTable[] = [tDraft];
