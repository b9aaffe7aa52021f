/**
 * The checks every HTTP entry point of the server runs on a request's head, before it reads one
 * byte of the body (2025-11-25 basic/transports, Security Warning and "Sending Messages"; draft
 * basic/transports/streamable-http, "Security & Endpoint" and "Sending Messages"), and the
 * refusals of a body that is too large or too slow. The Streamable HTTP endpoints of both eras,
 * the dual-era front and the HTTP+SSE endpoints all go through {@link RequestGuard.check}.
 *
 * Order: 403 Host not allowed · 403 Origin present and not allowed · 405 method not served
 * (`Allow`) · 406 Accept (Streamable HTTP: a POST lists `application/json` and
 * `text/event-stream`, a GET `text/event-stream`) · 415 a POST's Content-Type is not
 * `application/json` (a charset other than utf-8 included), or its Content-Encoding is not
 * `identity` (RFC 9110 section 15.5.16; `Accept-Encoding: identity` says what is read) · 413 a POST's Content-Length is over `maxBodyBytes`. The endpoint's own
 * head checks (protocol version, session) follow; then the body is read, within `maxBodyBytes`
 * (413) and `bodyTimeoutMs` (408).
 *
 * Every refusal is a JSON-RPC error response with no `id` (no request was read) and code
 * -32000; how it is delivered while the client may still be sending is in ./node.ts
 * ({@link respondNode}).
 */

import { Cors, type CorsOptions } from './cors.js';
import { ErrorCode } from '../../../jsonrpc/errors.js';

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** A refusal: HTTP status, JSON-RPC error code and message, extra response headers. */
export interface HttpRefusal {
  status: number;
  code: number;
  message: string;
  headers?: Record<string, string>;
}

/** What the head of a request is checked against. */
export interface GuardOptions {
  /** Accepted `Host` values (`'name'` any port, `'name:port'`); `false` off. Default: loopback names on the request's port. */
  allowedHosts?: readonly string[] | false;
  /** Accepted `Origin` values, checked when present; `false` off. Default: http(s) loopback origins. */
  allowedOrigins?: readonly string[] | false;
  /** Largest POST body, bytes. Default 4 MiB (4 194 304). */
  maxBodyBytes?: number;
  /** Longest time a POST body may take to arrive, from the first body read, ms (else 408). Default 30 000. */
  bodyTimeoutMs?: number;
  /** CORS for browser clients on other origins (./cors.ts); the origins it allows pass the Origin check. Default: off. */
  cors?: CorsOptions;
}

/** The rules of one endpoint's HTTP surface. */
export interface EndpointRules {
  /** Whether the endpoint serves `method` (upper-case) for a request with these headers; else 405. */
  serves(method: string, headers: Readonly<Record<string, string | undefined>>): boolean;
  /** The `Allow` header of a 405. */
  allow: string;
  /** Streamable HTTP's Accept rules (406); off for the HTTP+SSE endpoints. Default true. */
  checkAccept?: boolean;
}

/** Largest request body read by default: 4 MiB (bytes); more is answered 413. */
export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;
/** Time a request body has to arrive by default: 30 s (ms); slower is answered 408. */
export const DEFAULT_BODY_TIMEOUT_MS = 30_000;

/**
 * A bounded cache of verdicts by header value (emptied when full). The value looked up last is
 * compared first: a client sends the same headers on every request, and comparing two strings
 * is cheaper than hashing a new one for the map (each request's header values are new strings).
 */
class Memo<T> extends Map<string, T> {
  #lastKey: string | undefined = undefined;
  #lastValue: T | undefined = undefined;
  override get(key: string): T | undefined {
    if (key === this.#lastKey) return this.#lastValue;
    const value = super.get(key);
    if (value !== undefined) {
      this.#lastKey = key;
      this.#lastValue = value;
    }
    return value;
  }
  override set(key: string, value: T): this {
    if (this.size >= 256) this.clear();
    return super.set(key, value);
  }
  override clear(): void {
    this.#lastKey = undefined;
    this.#lastValue = undefined;
    super.clear();
  }
}

const refusal = (status: number, message: string, headers?: Record<string, string>): HttpRefusal => ({
  status,
  code: ErrorCode.ServerError,
  message,
  headers,
});
const CLOSE = { Connection: 'close' };

/** The head checks of one endpoint, with the verdicts on repeated header values remembered. */
export class RequestGuard {
  readonly maxBodyBytes: number;
  readonly bodyTimeoutMs: number;
  /** The endpoint's CORS rules, when `cors` was given. */
  readonly cors: Cors | undefined;
  readonly #hostOk = new Memo<boolean>();
  #hostPort: number | undefined;
  readonly #originOk = new Memo<boolean>();
  readonly #acceptOk = new Memo<number>();
  readonly #typeOk = new Memo<boolean>();
  /** Digits of `maxBodyBytes`. */
  readonly #limitDigits: number;

  constructor(
    private readonly options: GuardOptions,
    private readonly rules: EndpointRules,
  ) {
    this.maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    this.bodyTimeoutMs = options.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS;
    this.#limitDigits = String(Math.floor(Math.max(0, this.maxBodyBytes))).length;
    this.cors = options.cors ? new Cors(options.cors) : undefined;
  }

  /**
   * Checks a request's head (`method` as sent, `headers` lower-case) in the order of the module
   * docs. Returns the refusal to answer with before the body, or undefined.
   */
  check(
    method: string,
    headers: Readonly<Record<string, string | undefined>>,
    localPort: number | undefined,
  ): HttpRefusal | undefined {
    const host = headers.host ?? '';
    if (localPort !== this.#hostPort) {
      this.#hostOk.clear();
      this.#hostPort = localPort;
    }
    let hostOk = this.#hostOk.get(host);
    if (hostOk === undefined)
      this.#hostOk.set(host, (hostOk = hostAllowed(host, localPort, this.options.allowedHosts)));
    if (!hostOk) return refusal(403, 'Forbidden: Host not allowed');
    const origin = headers.origin;
    if (origin !== undefined) {
      let originOk = this.#originOk.get(origin);
      if (originOk === undefined)
        this.#originOk.set(
          origin,
          (originOk = originAllowed(origin, this.options.allowedOrigins) || (this.cors?.allows(origin) ?? false)),
        );
      if (!originOk) return refusal(403, 'Forbidden: Origin not allowed');
    }
    const m = method === 'POST' || method === 'GET' ? method : method.toUpperCase();
    if (!this.rules.serves(m, headers)) return refusal(405, `Method not allowed: ${m}`, { Allow: this.rules.allow });
    if (this.rules.checkAccept !== false && (m === 'POST' || m === 'GET')) {
      const accept = headers.accept ?? '';
      let mask = this.#acceptOk.get(accept);
      if (mask === undefined)
        this.#acceptOk.set(
          accept,
          (mask = (accepts(accept, 'application/json') ? 1 : 0) | (accepts(accept, 'text/event-stream') ? 2 : 0)),
        );
      if (m === 'POST' && mask !== 3)
        return refusal(406, 'Not Acceptable: Accept must list application/json and text/event-stream');
      if (m === 'GET' && !(mask & 2)) return refusal(406, 'Not Acceptable: Accept must list text/event-stream');
    }
    if (m !== 'POST') return undefined;
    const type = headers['content-type'] ?? '';
    let typeOk = this.#typeOk.get(type);
    if (typeOk === undefined) this.#typeOk.set(type, (typeOk = type === 'application/json' || jsonType(type)));
    if (!typeOk)
      return refusal(415, 'Unsupported Media Type: Content-Type must be application/json (charset utf-8, if named)');
    const coding = headers['content-encoding'];
    if (coding !== undefined && coding !== '' && coding.trim().toLowerCase() !== 'identity')
      return refusal(
        415,
        `Unsupported Media Type: Content-Encoding ${JSON.stringify(coding.slice(0, 64))} is not read`,
        {
          'Accept-Encoding': 'identity',
        },
      );
    const length = headers['content-length'];
    // (fewer digits than the limit has: smaller, without a conversion)
    if (
      length !== undefined &&
      length.length >= this.#limitDigits &&
      /^[0-9]+$/.test(length) &&
      Number(length) > this.maxBodyBytes
    )
      return this.tooLarge();
    return undefined;
  }

  /** 413: the body (by its Content-Length, or as it arrived) is over `maxBodyBytes`. */
  tooLarge(): HttpRefusal {
    return refusal(413, `Payload Too Large: body exceeds ${this.maxBodyBytes} bytes`, CLOSE);
  }

  /** 408: the body did not arrive within `bodyTimeoutMs`. */
  timedOut(): HttpRefusal {
    return refusal(408, `Request Timeout: body not received within ${this.bodyTimeoutMs} ms`, CLOSE);
  }

  /** The refusal for a body read that gave no bytes (413 or 408). */
  bodyRefusal(failure: BodyFailure): HttpRefusal {
    return failure === 'too-large' ? this.tooLarge() : this.timedOut();
  }
}

/** Why a body read gave no bytes: over the limit, or not complete in time. */
export type { BodyFailure } from './types.js';
import type { BodyFailure } from './types.js';

/** The JSON text of a refusal: `{"jsonrpc":"2.0","error":{code,message}}` (no `id`: none was read). */
export function refusalBody(r: HttpRefusal): string {
  return JSON.stringify({ jsonrpc: '2.0', error: { code: r.code, message: r.message } });
}

/** The response headers of a refusal (JSON, plus its own). */
export function refusalHeaders(r: HttpRefusal, extra?: Record<string, string>): Record<string, string> {
  return { 'Content-Type': 'application/json', ...r.headers, ...extra };
}

/** Whether an Accept header lists `type` with a non-zero quality. */
export function accepts(accept: string | undefined, type: string): boolean {
  if (!accept) return false;
  return accept.split(',').some((part) => {
    const [range, ...params] = part.split(';').map((x) => x.trim().toLowerCase());
    if (range !== type) return false;
    const q = params.find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

/** The media type of a `Content-Type` / `Accept` value, lower-case, parameters dropped (`undefined` in, `undefined` out). */
export function mediaType(value: string | undefined): string | undefined {
  return value?.split(';')[0].trim().toLowerCase();
}

/**
 * Whether a POST's Content-Type is JSON as MCP sends it: `application/json`, with no `charset` or
 * `charset=utf-8` (RFC 8259 section 8.1: JSON between systems is UTF-8; a body in another charset
 * would be read as UTF-8 and misread).
 */
function jsonType(value: string): boolean {
  const [type, ...params] = value.split(';');
  if (type.trim().toLowerCase() !== 'application/json') return false;
  for (const param of params) {
    const eq = param.indexOf('=');
    if (eq < 0 || param.slice(0, eq).trim().toLowerCase() !== 'charset') continue;
    const charset = param
      .slice(eq + 1)
      .trim()
      .replace(/^"(.*)"$/, '$1')
      .toLowerCase();
    if (charset !== 'utf-8' && charset !== 'utf8') return false;
  }
  return true;
}

/** Splits `host[:port]` (IPv6 in brackets) into a lower-case name and a port. */
function splitHost(host: string): { name: string; port?: string } {
  const m = /^(\[[^\]]*\]|[^:]*)(?::(\d+))?$/.exec(host.trim().toLowerCase());
  return m ? { name: m[1], port: m[2] } : { name: host.toLowerCase() };
}

/**
 * Whether a request's `Host` header is accepted (DNS rebinding protection, 2025-11-25
 * basic/transports, Security Warning): `allowed` false accepts any; a list accepts its names
 * (a port in an entry must match); undefined accepts loopback names only, on `localPort` when known.
 */
export function hostAllowed(
  host: string | undefined,
  localPort: number | undefined,
  allowed: readonly string[] | false | undefined,
): boolean {
  if (allowed === false) return true;
  if (!host) return false;
  const { name, port } = splitHost(host);
  if (allowed === undefined) {
    if (!LOOPBACK.has(name)) return false;
    return localPort === undefined || port === undefined || Number(port) === localPort;
  }
  return allowed.some((entry) => {
    const e = splitHost(entry);
    return e.name === name && (e.port === undefined || e.port === port);
  });
}

/**
 * Whether a request's `Origin` is accepted (2025-11-25 basic/transports, Security Warning):
 * `allowed` false accepts any; a list accepts its origins (case-insensitive); undefined accepts
 * http(s) origins on loopback hosts only.
 */
export function originAllowed(origin: string, allowed: readonly string[] | false | undefined): boolean {
  if (allowed === false) return true;
  if (allowed !== undefined) return allowed.some((o) => o.toLowerCase() === origin.toLowerCase());
  try {
    const u = new URL(origin);
    return (u.protocol === 'http:' || u.protocol === 'https:') && LOOPBACK.has(u.hostname);
  } catch {
    return false;
  }
}
