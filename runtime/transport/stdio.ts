/**
 * The stdio transport (2025-11-25 `basic/transports.mdx`, stdio; shutdown per
 * `basic/lifecycle.mdx`, Shutdown): newline-delimited JSON over a child process's stdin/stdout.
 *
 * - {@link StdioClientTransport} spawns the server and, on close, shuts it down: close its stdin,
 *   wait, SIGTERM, wait, SIGKILL.
 * - {@link StdioServerTransport} reads `process.stdin` and writes `process.stdout` (or given
 *   streams), and writes nothing but messages.
 *
 * Both answer what the peer engine must never see: a line that is not JSON gets `-32700` with
 * no `id` (server side by default; a client only reports it), an invalid request gets `-32600`
 * (see `classify` in `../jsonrpc/message.ts`). A line over `maxLineBytes` is dropped unread (only its
 * first and last 4 KiB are kept) and answered from what its two ends tell (`peekMessage`): a
 * request whose `id` can be read gets `-32000` "Payload Too Large" with that id (the code and
 * wording of the HTTP transports' 413 refusal) on either side; a response whose `id` can be read
 * fails the pending request with `MessageTooLargeError` (./stdio-too-long.ts, loaded on the first
 * such line); anything else gets the same error
 * with no `id` where parse errors are answered. Both report these via `onError` and keep reading. A
 * stream that ends inside a frame closes the transport with a `truncated` FrameError. A peer is
 * bounded: `maxInvalidLines` lines in a row that are not messages close the connection with
 * {@link NotJsonRpcError} (client default 1000), and more than `maxQueuedBytes` of frames
 * waiting for the peer to read them with {@link WriteQueueFullError}. A JSON
 * array (a JSON-RPC batch) goes to the engine's `onBatch` when it has one (the negotiated
 * revision decides: 2025-03-26 has batches), else it gets `-32600`; `sendBatch` writes the
 * batch's responses as one line.
 *
 * @module
 */
export {
  DEFAULT_CLIENT_MAX_INVALID_LINES,
  DEFAULT_MAX_QUEUED_BYTES,
  NotJsonRpcError,
  type StdioCommonOptions,
  WriteQueueFullError,
} from './stdio-channel.js';
export { type StderrMode, type StdioClientOptions, StdioClientTransport } from './stdio-client.js';
export { type StdioServerOptions, StdioServerTransport } from './stdio-server.js';
