/**
 * What the steps of `oauthFetch`'s flow share (./client-discovery.ts, ./client-registration.ts,
 * ./client-token.ts): its options, and the fetch, store, grant and DPoP key made from them once.
 */
import * as oauth from 'oauth4webapi';
import { isLoopbackUrl, namingFetch, type AuthorizationServerMetadata, type ResourceMetadata } from './discovery.js';
import { MemoryTokenStore, type ClientRegistration, type TokenStore } from './store.js';

/**
 * The user-agent step of the authorization code grant: show the user `url` (open a browser),
 * and resolve with the redirect's URL (or its query) once the authorization server sent the
 * user back to `redirectUri`. See ./loopback-redirect.ts for command-line tools.
 */
export type UserAgent = (url: URL, redirectUri: string) => Promise<URL | URLSearchParams>;

/** Options of `oauthFetch`. */
export interface OAuthClientOptions {
  /** The fetch underneath (requests to the MCP server and to the authorization server). Default `globalThis.fetch`. */
  fetch?: typeof globalThis.fetch;
  /** The MCP server URL (the resource asked for). Default: the URL of each request, without query. */
  serverUrl?: string;
  /** `authorization_code` (default, needs `userAgent`), `client_credentials` (machine clients), or `jwt-bearer` (needs `assertion`). */
  grant?: 'authorization_code' | 'client_credentials' | 'jwt-bearer';
  /** The user-agent step of the authorization code grant. */
  userAgent?: UserAgent;
  /** Redirect URI of the authorization code grant. Default: `clientMetadata.redirect_uris[0]`. */
  redirectUri?: string;
  /** Pre-registered client credentials: one for every authorization server, or chosen by issuer. */
  credentials?: ClientRegistration | ((issuer: string) => ClientRegistration | undefined);
  /** The HTTPS URL of this client's Client ID Metadata Document (its `client_id` there). */
  clientMetadataUrl?: string;
  /** Metadata sent in dynamic client registration (RFC 7591): `client_name`, `redirect_uris`, … */
  clientMetadata?: Record<string, unknown>;
  /** The `private_key_jwt` signing key: a CryptoKey, or a PKCS#8 PEM with its `alg`. */
  privateKey?: { key: CryptoKey | string; alg?: string; kid?: string };
  /** The assertion of the `jwt-bearer` grant (RFC 7523), made per authorization server and resource. */
  assertion?: (target: { issuer: string; resource: string; metadata: AuthorizationServerMetadata }) => Promise<string>;
  /** Scope to ask for instead of the challenge's / `scopes_supported`. */
  scope?: string;
  /** Add `offline_access` when the authorization server lists it (refresh tokens). Default true for the code grant. */
  offlineAccess?: boolean;
  /** Where registrations and tokens are kept. Default a {@link MemoryTokenStore}. */
  store?: TokenStore;
  /** Authorizations per request before the response is returned as it is. Default 3. */
  maxAuthorizations?: number;
  /** Refresh a token this long before it expires, ms. Default 30 000. */
  refreshSkewMs?: number;
  /** Allow http:// authorization servers on loopback hosts (tests, local development). Default true. */
  allowLoopbackHttp?: boolean;
  /**
   * How long each token request (a grant, a refresh) and each metadata fetch of the discovery
   * (protected resource, authorization server) may take, ms, before it fails with
   * {@link AuthorizationError}; an abort of the request it is made for ends it sooner. Default 30 000;
   * an integer from 1 to 2^31 − 1 (`oauthFetch` throws a TypeError otherwise).
   */
  tokenTimeoutMs?: number;
  /**
   * Ask for DPoP-bound tokens (RFC 9449): `true` (an ES256 key made for this client) or the key
   * pair to prove possession with. Token requests carry a proof, and so does every MCP request
   * (`Authorization: DPoP`); a server's `use_dpop_nonce` is answered once with its nonce.
   */
  dpop?: boolean | CryptoKeyPair;
}

/** Authorization could not proceed (metadata refused, no way to register, a bad authorization response). */
export class AuthorizationError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'AuthorizationError';
  }
}

/** The MCP server a token is for, and the authorization server that issues it. */
export interface Target {
  serverUrl: string;
  resource: string;
  prm: ResourceMetadata | undefined;
  issuer: string;
  as: AuthorizationServerMetadata;
}

export const S256 = 'S256';

/** The state of one `oauthFetch`: its options and what is made from them once. */
export class OAuthFlow {
  /** The fetch underneath: every request (discovery, registration, token, the MCP server's) names its URL when it fails. */
  readonly base: typeof globalThis.fetch;
  readonly store: TokenStore;
  readonly grant: NonNullable<OAuthClientOptions['grant']>;
  readonly allowHttp: boolean;
  readonly tokenTimeoutMs: number;
  private dpopHandle: Promise<oauth.DPoPHandle> | undefined;

  constructor(readonly options: OAuthClientOptions) {
    this.base = namingFetch(options.fetch ?? globalThis.fetch);
    this.store = options.store ?? new MemoryTokenStore();
    this.grant = options.grant ?? 'authorization_code';
    this.allowHttp = options.allowLoopbackHttp ?? true;
    const ms = (this.tokenTimeoutMs = options.tokenTimeoutMs ?? 30_000);
    // (what a timer can wait: AbortSignal.timeout refuses the rest with a RangeError on use)
    if (!Number.isInteger(ms) || ms < 1 || ms > 2 ** 31 - 1)
      throw new TypeError(`oauthFetch: tokenTimeoutMs must be an integer from 1 to 2147483647 (ms), got ${ms}`);
  }

  /** The DPoP handle (its key made on first use), or undefined when DPoP is off. */
  dpop(): Promise<oauth.DPoPHandle> | undefined {
    if (!this.options.dpop) return undefined;
    const given = this.options.dpop;
    return (this.dpopHandle ??= (given === true ? oauth.generateKeyPair('ES256') : Promise.resolve(given)).then(
      (keys) => oauth.DPoP({}, keys),
    ));
  }

  /** Runs a token request; once more when the server asks for a DPoP nonce (the handle keeps it). */
  async withNonce<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (e) {
      if (!this.options.dpop || !oauth.isDPoPNonceError(e)) throw e;
      return run();
    }
  }

  /** oauth4webapi's options for a request to `url`: the fetch underneath, http:// allowed on loopback when so configured. */
  httpOptions(url: string | undefined) {
    const insecure =
      url !== undefined && this.allowHttp && new URL(url).protocol === 'http:' && isLoopbackUrl(new URL(url));
    return { [oauth.customFetch]: this.base as never, [oauth.allowInsecureRequests]: insecure };
  }

  /** The signal of one request to the authorization side (a token request, a metadata fetch): `tokenTimeoutMs` from now, and `signal`, the caller's. */
  bound(signal: AbortSignal | undefined): AbortSignal {
    const timeout = AbortSignal.timeout(this.tokenTimeoutMs);
    return signal ? AbortSignal.any([signal, timeout]) : timeout;
  }

  /**
   * {@link OAuthFlow.httpOptions} for a token request: the DPoP handle, and each request's signal
   * ({@link OAuthFlow.bound}), made when it is sent (the code grant's user step is not counted).
   */
  async tokenOptions(url: string | undefined, signal: AbortSignal | undefined) {
    return { ...this.httpOptions(url), DPoP: await this.dpop(), signal: () => this.bound(signal) };
  }
}
