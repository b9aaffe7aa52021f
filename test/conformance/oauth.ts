/**
 * Authorization for the conformance client's `auth/*` scenarios, with the runtime's own OAuth
 * client (runtime/auth/client.ts): its authorizing `fetch` goes to our HTTP client transports.
 * Per scenario only the client's identity and grant differ:
 * - client credentials scenarios: the `client_credentials` grant with the credentials of
 *   MCP_CONFORMANCE_CONTEXT (`client_secret_basic`, or `private_key_jwt` with its PEM key);
 * - pre-registration: the context's credentials with the authorization code grant;
 * - enterprise-managed authorization (cross-app access): the `jwt-bearer` grant, its assertion
 *   an ID-JAG the IdP issues for the IdP's ID token (RFC 8693 token exchange);
 * - workload identity federation: the `jwt-bearer` grant, its assertion the context's workload JWT;
 * - DPoP scenarios: as below, with DPoP-bound tokens (RFC 9449);
 * - every other scenario: a Client ID Metadata Document URL, else dynamic registration, with
 *   the authorization code grant; the "user" approves at once (the authorization endpoint's
 *   redirect is read, not followed).
 */
import { oauthFetch as makeOAuthFetch, type OAuthClientOptions } from '../../runtime/auth/client.js';

const REDIRECT = 'http://localhost:3000/callback';
const CLIENT_METADATA_URL = 'https://conformance-test.local/client-metadata.json';

/** The user-agent step: the authorization endpoint answers with a redirect to REDIRECT, whose URL is the answer. */
async function approve(url: URL): Promise<URL> {
  const res = await fetch(url, { redirect: 'manual' });
  await res.body?.cancel();
  const location = res.headers.get('location');
  if (!location) throw new Error(`authorization at ${url.origin} gave no redirect (HTTP ${res.status})`);
  return new URL(location, url);
}

function optionsFor(scenario: string, context: Record<string, unknown>): OAuthClientOptions {
  const s = (k: string) => (typeof context[k] === 'string' ? (context[k] as string) : undefined);
  if (scenario === 'auth/client-credentials-basic')
    return {
      grant: 'client_credentials',
      credentials: {
        client_id: s('client_id')!,
        client_secret: s('client_secret')!,
        token_endpoint_auth_method: 'client_secret_basic',
      },
    };
  if (scenario === 'auth/client-credentials-jwt') {
    return {
      grant: 'client_credentials',
      credentials: { client_id: s('client_id')!, token_endpoint_auth_method: 'private_key_jwt' },
      privateKey: { key: s('private_key_pem')!, alg: s('signing_algorithm') ?? 'ES256' },
    };
  }
  if (scenario === 'auth/cross-app-access-complete-flow' || scenario === 'auth/enterprise-managed-authorization') {
    return {
      grant: 'jwt-bearer',
      credentials: {
        client_id: s('client_id')!,
        client_secret: s('client_secret')!,
        token_endpoint_auth_method: 'client_secret_basic',
      },
      offlineAccess: false,
      assertion: async ({ issuer, resource }) => {
        const res = await fetch(s('idp_token_endpoint')!, {
          method: 'POST',
          headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
            requested_token_type: 'urn:ietf:params:oauth:token-type:id-jag',
            audience: issuer,
            resource,
            subject_token: s('idp_id_token')!,
            subject_token_type: 'urn:ietf:params:oauth:token-type:id_token',
            client_id: s('idp_client_id')!,
          }),
        });
        if (!res.ok) throw new Error(`ID-JAG request: HTTP ${res.status} ${await res.text()}`);
        return ((await res.json()) as { access_token: string }).access_token;
      },
    };
  }
  if (scenario === 'auth/wif-jwt-bearer') {
    // workload identity federation (SEP-1933): the platform's workload JWT is the assertion
    return {
      grant: 'jwt-bearer',
      credentials: { client_id: s('client_id')!, token_endpoint_auth_method: 'none' },
      offlineAccess: false,
      assertion: async () => s('valid_jwt')!,
    };
  }
  const code: OAuthClientOptions = {
    userAgent: approve,
    redirectUri: REDIRECT,
    // a localhost redirect: a native application (SEP-837)
    clientMetadata: {
      client_name: 'mcpgen-conformance-client',
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      application_type: 'native',
    },
  };
  if (scenario === 'auth/pre-registration')
    return { ...code, credentials: { client_id: s('client_id')!, client_secret: s('client_secret') } };
  // DPoP scenarios (SEP-1932): DPoP-bound tokens, a proof on every request
  return { ...code, clientMetadataUrl: CLIENT_METADATA_URL, dpop: scenario.startsWith('auth/dpop') };
}

/** A fetch that authorizes as the scenario requires. */
export function oauthFetch(options: { scenario: string; context: Record<string, unknown>; serverUrl: string }): {
  fetch: typeof fetch;
} {
  return { fetch: makeOAuthFetch(optionsFor(options.scenario, options.context)).fetch };
}
