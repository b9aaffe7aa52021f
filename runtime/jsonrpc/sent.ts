/**
 * The promise a transport's `send` may return when it accepted the message without waiting
 * (queued for the next write, no backpressure): already resolved, and the same object every
 * time, so the engine can tell by identity that there is no failure to watch for and skip a
 * rejection handler (a promise, a closure and a microtask) per message. Any other promise is
 * watched as usual.
 */
export const SENT: Promise<void> = Promise.resolve();
