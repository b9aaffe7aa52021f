// size: the OAuth 2.1 client flow in one closure (oauthFetch); split into discovery, registration and token steps pending (#36)
/**
 * The OAuth 2.1 client of MCP (2025-11-25 basic/authorization; draft basic/authorization/ with
 * its client-registration and authorization-server-discovery pages), over oauth4webapi.
 *
 * {@link oauthFetch} returns a `fetch` for the HTTP client transports of both eras
 * (`HttpClientTransport`, `StatelessHttpClientTransport`: option `fetch`). Every request
 * carries `Authorization: Bearer` once a token is held (refreshed first when it is about to
 * expire); on 401, or 403 `error="insufficient_scope"` (step-up), it authorizes and retries, at
 * most `maxAuthorizations` times per request (then the last response is returned as it is):
 *
 * 1. Protected resource metadata (RFC 9728): the challenge's `resource_metadata`, else the
 *    well-known URLs; its `resource` must name the server (else {@link AuthorizationError}).
 *    A server with none (2025-03-26) is its own authorization server.
 * 2. Authorization server metadata (RFC 8414 / OpenID discovery, the spec's URL order), whose
 *    `issuer` must be identical to the one named; without any (2025-03-26), the default
 *    endpoints `/authorize`, `/token`, `/register` of the server's origin.
 * 3. Client identity, in the spec's order: pre-registered `credentials`, a Client ID Metadata
 *    Document (`clientMetadataUrl`, when the server says `client_id_metadata_document_supported`),
 *    dynamic client registration (RFC 7591). Kept per authorization server in the store.
 * 4. Scope: the challenge's `scope` (on a step-up joined with the scopes granted), else the
 *    resource's `scopes_supported`, else none; `offline_access` added when the authorization
 *    server lists it and refresh tokens are wanted.
 * 5. Grant: authorization code with PKCE S256 (refused when the metadata does not list S256),
 *    `state`, the `resource` parameter (RFC 8707) on the authorization and token requests, the
 *    response's `iss` checked (RFC 9207, draft "Authorization Response Validation");
 *    `client_credentials`; or an assertion grant (RFC 7523 `jwt-bearer`, for enterprise-managed
 *    authorization and workload identity: the assertion comes from {@link OAuthClientOptions.assertion}).
 * Token endpoint authentication: `client_secret_basic`, `client_secret_post`,
 * `private_key_jwt`, `none` (from the registration, else chosen from the server's list).
 */
import * as oauth from 'oauth4webapi';
import { importPKCS8 } from 'jose';
import {
  checkSecure,
  namingFetch,
  discoverAuthorizationServer,
  discoverResourceMetadata,
  DiscoveryError,
  type AuthorizationServerMetadata,
  type ResourceMetadata,
} from './discovery.js';
import { isLoopbackUrl } from './loopback.js';
import { MemoryTokenStore, type ClientRegistration, type StoredTokens, type TokenStore } from './store.js';

export { MemoryTokenStore, type ClientRegistration, type StoredTokens, type TokenStore };

/**
 * The user-agent step of the authorization code grant: show the user `url` (open a browser),
 * and resolve with the redirect's URL (or its query) once the authorization server sent the
 * user back to `redirectUri`. See ./loopback-redirect.ts for command-line tools.
 */
export type UserAgent = (url: URL, redirectUri: string) => Promise<URL | URLSearchParams>;

/** Options of {@link oauthFetch}. */
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

/**
 * `client_secret_basic` (RFC 6749 section 2.3.1): id and secret percent-encoded, joined, in
 * base64. Unreserved characters (`-`, `.`, `_`, `~`) are left as they are, as most servers
 * expect (oauth4webapi's own encodes them too, which servers that do not decode refuse).
 */
function secretBasic(secret: string): oauth.ClientAuth {
  return (_as, client, body, headers) => {
    body.delete('client_id');
    const enc = (v: string) => encodeURIComponent(v).replace(/%20/g, '+');
    headers.set('Authorization', `Basic ${btoa(`${enc(client.client_id)}:${enc(secret)}`)}`);
  };
}

/** The parameters of a `WWW-Authenticate: Bearer …` challenge (names lower-case). */
export function parseBearerChallenge(header: string | null | undefined): Record<string, string> | undefined {
  if (!header) return undefined;
  const at = header.search(/(^|,\s*)Bearer(\s|,|$)/i);
  if (at < 0) return undefined;
  const rest = header.slice(at).replace(/^,?\s*Bearer\s*/i, '');
  // no prototype: a parameter named `__proto__` or `constructor` is just a parameter
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  const re = /\s*([A-Za-z0-9_\-.]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,"]+))\s*(?:,|$)/y;
  let m: RegExpExecArray | null;
  while ((m = re.exec(rest))) {
    const key = m[1].toLowerCase();
    if (!Object.hasOwn(out, key)) out[key] = m[2] !== undefined ? m[2].replace(/\\(.)/g, '$1') : m[3];
  }
  return out;
}

/** The fetch of {@link oauthFetch}, with the client's state. */
export interface OAuthFetch {
  fetch: typeof globalThis.fetch;
  /** The tokens held for `serverUrl` (or the last server used). */
  tokens(): Promise<StoredTokens | undefined>;
  /** Forgets the tokens held for the last server used. */
  signOut(): Promise<void>;
}

interface Target {
  serverUrl: string;
  resource: string;
  prm: ResourceMetadata | undefined;
  issuer: string;
  as: AuthorizationServerMetadata;
}

const S256 = 'S256';

/**
 * Makes the authorizing fetch described in the module docs.
 * @throws TypeError (on use) for a code grant without `userAgent` or a `jwt-bearer` grant without `assertion`.
 */
// size: the OAuth flow in one closure; split pending (#36)
export function oauthFetch(options: OAuthClientOptions = {}): OAuthFetch {
  // every request (discovery, registration, token, the MCP server's) names its URL when it fails
  const base = namingFetch(options.fetch ?? globalThis.fetch);
  const store = options.store ?? new MemoryTokenStore();
  const grant = options.grant ?? 'authorization_code';
  const maxTries = options.maxAuthorizations ?? 3;
  const skew = options.refreshSkewMs ?? 30_000;
  const allowHttp = options.allowLoopbackHttp ?? true;
  let dpopHandle: Promise<oauth.DPoPHandle> | undefined;
  const dpop = (): Promise<oauth.DPoPHandle> | undefined => {
    if (!options.dpop) return undefined;
    const given = options.dpop;
    return (dpopHandle ??= (given === true ? oauth.generateKeyPair('ES256') : Promise.resolve(given)).then((keys) =>
      oauth.DPoP({}, keys),
    ));
  };
  /** Runs a token request; once more when the server asks for a DPoP nonce (the handle keeps it). */
  const withNonce = async <T>(run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (e) {
      if (!options.dpop || !oauth.isDPoPNonceError(e)) throw e;
      return run();
    }
  };
  /** The authorization server and resource last used, per server URL. */
  const targets = new Map<string, Target>();
  let last: Target | undefined;

  const httpOptions = (url: string | undefined) => {
    const insecure = url !== undefined && allowHttp && new URL(url).protocol === 'http:' && isLoopbackUrl(new URL(url));
    return { [oauth.customFetch]: base as never, [oauth.allowInsecureRequests]: insecure };
  };
  const tokenOptions = async (url: string | undefined) => {
    const handle = await dpop();
    return handle ? { ...httpOptions(url), DPoP: handle } : httpOptions(url);
  };

  const serverUrlOf = (input: RequestInfo | URL): string => {
    if (options.serverUrl) return options.serverUrl;
    const u = new URL(typeof input === 'string' || input instanceof URL ? String(input) : input.url);
    u.search = '';
    u.hash = '';
    return u.href;
  };

  async function discover(serverUrl: string, challenge: Record<string, string> | undefined): Promise<Target> {
    let prm: ResourceMetadata | undefined;
    try {
      prm = await discoverResourceMetadata(serverUrl, challenge?.resource_metadata, { fetch: base });
    } catch (e) {
      // a document naming another resource is refused; none at all is the 2025-03-26 shape
      if (!(e instanceof DiscoveryError) || e.kind !== 'not-found')
        throw new AuthorizationError(e instanceof Error ? e.message : String(e), { cause: e });
    }
    const origin = new URL(serverUrl).origin;
    const issuer = prm?.authorization_servers?.[0] ?? origin;
    let as: AuthorizationServerMetadata;
    if (prm) {
      try {
        as = await discoverAuthorizationServer(issuer, { fetch: base, allowLoopbackHttp: allowHttp });
      } catch (e) {
        throw new AuthorizationError(e instanceof Error ? e.message : String(e), { cause: e });
      }
    } else {
      // 2025-03-26 basic/authorization: the authorization base URL is the server's origin, its
      // RFC 8414 document (no issuer was named, so none to compare), else the default endpoints
      as = (await legacyMetadata(origin)) ?? {
        issuer: origin,
        authorization_endpoint: `${origin}/authorize`,
        token_endpoint: `${origin}/token`,
        registration_endpoint: `${origin}/register`,
        code_challenge_methods_supported: [S256],
      };
    }
    return { serverUrl, resource: prm?.resource ?? serverUrl, prm, issuer: as.issuer, as };
  }

  async function legacyMetadata(origin: string): Promise<AuthorizationServerMetadata | undefined> {
    const url = `${origin}/.well-known/oauth-authorization-server`;
    checkSecure(new URL(url), allowHttp);
    const res = await base(url, { headers: { Accept: 'application/json' } });
    if (res.status !== 200) {
      await res.body?.cancel();
      return undefined;
    }
    const doc = (await res.json().catch(() => undefined)) as AuthorizationServerMetadata | undefined;
    if (
      typeof doc?.issuer !== 'string' ||
      typeof doc.authorization_endpoint !== 'string' ||
      typeof doc.token_endpoint !== 'string'
    )
      throw new AuthorizationError(
        `authorization server metadata at ${url} lacks issuer, authorization_endpoint or token_endpoint`,
      );
    return doc;
  }

  async function clientFor(t: Target): Promise<ClientRegistration> {
    const given = typeof options.credentials === 'function' ? options.credentials(t.issuer) : options.credentials;
    if (given) return given;
    const kept = await store.getClient(t.issuer);
    if (kept) return kept;
    if (options.clientMetadataUrl && t.as.client_id_metadata_document_supported === true)
      return {
        client_id: options.clientMetadataUrl,
        token_endpoint_auth_method: options.privateKey ? 'private_key_jwt' : 'none',
      };
    if (!t.as.registration_endpoint)
      throw new AuthorizationError(
        `authorization server ${t.issuer} offers no way to register this client (no credentials, no client ID metadata document support, no registration endpoint)`,
      );
    const metadata: Record<string, unknown> = {
      redirect_uris: options.redirectUri ? [options.redirectUri] : [],
      grant_types: grant === 'client_credentials' ? ['client_credentials'] : ['authorization_code', 'refresh_token'],
      response_types: grant === 'client_credentials' ? [] : ['code'],
      token_endpoint_auth_method: 'none',
      ...options.clientMetadata,
    };
    checkSecure(new URL(t.as.registration_endpoint), allowHttp);
    const res = await oauth.dynamicClientRegistrationRequest(
      t.as,
      metadata as never,
      httpOptions(t.as.registration_endpoint),
    );
    // read here rather than by processDynamicClientRegistrationResponse: servers that leave out
    // `client_secret_expires_at` (RFC 7591 section 3.2.1) are common, and the secret works all the same
    const text = await res.text();
    let registered: ClientRegistration | undefined;
    try {
      registered = JSON.parse(text) as ClientRegistration;
    } catch {
      registered = undefined;
    }
    if (
      (res.status !== 201 && res.status !== 200) ||
      typeof registered?.client_id !== 'string' ||
      !registered.client_id
    ) {
      throw new AuthorizationError(
        `dynamic client registration at ${t.as.registration_endpoint} failed: HTTP ${res.status} ${text.slice(0, 300)}`,
      );
    }
    if (registered.client_secret !== undefined && typeof registered.client_secret !== 'string')
      throw new AuthorizationError(
        `dynamic client registration at ${t.as.registration_endpoint}: client_secret is not a string`,
      );
    await store.setClient(t.issuer, registered);
    return registered;
  }

  async function clientAuth(t: Target, c: ClientRegistration): Promise<oauth.ClientAuth> {
    const supported = t.as.token_endpoint_auth_methods_supported;
    const method =
      c.token_endpoint_auth_method ??
      (options.privateKey
        ? 'private_key_jwt'
        : c.client_secret
          ? supported && !supported.includes('client_secret_basic') && supported.includes('client_secret_post')
            ? 'client_secret_post'
            : 'client_secret_basic'
          : 'none');
    if (method === 'client_secret_basic') return secretBasic(c.client_secret ?? '');
    if (method === 'client_secret_post') return oauth.ClientSecretPost(c.client_secret ?? '');
    if (method === 'private_key_jwt') {
      const pk = options.privateKey;
      if (!pk) throw new AuthorizationError('private_key_jwt needs options.privateKey');
      const key = typeof pk.key === 'string' ? await importPKCS8(pk.key, pk.alg ?? 'ES256') : pk.key;
      return oauth.PrivateKeyJwt({ key, kid: pk.kid });
    }
    if (method === 'none') return oauth.None();
    throw new AuthorizationError(`token endpoint authentication method ${method} is not supported`);
  }

  const stored = (r: oauth.TokenEndpointResponse, previous?: StoredTokens): StoredTokens => ({
    access_token: r.access_token,
    token_type: r.token_type,
    refresh_token: r.refresh_token ?? previous?.refresh_token,
    scope: r.scope ?? previous?.scope,
    expiresAt: typeof r.expires_in === 'number' ? Date.now() + r.expires_in * 1000 : undefined,
  });

  function scopeFor(
    t: Target,
    challenge: Record<string, string> | undefined,
    granted: string | undefined,
    stepUp: boolean,
  ): string | undefined {
    let scope = options.scope ?? challenge?.scope ?? t.prm?.scopes_supported?.join(' ');
    if (stepUp && granted && challenge?.scope)
      scope = [...new Set([...granted.split(' '), ...challenge.scope.split(' ')].filter(Boolean))].join(' ');
    const offline = options.offlineAccess ?? grant === 'authorization_code';
    if (offline && t.as.scopes_supported?.includes('offline_access') && !scope?.split(' ').includes('offline_access'))
      scope = scope ? `${scope} offline_access` : 'offline_access';
    return scope || undefined;
  }

  async function obtain(
    t: Target,
    challenge: Record<string, string> | undefined,
    stepUp: boolean,
  ): Promise<StoredTokens> {
    const c = await clientFor(t);
    const client: oauth.Client = { ...c } as oauth.Client;
    const auth = await clientAuth(t, c);
    const previous = await store.getTokens(t.issuer, t.resource);
    const scope = scopeFor(t, challenge, previous?.scope, stepUp);
    const extra: Record<string, string> = { resource: t.resource };
    if (t.as.token_endpoint) checkSecure(new URL(t.as.token_endpoint), allowHttp);
    const http = await tokenOptions(t.as.token_endpoint);
    let response: oauth.TokenEndpointResponse;
    try {
      if (grant === 'client_credentials') {
        const params: Record<string, string> = { ...extra };
        if (scope) params.scope = scope;
        response = await withNonce(async () =>
          oauth.processClientCredentialsResponse(
            t.as,
            client,
            await oauth.clientCredentialsGrantRequest(t.as, client, auth, params, http),
          ),
        );
      } else if (grant === 'jwt-bearer') {
        if (!options.assertion) throw new TypeError('oauthFetch: the jwt-bearer grant needs options.assertion');
        const params: Record<string, string> = {
          ...extra,
          assertion: await options.assertion({ issuer: t.issuer, resource: t.resource, metadata: t.as }),
        };
        if (scope) params.scope = scope;
        response = await withNonce(async () =>
          oauth.processGenericTokenEndpointResponse(
            t.as,
            client,
            await oauth.genericTokenEndpointRequest(
              t.as,
              client,
              auth,
              'urn:ietf:params:oauth:grant-type:jwt-bearer',
              params,
              http,
            ),
          ),
        );
      } else {
        response = await codeGrant(t, client, auth, scope, http);
      }
    } catch (e) {
      if (e instanceof AuthorizationError || e instanceof TypeError) throw e;
      throw new AuthorizationError(
        `token request to ${t.as.token_endpoint} failed: ${e instanceof Error ? e.message : String(e)}`,
        { cause: e },
      );
    }
    const tokens = stored(response);
    await store.setTokens(t.issuer, t.resource, tokens);
    return tokens;
  }

  async function codeGrant(
    t: Target,
    client: oauth.Client,
    auth: oauth.ClientAuth,
    scope: string | undefined,
    http: Awaited<ReturnType<typeof tokenOptions>>,
  ): Promise<oauth.TokenEndpointResponse> {
    if (!options.userAgent) throw new TypeError('oauthFetch: the authorization code grant needs options.userAgent');
    const redirectUri = options.redirectUri ?? (options.clientMetadata?.redirect_uris as string[] | undefined)?.[0];
    if (!redirectUri)
      throw new TypeError(
        'oauthFetch: a redirect URI is required (options.redirectUri or clientMetadata.redirect_uris)',
      );
    // PKCE support is read from the metadata: without S256 there, the client refuses to proceed
    if (!t.as.code_challenge_methods_supported?.includes(S256))
      throw new AuthorizationError(
        `authorization server ${t.issuer} does not list PKCE S256 in code_challenge_methods_supported`,
      );
    if (!t.as.authorization_endpoint)
      throw new AuthorizationError(`authorization server ${t.issuer} has no authorization_endpoint`);
    const url = new URL(t.as.authorization_endpoint);
    checkSecure(url, allowHttp);
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('client_id', client.client_id);
    url.searchParams.set('redirect_uri', redirectUri);
    url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(verifier));
    url.searchParams.set('code_challenge_method', S256);
    url.searchParams.set('state', state);
    url.searchParams.set('resource', t.resource);
    if (scope) url.searchParams.set('scope', scope);
    const back = await options.userAgent(url, redirectUri);
    const params = back instanceof URL ? back.searchParams : back;
    let validated: URLSearchParams;
    try {
      // RFC 9207: `iss` compared exactly when present, required when the metadata advertises it; `state` matched
      validated = oauth.validateAuthResponse(t.as, client, params, state);
    } catch (e) {
      throw new AuthorizationError(`authorization response refused: ${e instanceof Error ? e.message : String(e)}`, {
        cause: e,
      });
    }
    return withNonce(async () => {
      const res = await oauth.authorizationCodeGrantRequest(t.as, client, auth, validated, redirectUri, verifier, {
        ...http,
        additionalParameters: { resource: t.resource },
      });
      return oauth.processAuthorizationCodeResponse(t.as, client, res);
    });
  }

  async function refresh(t: Target, tokens: StoredTokens): Promise<StoredTokens | undefined> {
    if (!tokens.refresh_token) return undefined;
    try {
      const c = await clientFor(t);
      const client = { ...c } as oauth.Client;
      const http = await tokenOptions(t.as.token_endpoint);
      const cauth = await clientAuth(t, c);
      const next = stored(
        await withNonce(async () =>
          oauth.processRefreshTokenResponse(
            t.as,
            client,
            await oauth.refreshTokenGrantRequest(t.as, client, cauth, tokens.refresh_token!, {
              ...http,
              additionalParameters: { resource: t.resource },
            }),
          ),
        ),
        tokens,
      );
      await store.setTokens(t.issuer, t.resource, next);
      return next;
    } catch {
      // a refused refresh token is forgotten; the caller authorizes again
      await store.setTokens(t.issuer, t.resource, undefined);
      return undefined;
    }
  }

  async function current(serverUrl: string): Promise<{ t?: Target; tokens?: StoredTokens }> {
    const t = targets.get(serverUrl);
    if (!t) return {};
    let tokens = await store.getTokens(t.issuer, t.resource);
    if (tokens?.expiresAt !== undefined && tokens.expiresAt - skew <= Date.now()) tokens = await refresh(t, tokens);
    return { t, tokens };
  }

  /** An MCP request with a DPoP-bound token: a fresh proof each time, once more with the server's nonce. */
  async function dpopRequest(
    input: RequestInfo | URL,
    init: RequestInit | undefined,
    headers: Headers,
    token: string,
  ): Promise<Response> {
    const url = new URL(typeof input === 'string' || input instanceof URL ? String(input) : input.url);
    const method = (init?.method ?? 'GET').toUpperCase();
    const handle = (await dpop())!;
    const send = () =>
      oauth.protectedResourceRequest(token, method, url, headers, (init?.body ?? null) as never, {
        ...httpOptions(url.href),
        DPoP: handle,
        signal: init?.signal ?? undefined,
      });
    try {
      return await send();
    } catch (e) {
      if (oauth.isDPoPNonceError(e)) {
        try {
          return await send();
        } catch (again) {
          if (again instanceof oauth.WWWAuthenticateChallengeError) return again.response;
          throw again;
        }
      }
      // a challenge (401 / 403) is answered here as for bearer tokens
      if (e instanceof oauth.WWWAuthenticateChallengeError) return e.response;
      throw e;
    }
  }

  const authed: typeof globalThis.fetch = async (input, init) => {
    const serverUrl = serverUrlOf(input);
    let refreshed = false;
    for (let attempt = 0; ; attempt++) {
      const { t, tokens } = await current(serverUrl);
      const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
      let res: Response;
      if (tokens && tokens.token_type.toLowerCase() === 'dpop')
        res = await dpopRequest(input, init, headers, tokens.access_token);
      else {
        if (tokens) headers.set('Authorization', `Bearer ${tokens.access_token}`);
        else headers.delete('Authorization');
        res = await base(input, { ...init, headers });
      }
      const challenge = parseBearerChallenge(res.headers.get('www-authenticate'));
      const stepUp = res.status === 403 && challenge?.error === 'insufficient_scope';
      if ((res.status !== 401 && !stepUp) || attempt >= maxTries) return res;
      await res.body?.cancel();
      // an expired or revoked token: one refresh before a new authorization
      if (res.status === 401 && t && tokens?.refresh_token && !refreshed) {
        refreshed = true;
        if (await refresh(t, tokens)) continue;
      }
      const target = await discover(serverUrl, challenge);
      targets.set(serverUrl, target);
      if (targets.size > 100) targets.delete(targets.keys().next().value!);
      last = target;
      await obtain(target, challenge, stepUp);
    }
  };

  return {
    fetch: authed,
    async tokens() {
      const t = options.serverUrl ? targets.get(options.serverUrl) : last;
      return t ? store.getTokens(t.issuer, t.resource) : undefined;
    },
    async signOut() {
      if (last) await store.setTokens(last.issuer, last.resource, undefined);
    },
  };
}
