/**
 * Authorization for the conformance client's `auth/*` scenarios. The mcpgen runtime has no
 * OAuth client of its own: its HTTP client transport takes a `fetch`, and this module supplies
 * one that authorizes with the OAuth helpers of @modelcontextprotocol/sdk (discovery,
 * registration or client ID metadata documents, PKCE, token requests) and retries the request.
 *
 * - 401: discovery from `WWW-Authenticate` (resource_metadata, scope), authorization, retry.
 * - 403 with `error="insufficient_scope"`: step-up authorization with the challenged scope
 *   added to the granted ones.
 * - At most 3 authorizations per request; then the response is returned as it is.
 * - The authorization server metadata must name the issuer it was discovered from (RFC 8414),
 *   and the authorization response's `iss` must equal it (RFC 9207).
 * Client credentials scenarios use the SDK's client-credentials / private-key-JWT providers;
 * pre-registration uses the credentials of MCP_CONFORMANCE_CONTEXT; enterprise-managed
 * authorization (cross-app access) exchanges the IdP's ID token for an ID-JAG at the IdP
 * (RFC 8693) and that for an access token at the authorization server (RFC 7523 JWT bearer).
 */
import { auth, discoverAuthorizationServerMetadata, discoverOAuthProtectedResourceMetadata, extractWWWAuthenticateParams, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { ClientCredentialsProvider, PrivateKeyJwtProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';

const REDIRECT = 'http://localhost:3000/callback';
const CLIENT_METADATA_URL = 'https://conformance-test.local/client-metadata.json';

/** Authorization-code client: the "user" approves at once (the authorize redirect is read, not followed). */
class CodeFlowProvider implements OAuthClientProvider {
  clientMetadataUrl: string | undefined;
  #client: OAuthClientInformationMixed | undefined;
  #tokens: OAuthTokens | undefined;
  #verifier: string | undefined;
  code: string | undefined;
  /** The authorization server metadata's `issuer`, and whether it advertises the `iss` response parameter. */
  issuer: string | undefined;
  issRequired = false;

  constructor(client?: OAuthClientInformationMixed, metadataUrl?: string) {
    this.#client = client;
    this.clientMetadataUrl = metadataUrl;
  }
  get redirectUrl(): string {
    return REDIRECT;
  }
  get clientMetadata(): OAuthClientMetadata {
    // a localhost redirect: a native application (SEP-837)
    return { client_name: 'mcpgen-conformance-client', redirect_uris: [REDIRECT], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none', application_type: 'native' } as OAuthClientMetadata;
  }
  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.#client;
  }
  saveClientInformation(info: OAuthClientInformationMixed): void {
    this.#client = info;
  }
  tokens(): OAuthTokens | undefined {
    return this.#tokens;
  }
  saveTokens(tokens: OAuthTokens): void {
    this.#tokens = tokens;
  }
  async redirectToAuthorization(url: URL): Promise<void> {
    const res = await fetch(url, { redirect: 'manual' });
    await res.body?.cancel();
    const location = res.headers.get('location');
    const answer = location ? new URL(location).searchParams : undefined;
    const code = answer?.get('code');
    if (!code) throw new Error(`authorization at ${url.origin} gave no code (HTTP ${res.status})`);
    // RFC 9207: `iss` equals the metadata's issuer exactly, and is required where advertised
    const iss = answer!.get('iss');
    if (this.issuer !== undefined && (iss !== null ? iss !== this.issuer : this.issRequired)) {
      throw new Error(`authorization response iss ${iss === null ? 'missing' : `"${iss}"`}, expected "${this.issuer}"`);
    }
    this.code = code;
  }
  saveCodeVerifier(v: string): void {
    this.#verifier = v;
  }
  codeVerifier(): string {
    if (!this.#verifier) throw new Error('no PKCE code verifier');
    return this.#verifier;
  }
  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier'): void {
    if (scope === 'all' || scope === 'tokens') this.#tokens = undefined;
    if (scope === 'all' || scope === 'client') this.#client = undefined;
    if (scope === 'all' || scope === 'verifier') this.#verifier = undefined;
  }
}

function providerFor(scenario: string, context: Record<string, unknown>): OAuthClientProvider {
  const s = (k: string) => (typeof context[k] === 'string' ? (context[k] as string) : undefined);
  if (scenario === 'auth/client-credentials-basic') return new ClientCredentialsProvider({ clientId: s('client_id')!, clientSecret: s('client_secret')! });
  if (scenario === 'auth/client-credentials-jwt') {
    return new PrivateKeyJwtProvider({ clientId: s('client_id')!, privateKey: s('private_key_pem')!, algorithm: s('signing_algorithm') ?? 'ES256' });
  }
  if (scenario === 'auth/pre-registration') {
    return new CodeFlowProvider({ client_id: s('client_id')!, client_secret: s('client_secret'), redirect_uris: [REDIRECT] } as OAuthClientInformationMixed);
  }
  return new CodeFlowProvider(undefined, CLIENT_METADATA_URL);
}

/** Cross-app access: ID token → ID-JAG at the IdP → access token at the MCP server's AS. */
async function crossAppAccess(serverUrl: string, resourceMetadataUrl: URL | undefined, context: Record<string, unknown>): Promise<OAuthTokens> {
  const prm = await discoverOAuthProtectedResourceMetadata(serverUrl, { resourceMetadataUrl });
  const as = prm.authorization_servers?.[0];
  if (!as) throw new Error('protected resource metadata names no authorization server');
  const meta = await discoverAuthorizationServerMetadata(as);
  if (!meta) throw new Error(`no authorization server metadata at ${as}`);
  const post = async (url: string, body: Record<string, string>, headers: Record<string, string> = {}) => {
    const res = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers }, body: new URLSearchParams(body) });
    if (!res.ok) throw new Error(`token request to ${url}: HTTP ${res.status} ${await res.text()}`);
    return (await res.json()) as OAuthTokens;
  };
  const jag = await post(String(context.idp_token_endpoint), {
    grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
    requested_token_type: 'urn:ietf:params:oauth:token-type:id-jag',
    audience: meta.issuer,
    resource: prm.resource,
    subject_token: String(context.idp_id_token),
    subject_token_type: 'urn:ietf:params:oauth:token-type:id_token',
    client_id: String(context.idp_client_id),
  });
  const basic = Buffer.from(`${encodeURIComponent(String(context.client_id))}:${encodeURIComponent(String(context.client_secret))}`).toString('base64');
  return post(meta.token_endpoint, { grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion: jag.access_token }, { Authorization: `Basic ${basic}` });
}

/**
 * RFC 8414 section 3.3: the authorization server metadata's `issuer` is the issuer identifier
 * it was discovered from (a trailing slash aside), or the metadata is not used. Records the
 * issuer for the authorization response's `iss` check (RFC 9207).
 */
async function checkIssuer(provider: CodeFlowProvider, serverUrl: string, resourceMetadataUrl: URL | undefined): Promise<void> {
  // without protected resource metadata (2025-03-26 back-compat) no issuer identifier was named
  const prm = await discoverOAuthProtectedResourceMetadata(serverUrl, { resourceMetadataUrl }).catch(() => undefined);
  const as = prm?.authorization_servers?.[0];
  if (!as) return;
  const meta = await discoverAuthorizationServerMetadata(as).catch(() => undefined);
  if (!meta) return;
  const bare = (u: string) => u.replace(/\/+$/, '');
  if (bare(meta.issuer) !== bare(as)) throw new Error(`authorization server metadata names issuer "${meta.issuer}", discovered from "${as}"`);
  provider.issuer = meta.issuer;
  provider.issRequired = (meta as { authorization_response_iss_parameter_supported?: boolean }).authorization_response_iss_parameter_supported === true;
}

/** A fetch that authorizes as the scenario requires. */
export function oauthFetch(options: { scenario: string; context: Record<string, unknown>; serverUrl: string }): { fetch: typeof fetch } {
  const provider = providerFor(options.scenario, options.context);
  const authorize = async (res: Response): Promise<void> => {
    const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(res);
    if (options.scenario === 'auth/cross-app-access-complete-flow' || options.scenario === 'auth/enterprise-managed-authorization') {
      await provider.saveTokens(await crossAppAccess(options.serverUrl, resourceMetadataUrl, options.context));
      return;
    }
    if (provider instanceof CodeFlowProvider) await checkIssuer(provider, options.serverUrl, resourceMetadataUrl);
    // step-up (403 insufficient_scope): the challenged scope joins the ones granted so far (SEP-2350)
    const granted = res.status === 403 ? (await provider.tokens())?.scope : undefined;
    const wanted = granted && scope ? [...new Set([...granted.split(' '), ...scope.split(' ')].filter(Boolean))].join(' ') : scope;
    const opts = { serverUrl: options.serverUrl, resourceMetadataUrl, scope: wanted, fetchFn: fetch };
    if ((await auth(provider, opts)) === 'AUTHORIZED') return;
    const code = (provider as CodeFlowProvider).code;
    if (!code || (await auth(provider, { ...opts, authorizationCode: code })) !== 'AUTHORIZED') throw new Error('authorization failed');
  };
  const authed: typeof fetch = async (input, init) => {
    for (let attempt = 0; ; attempt++) {
      const headers = new Headers(init?.headers);
      const tokens = await provider.tokens();
      if (tokens) headers.set('Authorization', `Bearer ${tokens.access_token}`);
      const res = await fetch(input, { ...init, headers });
      const challenged = res.status === 401 || (res.status === 403 && extractWWWAuthenticateParams(res).error === 'insufficient_scope');
      if (!challenged || attempt >= 3) return res;
      await res.body?.cancel();
      await authorize(res);
    }
  };
  return { fetch: authed };
}
