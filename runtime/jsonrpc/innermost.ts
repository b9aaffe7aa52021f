/**
 * The network error under an error, for messages (./errors.ts RequestNotProcessedError, and the
 * HTTP clients' fetch form, ../transport/http/io/request.ts). Internal: not in the jsonrpc index.
 */

/**
 * The code and message of the innermost `cause` of `e` (fetch's "fetch failed" holds the
 * network error one or two `cause` levels down, e.g. an AggregateError of each address tried,
 * whose own message is empty): "connect ECONNREFUSED 127.0.0.1:9", or "ECONNREFUSED" and the
 * message when the message does not name the code.
 */
export function innermost(e: Error): string {
  let at: Error = e;
  for (let depth = 0; depth < 8 && at.cause instanceof Error; depth++) at = at.cause;
  if (at.message === '' && at instanceof AggregateError && at.errors[0] instanceof Error) {
    const code = (at as { code?: unknown }).code;
    at = Object.assign(new Error(at.errors[0].message), { code: code ?? (at.errors[0] as { code?: unknown }).code });
  }
  const code = (at as { code?: unknown }).code;
  const message = at.message || at.name;
  return typeof code === 'string' && !message.includes(code) ? `${code}: ${message}` : message;
}
