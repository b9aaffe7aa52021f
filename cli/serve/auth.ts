/**
 * `mcpgen serve --http … --auth <issuer>`: the endpoint becomes a protected resource
 * (2025-11-25 basic/authorization): every request needs a bearer token of `issuer` for this
 * endpoint's URL (the audience), verified against the issuer's JWKS (`--auth-jwks <url>`, else
 * the issuer metadata's `jwks_uri`), with the scopes of `--auth-scope "a b"`; the protected
 * resource metadata is served at `/.well-known/oauth-protected-resource/mcp`. DPoP-bound
 * tokens (RFC 9449) are accepted too, with a proof of their key on every request.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  bearerAuth,
  protectedResourceMetadata,
  resourceMetadataEndpoint,
  type ResourceMetadataEndpoint,
} from '@mcpgen/runtime/auth';
import type { Authorizer, ReplayStore } from '@mcpgen/runtime/auth';

/** What `--auth`, `--auth-jwks` and `--auth-scope` say. */
export interface ServeAuthOptions {
  /** The authorization server's issuer identifier. */
  issuer: string;
  /** JWKS URL; default the issuer metadata's `jwks_uri`. */
  jwks?: string;
  /** Scopes every request needs (and `scopes_supported` of the metadata). */
  scopes?: readonly string[];
}

/**
 * The token check and metadata endpoint of a served endpoint at `resource` (its public URL:
 * `--public-url` behind a load balancer); `replay`: where accepted DPoP proof ids are kept
 * (the Redis stores' with `--redis`), default this process's memory.
 */
export function serveAuth(
  resource: string,
  options: ServeAuthOptions,
  replay?: ReplayStore,
): { authorize: Authorizer; metadata: ResourceMetadataEndpoint } {
  const scopes = options.scopes?.length ? [...options.scopes] : undefined;
  return {
    // DPoP-bound tokens are accepted beside bearer tokens (RFC 9449); with --redis the ids of
    // accepted proofs are kept in Redis, so a proof is accepted once by the whole deployment
    authorize: bearerAuth({
      resource,
      issuer: options.issuer,
      jwks: options.jwks,
      requiredScopes: scopes,
      dpop: replay ? { replay } : {},
    }),
    metadata: resourceMetadataEndpoint(
      protectedResourceMetadata({
        resource,
        authorizationServers: [options.issuer],
        scopesSupported: scopes,
        resourceName: 'mcpgen reference server',
      }),
    ),
  };
}

/** Answers the metadata endpoint's requests; false for any other path. */
export function routeMetadata(
  metadata: ResourceMetadataEndpoint | undefined,
  req: IncomingMessage,
  res: ServerResponse,
): boolean {
  if (!metadata?.handles(req.url)) return false;
  metadata.node(req, res);
  return true;
}
