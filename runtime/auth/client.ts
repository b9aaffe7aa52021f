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
 *
 * The steps are ./client-discovery.ts (1, 2), ./client-registration.ts (3, token endpoint
 * authentication) and ./client-token.ts (4, 5, refresh); what they share, ./client-flow.ts.
 */
import * as oauth from 'oauth4webapi';
import type { StoredTokens } from './store.js';
import { OAuthFlow, type OAuthClientOptions, type Target } from './client-flow.js';
import { discover } from './client-discovery.js';
import { obtain, refresh } from './client-token.js';

export { MemoryTokenStore, type ClientRegistration, type StoredTokens, type TokenStore } from './store.js';
export { AuthorizationError, type OAuthClientOptions, type UserAgent } from './client-flow.js';

/** The parameters of a `WWW-Authenticate: Bearer …` challenge (names lower-case). */
export function parseBearerChallenge(header: string | null | undefined): Record<string, string> | undefined {
  return parseChallenge(header, 'Bearer');
}

/** The parameters of the `scheme` challenge in a `WWW-Authenticate` value (names lower-case), undefined without one. */
function parseChallenge(
  header: string | null | undefined,
  scheme: 'Bearer' | 'DPoP',
): Record<string, string> | undefined {
  if (!header) return undefined;
  const at = header.search(new RegExp(`(^|,\\s*)${scheme}(\\s|,|$)`, 'i'));
  if (at < 0) return undefined;
  const rest = header.slice(at).replace(new RegExp(`^,?\\s*${scheme}\\s*`, 'i'), '');
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

/**
 * Makes the authorizing fetch described in the module docs.
 * @throws TypeError for a `tokenTimeoutMs` that is not an integer from 1 to 2^31 − 1 ms; (on use) for a
 * code grant without `userAgent` or a `jwt-bearer` grant without `assertion`.
 * @throws (on use) AuthorizationError, or AuthFetchError naming the URL, when an authorization
 * step fails (discovery, registration, a token request or refresh); such an error is marked, and
 * the HTTP client transports fail the MCP request with it as it is, unretried (the request was
 * not sent, or was refused with 401 / 403), not as a lost connection.
 */
export function oauthFetch(options: OAuthClientOptions = {}): OAuthFetch {
  const flow = new OAuthFlow(options);
  const maxTries = options.maxAuthorizations ?? 3;
  const skew = options.refreshSkewMs ?? 30_000;
  /** The authorization server and resource last used, per server URL. */
  const targets = new Map<string, Target>();
  let last: Target | undefined;

  const serverUrlOf = (input: RequestInfo | URL): string => {
    if (options.serverUrl) return options.serverUrl;
    const u = new URL(typeof input === 'string' || input instanceof URL ? String(input) : input.url);
    u.search = '';
    u.hash = '';
    return u.href;
  };

  async function current(
    serverUrl: string,
    signal: AbortSignal | undefined,
  ): Promise<{ t?: Target; tokens?: StoredTokens }> {
    const t = targets.get(serverUrl);
    if (!t) return {};
    let tokens = await flow.store.getTokens(t.issuer, t.resource);
    if (tokens?.expiresAt !== undefined && tokens.expiresAt - skew <= Date.now())
      tokens = await refresh(flow, t, tokens, signal);
    return { t, tokens };
  }

  const authed: typeof globalThis.fetch = async (input, init) => {
    const serverUrl = serverUrlOf(input);
    const signal = init?.signal ?? undefined;
    let refreshed = false;
    for (let attempt = 0; ; attempt++) {
      const { t, tokens } = await current(serverUrl, signal).catch(stepFailed);
      const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
      let res: Response;
      if (tokens && tokens.token_type.toLowerCase() === 'dpop')
        res = await dpopRequest(flow, input, init, headers, tokens.access_token);
      else {
        if (tokens) headers.set('Authorization', `Bearer ${tokens.access_token}`);
        else headers.delete('Authorization');
        res = await flow.base(input, { ...init, headers });
      }
      // the challenge of the scheme this client uses (RFC 9449 §7.1: a DPoP request is
      // answered with a DPoP one), what it lacks (resource_metadata, scope) from the other's
      const offered = res.headers.get('www-authenticate');
      const [mine, other] = options.dpop ? (['DPoP', 'Bearer'] as const) : (['Bearer', 'DPoP'] as const);
      const [first, second] = [parseChallenge(offered, mine), parseChallenge(offered, other)];
      const challenge: Record<string, string> | undefined =
        first || second ? Object.assign(Object.create(null), second, first) : undefined;
      const stepUp = res.status === 403 && challenge?.error === 'insufficient_scope';
      if ((res.status !== 401 && !stepUp) || attempt >= maxTries) return res;
      await res.body?.cancel();
      // an expired or revoked token: one refresh before a new authorization
      if (res.status === 401 && t && tokens?.refresh_token && !refreshed) {
        refreshed = true;
        if (await refresh(flow, t, tokens, signal).catch(stepFailed)) continue;
      }
      const target = await discover(flow, serverUrl, challenge, signal).catch(stepFailed);
      targets.set(serverUrl, target);
      if (targets.size > 100) targets.delete(targets.keys().next().value!);
      last = target;
      await obtain(flow, target, challenge, stepUp, signal).catch(stepFailed);
    }
  };

  return {
    fetch: authed,
    async tokens() {
      const t = options.serverUrl ? targets.get(options.serverUrl) : last;
      return t ? flow.store.getTokens(t.issuer, t.resource) : undefined;
    },
    async signOut() {
      if (last) await flow.store.setTokens(last.issuer, last.resource, undefined);
    },
  };
}

/**
 * The mark of a failure of an authorization step (discovery, registration, a token request or
 * refresh) on the error the authorizing fetch throws: the MCP request was not sent, or was
 * refused (401 / 403) before it was processed. The HTTP client transports throw a marked error
 * as it is, not as a lost connection (../transport/http/io/delivery.ts `authorizationFailed`).
 */
const AUTHORIZATION_STEP = Symbol.for('mcpgen.authorizationStep');

/** Marks `e` as {@link AUTHORIZATION_STEP}'s and throws it. */
function stepFailed(e: unknown): never {
  if (e instanceof Error && Object.isExtensible(e)) Object.defineProperty(e, AUTHORIZATION_STEP, { value: true });
  throw e;
}

/** An MCP request with a DPoP-bound token: a fresh proof each time, once more with the server's nonce. */
async function dpopRequest(
  flow: OAuthFlow,
  input: RequestInfo | URL,
  init: RequestInit | undefined,
  headers: Headers,
  token: string,
): Promise<Response> {
  const url = new URL(typeof input === 'string' || input instanceof URL ? String(input) : input.url);
  const method = (init?.method ?? 'GET').toUpperCase();
  const handle = (await flow.dpop())!;
  const send = () =>
    oauth.protectedResourceRequest(token, method, url, headers, (init?.body ?? null) as never, {
      ...flow.httpOptions(url.href),
      DPoP: handle,
      signal: init?.signal ?? undefined,
    });
  // a challenge (401 / 403) is answered here as for bearer tokens
  const answered = (e: unknown) => {
    if (e instanceof oauth.WWWAuthenticateChallengeError) return e.response;
    throw e;
  };
  try {
    return await send();
  } catch (e) {
    if (!oauth.isDPoPNonceError(e)) return answered(e);
  }
  return send().catch(answered);
}
