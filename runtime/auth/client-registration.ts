/**
 * The client identity of `oauthFetch` (./client.ts) (2025-11-25 basic/authorization, "Client
 * Registration"; draft client-registration): pre-registered credentials, a Client ID Metadata
 * Document, or dynamic client registration (RFC 7591), kept per authorization server; and the
 * token endpoint authentication the identity calls for.
 */
import * as oauth from 'oauth4webapi';
import { importPKCS8 } from 'jose';
import { checkSecure } from './discovery.js';
import type { ClientRegistration } from './store.js';
import { AuthorizationError, type OAuthFlow, type Target } from './client-flow.js';

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

/**
 * The client registration for `t`'s authorization server, in the spec's order.
 * @throws AuthorizationError when there is no way to register, or the registration is refused.
 */
export async function clientFor(flow: OAuthFlow, t: Target): Promise<ClientRegistration> {
  const given =
    typeof flow.options.credentials === 'function' ? flow.options.credentials(t.issuer) : flow.options.credentials;
  if (given) return given;
  const kept = await flow.store.getClient(t.issuer);
  if (kept) return kept;
  if (flow.options.clientMetadataUrl && t.as.client_id_metadata_document_supported === true)
    return {
      client_id: flow.options.clientMetadataUrl,
      token_endpoint_auth_method: flow.options.privateKey ? 'private_key_jwt' : 'none',
    };
  if (!t.as.registration_endpoint)
    throw new AuthorizationError(
      `authorization server ${t.issuer} offers no way to register this client (no credentials, no client ID metadata document support, no registration endpoint)`,
    );
  const metadata: Record<string, unknown> = {
    redirect_uris: flow.options.redirectUri ? [flow.options.redirectUri] : [],
    grant_types: flow.grant === 'client_credentials' ? ['client_credentials'] : ['authorization_code', 'refresh_token'],
    response_types: flow.grant === 'client_credentials' ? [] : ['code'],
    token_endpoint_auth_method: 'none',
    ...flow.options.clientMetadata,
  };
  checkSecure(new URL(t.as.registration_endpoint), flow.allowHttp);
  const res = await oauth.dynamicClientRegistrationRequest(
    t.as,
    metadata as never,
    flow.httpOptions(t.as.registration_endpoint),
  );
  // read here rather than by processDynamicClientRegistrationResponse: servers that leave out
  // `client_secret_expires_at` (RFC 7591 section 3.2.1) are common, and the secret works all the same
  const text = await res.text();
  let registered: ClientRegistration | undefined;
  try {
    registered = JSON.parse(text) as ClientRegistration;
  } catch {
    // not JSON: refused below, as a registration without client_id
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
  await flow.store.setClient(t.issuer, registered);
  return registered;
}

/**
 * The token endpoint authentication for `c`: its registered method, else `private_key_jwt` with
 * a private key, else chosen from the server's list.
 * @throws AuthorizationError for a method this client cannot use.
 */
export async function clientAuth(flow: OAuthFlow, t: Target, c: ClientRegistration): Promise<oauth.ClientAuth> {
  const supported = t.as.token_endpoint_auth_methods_supported;
  const method =
    c.token_endpoint_auth_method ??
    (flow.options.privateKey
      ? 'private_key_jwt'
      : c.client_secret
        ? supported && !supported.includes('client_secret_basic') && supported.includes('client_secret_post')
          ? 'client_secret_post'
          : 'client_secret_basic'
        : 'none');
  if (method === 'client_secret_basic') return secretBasic(c.client_secret ?? '');
  if (method === 'client_secret_post') return oauth.ClientSecretPost(c.client_secret ?? '');
  if (method === 'private_key_jwt') {
    const pk = flow.options.privateKey;
    if (!pk) throw new AuthorizationError('private_key_jwt needs options.privateKey');
    const key = typeof pk.key === 'string' ? await importPKCS8(pk.key, pk.alg ?? 'ES256') : pk.key;
    return oauth.PrivateKeyJwt({ key, kid: pk.kid });
  }
  if (method === 'none') return oauth.None();
  throw new AuthorizationError(`token endpoint authentication method ${method} is not supported`);
}
