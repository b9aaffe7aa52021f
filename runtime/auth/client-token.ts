/**
 * The token step of `oauthFetch` (./client.ts): the scope to ask for, the grant (authorization code with
 * PKCE S256, `client_credentials`, or `jwt-bearer`), and refreshing (2025-11-25
 * basic/authorization, "Access Token Usage", "Token Handling"; RFC 8707 `resource` on every
 * request).
 */
import * as oauth from 'oauth4webapi';
import { checkSecure } from './discovery.js';
import type { StoredTokens } from './store.js';
import { AuthorizationError, S256, type OAuthFlow, type Target } from './client-flow.js';
import { clientAuth, clientFor } from './client-registration.js';

/** A token response as kept: its expiry in ms since the epoch, what it leaves out taken from `previous`. */
export const stored = (r: oauth.TokenEndpointResponse, previous?: StoredTokens): StoredTokens => ({
  access_token: r.access_token,
  token_type: r.token_type,
  refresh_token: r.refresh_token ?? previous?.refresh_token,
  scope: r.scope ?? previous?.scope,
  expiresAt: typeof r.expires_in === 'number' ? Date.now() + r.expires_in * 1000 : undefined,
});

/** The scope to ask for (the module docs of ./client.ts, step 4); undefined for none. */
export function scopeFor(
  flow: OAuthFlow,
  t: Target,
  challenge: Record<string, string> | undefined,
  granted: string | undefined,
  stepUp: boolean,
): string | undefined {
  let scope = flow.options.scope ?? challenge?.scope ?? t.prm?.scopes_supported?.join(' ');
  if (stepUp && granted && challenge?.scope)
    scope = [...new Set([...granted.split(' '), ...challenge.scope.split(' ')].filter(Boolean))].join(' ');
  const offline = flow.options.offlineAccess ?? flow.grant === 'authorization_code';
  if (offline && t.as.scopes_supported?.includes('offline_access') && !scope?.split(' ').includes('offline_access'))
    scope = scope ? `${scope} offline_access` : 'offline_access';
  return scope || undefined;
}

/**
 * New tokens for `t` by the configured grant, kept in the store; `signal`: the caller's, which
 * ends the token request too.
 * @throws AuthorizationError when a request is refused (naming its HTTP status, and the RFC 6749
 * §5.2 `error` and `error_description` the server sent) or takes over `tokenTimeoutMs`; the
 * caller's abort reason; TypeError for a grant without what it needs.
 */
export async function obtain(
  flow: OAuthFlow,
  t: Target,
  challenge: Record<string, string> | undefined,
  stepUp: boolean,
  signal: AbortSignal | undefined,
): Promise<StoredTokens> {
  const c = await clientFor(flow, t);
  const client: oauth.Client = { ...c } as oauth.Client;
  const auth = await clientAuth(flow, t, c);
  const previous = await flow.store.getTokens(t.issuer, t.resource);
  const scope = scopeFor(flow, t, challenge, previous?.scope, stepUp);
  if (t.as.token_endpoint) checkSecure(new URL(t.as.token_endpoint), flow.allowHttp);
  const http = await flow.tokenOptions(t.as.token_endpoint, signal);
  let response: oauth.TokenEndpointResponse;
  try {
    if (flow.grant === 'client_credentials' || flow.grant === 'jwt-bearer') {
      // client_credentials and jwt-bearer (RFC 7523): one token request of that grant type,
      // its form `resource`, then the assertion, then the scope
      const jwt = flow.grant === 'jwt-bearer';
      if (jwt && !flow.options.assertion)
        throw new TypeError('oauthFetch: the jwt-bearer grant needs options.assertion');
      const params: Record<string, string> = { resource: t.resource };
      if (jwt)
        params.assertion = await flow.options.assertion!({ issuer: t.issuer, resource: t.resource, metadata: t.as });
      if (scope) params.scope = scope;
      const grantType = jwt ? 'urn:ietf:params:oauth:grant-type:jwt-bearer' : 'client_credentials';
      response = await flow.withNonce(async () =>
        oauth.processGenericTokenEndpointResponse(
          t.as,
          client,
          await oauth.genericTokenEndpointRequest(t.as, client, auth, grantType, params, http),
        ),
      );
    } else response = await codeGrant(flow, t, client, auth, scope, http);
  } catch (e) {
    if (e instanceof AuthorizationError || e instanceof TypeError || signal?.aborted) throw e;
    throw new AuthorizationError(`token request to ${t.as.token_endpoint} failed: ${await refusal(flow, e)}`, {
      cause: e,
    });
  }
  const tokens = stored(response);
  await flow.store.setTokens(t.issuer, t.resource, tokens);
  return tokens;
}

/**
 * What a failed token request said: `HTTP <status>` of an answer other than 200, with the RFC
 * 6749 §5.2 `error` (`error_description`) of its JSON body; the bound when there was no answer
 * in time; else the error's message.
 */
async function refusal(flow: OAuthFlow, e: unknown): Promise<string> {
  if ((e as Error | undefined)?.name === 'TimeoutError') return `no answer within ${flow.tokenTimeoutMs} ms`;
  // oauth4webapi's error for an answer other than 200 holds it: a challenge's or a refusal's
  // `response` (a refusal's body read already: its `cause`), a bad answer's `cause`
  const { response, cause } = e as { response?: unknown; cause?: { error?: string; error_description?: string } };
  const res = response ?? cause;
  if (!(res instanceof Response) || res.ok) return e instanceof Error ? e.message : String(e);
  const said = cause?.error ? cause : await res.json().catch(() => undefined);
  const error = said?.error && ` ${said.error}${said.error_description ? ` (${said.error_description})` : ''}`;
  return `HTTP ${res.status}${error || ''}`;
}

/** The authorization code grant: the user agent's round trip with PKCE S256 and `state`, then the token request. */
export async function codeGrant(
  flow: OAuthFlow,
  t: Target,
  client: oauth.Client,
  auth: oauth.ClientAuth,
  scope: string | undefined,
  http: Awaited<ReturnType<OAuthFlow['tokenOptions']>>,
): Promise<oauth.TokenEndpointResponse> {
  if (!flow.options.userAgent) throw new TypeError('oauthFetch: the authorization code grant needs options.userAgent');
  const redirectUri =
    flow.options.redirectUri ?? (flow.options.clientMetadata?.redirect_uris as string[] | undefined)?.[0];
  if (!redirectUri)
    throw new TypeError('oauthFetch: a redirect URI is required (options.redirectUri or clientMetadata.redirect_uris)');
  // PKCE support is read from the metadata: without S256 there, the client refuses to proceed
  if (!t.as.code_challenge_methods_supported?.includes(S256))
    throw new AuthorizationError(
      `authorization server ${t.issuer} does not list PKCE S256 in code_challenge_methods_supported`,
    );
  if (!t.as.authorization_endpoint)
    throw new AuthorizationError(`authorization server ${t.issuer} has no authorization_endpoint`);
  const url = new URL(t.as.authorization_endpoint);
  checkSecure(url, flow.allowHttp);
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
  const back = await flow.options.userAgent(url, redirectUri);
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
  return flow.withNonce(async () => {
    const res = await oauth.authorizationCodeGrantRequest(t.as, client, auth, validated, redirectUri, verifier, {
      ...http,
      additionalParameters: { resource: t.resource },
    });
    return oauth.processAuthorizationCodeResponse(t.as, client, res);
  });
}

/**
 * Refreshed tokens for `t`, kept in the store; undefined (and the tokens forgotten) when there
 * is no refresh token or it is refused. `signal`: the caller's, which ends the request too.
 */
export async function refresh(
  flow: OAuthFlow,
  t: Target,
  tokens: StoredTokens,
  signal: AbortSignal | undefined,
): Promise<StoredTokens | undefined> {
  if (!tokens.refresh_token) return undefined;
  try {
    const c = await clientFor(flow, t);
    const client = { ...c } as oauth.Client;
    const http = await flow.tokenOptions(t.as.token_endpoint, signal);
    const cauth = await clientAuth(flow, t, c);
    const next = stored(
      await flow.withNonce(async () =>
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
    await flow.store.setTokens(t.issuer, t.resource, next);
    return next;
  } catch {
    // a refused refresh token is forgotten; the caller authorizes again
    await flow.store.setTokens(t.issuer, t.resource, undefined);
    return undefined;
  }
}
