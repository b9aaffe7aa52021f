/**
 * Discovery for both sides (2025-11-25 basic/authorization, "Authorization Server Discovery";
 * draft basic/authorization/authorization-server-discovery): protected resource metadata
 * (RFC 9728) from a `WWW-Authenticate` `resource_metadata` URL, else the path-inserted then
 * the root well-known URI; authorization server metadata (RFC 8414, OpenID Connect Discovery)
 * at the well-known URIs in the order the spec lists, the document's `issuer` identical to the
 * issuer it was looked up for (oauth4webapi's `processDiscoveryResponse`).
 */
import * as oauth from 'oauth4webapi';

/** Fetch and transport options of discovery. */
export interface DiscoveryOptions {
  /** The fetch to use. Default `globalThis.fetch`. */
  fetch?: typeof globalThis.fetch;
  /** Allow http:// on loopback hosts (tests, local development). Default true. */
  allowLoopbackHttp?: boolean;
  /** Extra request headers (e.g. `MCP-Protocol-Version`). */
  headers?: Record<string, string>;
  /** Aborts the lookups. */
  signal?: AbortSignal;
}

/**
 * A request of the authorization machinery (discovery, registration, token, keys, and the
 * authorizing fetch's own) that failed before any response: refused connection, unknown host,
 * TLS, reset. A `TypeError` as `fetch`'s own, whose message names the method, the URL and the
 * cause (`GET http://127.0.0.1:9/.well-known/oauth-authorization-server failed: fetch failed
 * (connect ECONNREFUSED 127.0.0.1:9)`); `cause` is the original error.
 */
export class AuthFetchError extends TypeError {
  readonly url: string;
  readonly method: string;
  constructor(method: string, url: string, cause: unknown) {
    super(`${method} ${url} failed: ${causeText(cause)}`, { cause });
    this.name = 'AuthFetchError';
    this.method = method;
    this.url = url;
  }
}

/** The message of a fetch failure with its cause's (undici puts the reason there: `connect ECONNREFUSED …`). */
function causeText(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  const inner = e.cause as (Error & { code?: string }) | undefined;
  const detail = inner instanceof Error ? inner.message || inner.code || inner.name : undefined;
  return detail && detail !== e.message ? `${e.message} (${detail})` : e.message;
}

const NAMING: unique symbol = Symbol('mcpgen.namingFetch');

/**
 * `f` with its failures before a response thrown as {@link AuthFetchError} naming the method and
 * URL. An abort or timeout (`AbortError`, `TimeoutError`: the caller's signal) and an
 * AuthFetchError pass through unchanged; a response of any status is returned as it is.
 * Wrapping a wrapped fetch returns it.
 */
export function namingFetch(f: typeof globalThis.fetch): typeof globalThis.fetch {
  if ((f as { [NAMING]?: true })[NAMING]) return f;
  const named = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    try {
      return await f(input, init);
    } catch (e) {
      const name = (e as Error | undefined)?.name;
      if (e instanceof AuthFetchError || name === 'AbortError' || name === 'TimeoutError') throw e;
      const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
      const method = (
        init?.method ??
        (typeof input === 'object' && !(input instanceof URL) ? input.method : undefined) ??
        'GET'
      ).toUpperCase();
      throw new AuthFetchError(method, url, e);
    }
  };
  return Object.assign(named, { [NAMING]: true as const }) as typeof globalThis.fetch;
}

/** An authorization server's metadata (oauth4webapi's type: RFC 8414 fields and OpenID ones). */
export type AuthorizationServerMetadata = oauth.AuthorizationServer;

/** Why discovery failed: no document at any of the URLs tried (listed), or a document refused. */
export class DiscoveryError extends Error {
  /** `not-found`: no URL answered 200; `invalid`: a document was found and refused. */
  readonly kind: 'not-found' | 'invalid';
  constructor(
    message: string,
    readonly tried: readonly string[],
    kind: 'not-found' | 'invalid' = 'invalid',
  ) {
    super(message);
    this.kind = kind;
    this.name = 'DiscoveryError';
  }
}

/** Loopback host names: where http:// is tolerated for authorization endpoints (tests, local development). */
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Whether `url`'s host is a loopback name (an http(s) URL's `hostname` is lower-case already). */
export function isLoopbackUrl(url: URL): boolean {
  return LOOPBACK.has(url.hostname);
}

/** Refuses a non-https URL, unless http on a loopback host is allowed. */
export function checkSecure(url: URL, allowLoopbackHttp = true): void {
  if (url.protocol === 'https:') return;
  if (url.protocol === 'http:' && allowLoopbackHttp && isLoopbackUrl(url)) return;
  throw new TypeError(`${url.href}: authorization endpoints must use https`);
}

/**
 * The well-known metadata URLs of an issuer, in the spec's order. With a path
 * (`https://a/t1`): `/.well-known/oauth-authorization-server/t1`,
 * `/.well-known/openid-configuration/t1`, `/t1/.well-known/openid-configuration`; without:
 * `/.well-known/oauth-authorization-server`, `/.well-known/openid-configuration`.
 */
export function authorizationServerMetadataUrls(issuer: string): string[] {
  const u = new URL(issuer);
  const path = u.pathname.replace(/\/+$/, '');
  if (!path)
    return [`${u.origin}/.well-known/oauth-authorization-server`, `${u.origin}/.well-known/openid-configuration`];
  return [
    `${u.origin}/.well-known/oauth-authorization-server${path}`,
    `${u.origin}/.well-known/openid-configuration${path}`,
    `${u.origin}${path}/.well-known/openid-configuration`,
  ];
}

/**
 * Fetches and validates an issuer's metadata (first URL of `authorizationServerMetadataUrls(issuer)`
 * that answers 200). The `issuer` in the document must be identical to `issuer` (RFC 8414
 * section 3.3; a mismatched document is refused, not skipped).
 * @throws DiscoveryError when no URL answers, or the document is refused.
 */
export async function discoverAuthorizationServer(
  issuer: string,
  options: DiscoveryOptions = {},
): Promise<AuthorizationServerMetadata> {
  const f = namingFetch(options.fetch ?? globalThis.fetch);
  const tried: string[] = [];
  for (const url of authorizationServerMetadataUrls(issuer)) {
    checkSecure(new URL(url), options.allowLoopbackHttp);
    tried.push(url);
    const res = await f(url, { headers: { Accept: 'application/json', ...options.headers }, signal: options.signal });
    if (res.status !== 200) {
      await res.body?.cancel();
      // 4xx: not at this URL, try the next; 5xx and others too (RFC 8414 offers no other rule)
      continue;
    }
    try {
      return await oauth.processDiscoveryResponse(new URL(issuer), res);
    } catch (e) {
      throw new DiscoveryError(
        `authorization server metadata at ${url} refused: ${e instanceof Error ? e.message : String(e)}`,
        tried,
      );
    }
  }
  throw new DiscoveryError(
    `no authorization server metadata for ${issuer} (tried ${tried.join(', ')})`,
    tried,
    'not-found',
  );
}

/** An RFC 9728 document as the client reads it. */
export interface ResourceMetadata {
  resource: string;
  authorization_servers?: string[];
  scopes_supported?: string[];
  [extra: string]: unknown;
}

/** The RFC 9728 well-known URLs of an MCP server URL: path-inserted (when it has a path), then root. */
export function resourceMetadataUrls(serverUrl: string): string[] {
  const u = new URL(serverUrl);
  const path = u.pathname.replace(/\/+$/, '');
  const root = `${u.origin}/.well-known/oauth-protected-resource`;
  return path ? [`${root}${path}`, root] : [root];
}

/**
 * The protected resource metadata of `serverUrl`: from `fromHeader` (a challenge's
 * `resource_metadata`) when given, else the well-known URLs in order. The document's `resource`
 * must name `serverUrl` or a parent of it on the same origin (RFC 9728 section 3.3, RFC 8707
 * "most specific URI"); it is the audience the client asks tokens for.
 * @throws DiscoveryError when none is found, or the document names another resource.
 */
export async function discoverResourceMetadata(
  serverUrl: string,
  fromHeader: string | undefined,
  options: DiscoveryOptions = {},
): Promise<ResourceMetadata> {
  const f = namingFetch(options.fetch ?? globalThis.fetch);
  const urls = fromHeader ? [fromHeader] : resourceMetadataUrls(serverUrl);
  const tried: string[] = [];
  for (const url of urls) {
    tried.push(url);
    const res = await f(url, { headers: { Accept: 'application/json', ...options.headers }, signal: options.signal });
    if (res.status !== 200) {
      await res.body?.cancel();
      continue;
    }
    let doc: unknown;
    try {
      doc = await res.json();
    } catch {
      throw new DiscoveryError(`protected resource metadata at ${url} is not JSON`, tried);
    }
    if (typeof doc !== 'object' || doc === null || typeof (doc as ResourceMetadata).resource !== 'string')
      throw new DiscoveryError(`protected resource metadata at ${url} has no resource`, tried);
    const meta = doc as ResourceMetadata;
    if (!resourceCovers(meta.resource, serverUrl))
      throw new DiscoveryError(
        `protected resource metadata at ${url} is for ${meta.resource}, not ${serverUrl}`,
        tried,
      );
    return meta;
  }
  throw new DiscoveryError(
    `no protected resource metadata for ${serverUrl} (tried ${tried.join(', ')})`,
    tried,
    'not-found',
  );
}

/** Whether `resource` names `serverUrl`: same origin, and its path is the server's or a parent of it. */
export function resourceCovers(resource: string, serverUrl: string): boolean {
  let r: URL, s: URL;
  try {
    r = new URL(resource);
    s = new URL(serverUrl);
  } catch {
    return false;
  }
  if (r.origin !== s.origin) return false;
  const rp = r.pathname.replace(/\/+$/, '');
  const sp = s.pathname.replace(/\/+$/, '');
  return sp === rp || sp.startsWith(`${rp}/`);
}
