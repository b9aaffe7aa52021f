/**
 * The answer to a stdio line over `maxLineBytes` (./stdio.ts), from what the line's two ends
 * tell (../jsonrpc/peek.ts): a request whose `id` can be read gets `-32000` "Payload Too Large"
 * with that id (the code and wording of the HTTP transports' 413 refusal); a response whose `id`
 * can be read fails the pending request with {@link MessageTooLargeError}; anything else gets the
 * same error with no `id` where parse errors are answered. A response is never answered.
 * Loaded by the first over-long line of the process.
 */
import type { FrameError } from '../codec/ndjson.js';
import { errorResponse, idText } from '../jsonrpc/message.js';
import { MessageTooLargeError, peekMessage } from '../jsonrpc/peek.js';
import type { TransportEvents } from '../jsonrpc/transport.js';

/**
 * Answers the over-long line `e` (kind `line-too-long`, with its head and tail) of a channel
 * whose limit is `limit` bytes: through `write` (a refusal), `events` (a failed pending request)
 * or not at all.
 * @throws what `events` throws (the channel reports it).
 */
export function answerTooLong(
  e: FrameError,
  limit: number,
  answerParseErrors: boolean,
  events: TransportEvents | undefined,
  write: (message: unknown) => Promise<void>,
): void {
  const peek = peekMessage(e.head, e.tail);
  const id = peek.id;
  if (peek.response && !peek.method) {
    if (id === undefined) return;
    const error = new MessageTooLargeError(limit, e.bytes, `the response to request ${idText(id)}`);
    if (events?.onRequestError) events.onRequestError(id, error);
    else events?.onMessage(errorResponse(id, error.code, error.message, error.data));
    return;
  }
  // a request's refusal carries its id; anything else none, where parse errors are answered
  const request = peek.method && id !== undefined;
  if (request || answerParseErrors) {
    const refusal = new MessageTooLargeError(limit, e.bytes);
    write(errorResponse(request ? id : undefined, refusal.code, refusal.message, refusal.data)).catch(() => undefined);
  }
}
