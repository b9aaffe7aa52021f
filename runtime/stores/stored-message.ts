/**
 * A JSON-RPC message kept as JSON text by an event store (memory or Redis), read back.
 */
import { exactIds } from '../jsonrpc/message.js';
import type { JSONRPCMessage } from '../jsonrpc/transport.js';

/**
 * The message a store kept as `text` (its `serializeMessage` form), parsed with its integer ids
 * beyond ±(2^53 − 1) exact (`exactIds`): `JSON.parse` alone would round `9007199254740993` to
 * `…992`, and a replayed or resumed response would then carry another request's id. Throws
 * SyntaxError for text that is not JSON (a store holds only what it was given).
 */
export function parseStored(text: string): JSONRPCMessage {
  const message = JSON.parse(text) as JSONRPCMessage;
  exactIds(message, text);
  return message;
}
