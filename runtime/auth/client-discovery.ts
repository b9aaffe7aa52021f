/**
 * The discovery step of `oauthFetch` (./client.ts) (2025-11-25 basic/authorization, "Authorization
 * Server Discovery"): the protected resource metadata (RFC 9728), then the authorization server
 * metadata (RFC 8414 / OpenID discovery); a 2025-03-26 server with none is its own
 * authorization server.
 */
import {
  checkSecure,
  discoverAuthorizationServer,
  discoverResourceMetadata,
  DiscoveryError,
  type AuthorizationServerMetadata,
  type ResourceMetadata,
} from './discovery.js';
import { AuthorizationError, S256, type OAuthFlow, type Target } from './client-flow.js';

/**
 * The authorization server and resource for `serverUrl`, from the challenge's
 * `resource_metadata` or the well-known URLs. Each metadata step is bounded as a token request
 * is (`tokenTimeoutMs`, and `signal`, the caller's: {@link OAuthFlow.bound}).
 * @throws AuthorizationError when a metadata document is refused (another resource, another
 * issuer, not secure), or not answered within `tokenTimeoutMs`.
 */
export async function discover(
  flow: OAuthFlow,
  serverUrl: string,
  challenge: Record<string, string> | undefined,
  signal: AbortSignal | undefined,
): Promise<Target> {
  const failed = (e: unknown) =>
    new AuthorizationError(
      (e as Error).name === 'TimeoutError'
        ? `metadata discovery for ${serverUrl} failed: no answer within ${flow.tokenTimeoutMs} ms`
        : e instanceof Error
          ? e.message
          : String(e),
      { cause: e },
    );
  let prm: ResourceMetadata | undefined;
  try {
    prm = await discoverResourceMetadata(serverUrl, challenge?.resource_metadata, {
      fetch: flow.base,
      signal: flow.bound(signal),
    });
  } catch (e) {
    // a document naming another resource is refused; none at all is the 2025-03-26 shape
    if (!(e instanceof DiscoveryError) || e.kind !== 'not-found') throw failed(e);
  }
  const origin = new URL(serverUrl).origin;
  const issuer = prm?.authorization_servers?.[0] ?? origin;
  let as: AuthorizationServerMetadata;
  if (prm) {
    try {
      as = await discoverAuthorizationServer(issuer, {
        fetch: flow.base,
        allowLoopbackHttp: flow.allowHttp,
        signal: flow.bound(signal),
      });
    } catch (e) {
      throw failed(e);
    }
  } else {
    // 2025-03-26 basic/authorization: the authorization base URL is the server's origin, its
    // RFC 8414 document (no issuer was named, so none to compare), else the default endpoints
    as = (await legacyMetadata(flow, origin, signal).catch((e) =>
      Promise.reject(e?.name === 'TimeoutError' ? failed(e) : e),
    )) ?? {
      issuer: origin,
      authorization_endpoint: `${origin}/authorize`,
      token_endpoint: `${origin}/token`,
      registration_endpoint: `${origin}/register`,
      code_challenge_methods_supported: [S256],
    };
  }
  return { serverUrl, resource: prm?.resource ?? serverUrl, prm, issuer: as.issuer, as };
}

/** The 2025-03-26 server's own RFC 8414 document, at its origin; undefined when there is none. */
export async function legacyMetadata(
  flow: OAuthFlow,
  origin: string,
  signal: AbortSignal | undefined,
): Promise<AuthorizationServerMetadata | undefined> {
  const url = `${origin}/.well-known/oauth-authorization-server`;
  checkSecure(new URL(url), flow.allowHttp);
  const res = await flow.base(url, { headers: { Accept: 'application/json' }, signal: flow.bound(signal) });
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
