/**
 * CORS for the HTTP server transports (Fetch Standard, "CORS protocol"), so that a browser app
 * on another origin can call an MCP endpoint: the preflight (`OPTIONS` with
 * `Access-Control-Request-Method`) is answered 204, and every response to an allowed `Origin`
 * carries `Access-Control-Allow-Origin` and `Access-Control-Expose-Headers` (by default
 * `Mcp-Session-Id`, `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`, `WWW-Authenticate`: what
 * a client reads from responses). Request headers a preflight may ask for: `Accept`,
 * `Content-Type`, `Authorization`, `Last-Event-ID`, `Mcp-Session-Id`, `MCP-Protocol-Version`,
 * `Mcp-Method`, `Mcp-Name`, any `Mcp-Param-*` (the stateless request metadata headers), and
 * `allowHeaders`.
 *
 * This sits on top of the Host and Origin checks of ./guard.ts, which stay on: an origin CORS
 * allows is also one the Origin check accepts; any other `Origin` is still refused with 403.
 */

/** CORS settings of an endpoint (`cors` in the handler options). */
export interface CorsOptions {
  /** Origins allowed (`scheme://host[:port]`, compared case-insensitively), or `'*'` for any. */
  allowedOrigins: readonly string[] | '*';
  /** Response headers the page may read. Default {@link DEFAULT_EXPOSED_HEADERS}. */
  exposeHeaders?: readonly string[];
  /** Request headers allowed beyond the MCP ones (e.g. a custom auth header). */
  allowHeaders?: readonly string[];
  /** `Access-Control-Max-Age` of preflight answers, seconds. Default 600. */
  maxAgeSeconds?: number;
  /** Send `Access-Control-Allow-Credentials: true` (cookies, HTTP auth). Default false. */
  credentials?: boolean;
}

/** Response headers a browser page may read by default (`Access-Control-Expose-Headers`): the session id, protocol version, method and name headers, and `WWW-Authenticate`. */
export const DEFAULT_EXPOSED_HEADERS: readonly string[] = [
  'Mcp-Session-Id',
  'MCP-Protocol-Version',
  'Mcp-Method',
  'Mcp-Name',
  'WWW-Authenticate',
  // RFC 9449 §8: a browser client reads the server's nonce for its next DPoP proof
  'DPoP-Nonce',
];
const MCP_REQUEST_HEADERS = [
  'accept',
  'content-type',
  'authorization',
  // RFC 9449: the proof of a DPoP-bound token, on every request
  'dpop',
  'last-event-id',
  'mcp-session-id',
  'mcp-protocol-version',
  'mcp-method',
  'mcp-name',
];

/** A preflight verdict: the status and headers of the answer (no body). */
export interface PreflightAnswer {
  status: number;
  headers: Record<string, string>;
}

/** The CORS rules of one endpoint. */
export class Cors {
  readonly #origins: Set<string> | '*';
  readonly #expose: string;
  readonly #allowHeaders: Set<string>;
  readonly #maxAge: string;
  readonly #credentials: boolean;

  /** @throws TypeError when `allowedOrigins` is neither `'*'` nor an array of strings. */
  constructor(options: CorsOptions) {
    const o = options.allowedOrigins;
    if (o !== '*' && !(Array.isArray(o) && o.every((x) => typeof x === 'string')))
      throw new TypeError("cors.allowedOrigins must be '*' or an array of origins");
    this.#origins = o === '*' ? '*' : new Set(o.map((x) => x.toLowerCase().replace(/\/$/, '')));
    this.#expose = (options.exposeHeaders ?? DEFAULT_EXPOSED_HEADERS).join(', ');
    this.#allowHeaders = new Set([...MCP_REQUEST_HEADERS, ...(options.allowHeaders ?? []).map((h) => h.toLowerCase())]);
    this.#maxAge = String(options.maxAgeSeconds ?? 600);
    this.#credentials = options.credentials ?? false;
  }

  /** Whether `origin` (an `Origin` header value) is allowed. */
  allows(origin: string): boolean {
    return this.#origins === '*' || this.#origins.has(origin.toLowerCase());
  }

  /** The CORS headers of a response to a request from `origin`; undefined when there is none or it is not allowed. */
  responseHeaders(origin: string | undefined): Record<string, string> | undefined {
    if (origin === undefined || !this.allows(origin)) return undefined;
    const h: Record<string, string> = {
      'Access-Control-Allow-Origin': this.#origins === '*' && !this.#credentials ? '*' : origin,
      'Access-Control-Expose-Headers': this.#expose,
      Vary: 'Origin',
    };
    if (this.#credentials) h['Access-Control-Allow-Credentials'] = 'true';
    return h;
  }

  /**
   * The answer to a preflight (`method` OPTIONS with `Origin` and `Access-Control-Request-Method`
   * among `headers`, lower-case names), or undefined when the request is no preflight. A
   * preflight from an origin not allowed, for a method other than GET, POST, DELETE, or asking
   * for a header not allowed, gets 403 without CORS headers (the browser then refuses the call).
   */
  preflight(method: string, headers: Readonly<Record<string, string | undefined>>): PreflightAnswer | undefined {
    if (method.toUpperCase() !== 'OPTIONS') return undefined;
    const origin = headers.origin;
    const wanted = headers['access-control-request-method'];
    if (origin === undefined || wanted === undefined) return undefined;
    const base = this.responseHeaders(origin);
    if (!base || !['GET', 'POST', 'DELETE'].includes(wanted.toUpperCase())) return { status: 403, headers: {} };
    const asked = (headers['access-control-request-headers'] ?? '')
      .split(',')
      .map((h) => h.trim().toLowerCase())
      .filter((h) => h !== '');
    if (!asked.every((h) => this.#allowHeaders.has(h) || h.startsWith('mcp-param-')))
      return { status: 403, headers: {} };
    const out: Record<string, string> = {
      ...base,
      'Access-Control-Allow-Methods': 'GET, POST, DELETE',
      'Access-Control-Max-Age': this.#maxAge,
    };
    if (asked.length > 0) out['Access-Control-Allow-Headers'] = asked.join(', ');
    return { status: 204, headers: out };
  }
}

/**
 * A WHATWG request's headers (lower-case names; `host` from the URL when the request has none)
 * and its local port (the URL's, else 443 for https and 80 for http), as the guards read them.
 */
export function headOfRequest(request: Request): {
  headers: Record<string, string | undefined>;
  localPort: number | undefined;
} {
  // (a WHATWG Headers iterates its names lower-case; a Request's url is always absolute)
  const headers: Record<string, string | undefined> = Object.fromEntries(request.headers);
  const url = new URL(request.url);
  headers.host ??= url.host;
  return { headers, localPort: Number(url.port || (url.protocol === 'https:' ? 443 : 80)) };
}

/**
 * Runs a `fetch` handler under `cors`: a preflight is answered here, any other response gets
 * the CORS headers of the request's `Origin` (when allowed).
 */
export async function withCors(
  cors: Cors | undefined,
  request: Request,
  handle: (request: Request) => Promise<Response>,
): Promise<Response> {
  if (!cors) return handle(request);
  const origin = request.headers.get('origin') ?? undefined;
  if (request.method.toUpperCase() === 'OPTIONS') {
    const answer = cors.preflight('OPTIONS', Object.fromEntries(request.headers));
    if (answer) return new Response(null, answer);
  }
  const response = await handle(request);
  const extra = cors.responseHeaders(origin);
  if (!extra) return response;
  try {
    for (const [k, v] of Object.entries(extra)) response.headers.set(k, v);
    return response;
  } catch {
    // an immutable response (e.g. one a fetch returned): copy it
    const copy = new Response(response.body, response);
    for (const [k, v] of Object.entries(extra)) copy.headers.set(k, v);
    return copy;
  }
}

/** The few members of a `node:http` request/response pair CORS needs (no `node:` import here). */
interface NodePair {
  req: { method?: string; headers: Record<string, string | string[] | undefined> };
  res: {
    setHeader(name: string, value: string): unknown;
    writeHead(status: number, headers?: Record<string, string>): { end(): unknown };
  };
}

/**
 * Applies `cors` to a `node:http` exchange before the handler runs: answers a preflight (true:
 * handled) or sets the CORS response headers, which the handler's `writeHead` keeps.
 */
export function corsNode(cors: Cors | undefined, req: NodePair['req'], res: NodePair['res']): boolean {
  if (!cors) return false;
  const origin = req.headers.origin;
  if (typeof origin !== 'string') return false;
  // (preflight() answers OPTIONS alone)
  const answer = cors.preflight(req.method ?? '', req.headers as Record<string, string | undefined>);
  if (answer) {
    res.writeHead(answer.status, answer.headers).end();
    return true;
  }
  const extra = cors.responseHeaders(origin);
  if (extra) for (const [k, v] of Object.entries(extra)) res.setHeader(k, v);
  return false;
}
