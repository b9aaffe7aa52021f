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
import type { Logger } from '@mcpgen/runtime/engine';
import { redactText } from '../redact.js';

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
 * (the Redis stores' with `--redis`), default this process's memory. Why a token could not be
 * checked (the client gets a 503 that does not say) goes to `logger` once per cause, its URLs
 * redacted.
 */
export function serveAuth(
  resource: string,
  options: ServeAuthOptions,
  replay?: ReplayStore,
  logger?: Logger,
): { authorize: Authorizer; metadata: ResourceMetadataEndpoint } {
  const scopes = options.scopes?.length ? [...options.scopes] : undefined;
  const told = new Set<string>();
  return {
    // DPoP-bound tokens are accepted beside bearer tokens (RFC 9449); with --redis the ids of
    // accepted proofs are kept in Redis, so a proof is accepted once by the whole deployment
    authorize: bearerAuth({
      resource,
      issuer: options.issuer,
      jwks: options.jwks,
      requiredScopes: scopes,
      dpop: replay ? { replay } : {},
      onError: (e, { stage }) => {
        const line = `auth: ${stage === 'token' ? 'token check' : 'DPoP replay check'} failed: ${redactText(e.message)}`;
        if (told.has(line)) return;
        // (bounded: an issuer failing in ever new ways is named again after AUTH_CAUSES_KEPT causes)
        if (told.size >= AUTH_CAUSES_KEPT) told.clear();
        told.add(line);
        logger?.warn?.(line);
      },
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

/** How many distinct causes of failed token checks `serve` remembers having printed. */
const AUTH_CAUSES_KEPT = 64;

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
