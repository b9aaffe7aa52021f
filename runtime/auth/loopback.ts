/** Loopback host names: where http:// is tolerated for authorization endpoints (tests, local development). */
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Whether `url`'s host is a loopback name. */
export function isLoopbackUrl(url: URL): boolean {
  return LOOPBACK.has(url.hostname.toLowerCase());
}
