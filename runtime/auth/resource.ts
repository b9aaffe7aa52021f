// size: bearerAuth and the metadata endpoint share their option checks; 67 lines over (the key fetches are in resource-keys.ts)
/**
 * The resource-server side of MCP authorization (2025-11-25 basic/authorization and draft
 * basic/authorization/index, "Access Token Usage", "Error Handling", "Access Token Privilege
 * Restriction"; RFC 6750 bearer tokens, RFC 9728 protected resource metadata, RFC 8707
 * audience binding, RFC 9068 JWT access tokens).
 *
 * - {@link bearerAuth} makes the {@link Authorizer} both HTTP server transports call on a
 *   request's head, before its body is read: the `Authorization: Bearer` token is verified as a
 *   JWT against the issuer's JWKS (signature, `iss` pinned, `aud` = the server's canonical URI,
 *   `exp` required and accepted up to `clockToleranceSec` past it, default 5 s, as `nbf` is
 *   before it; an algorithm allow-list that can never hold `none`), or handed to an
 *   introspection callback; required scopes are checked.
 * - Answers: 401 with `WWW-Authenticate: Bearer resource_metadata="…", scope="…"` when no
 *   token was sent; 401 with `error="invalid_token"` (and a short `error_description`) for a
 *   bad one; 403 with `error="insufficient_scope"` and the scopes needed; 400
 *   `error="invalid_request"` for a token in more than one place (RFC 6750 section 3.1). A
 *   token that is no JWS compact JWT of an accepted algorithm is `invalid_token` at once, the
 *   issuer's keys not fetched for it; a well-formed one whose keys (or the introspection
 *   endpoint) are out of reach is 503 with `Retry-After: 5` and no challenge (the token is not
 *   refused, the check could not be made); its body names no URL or cause (the options' `onError` is told).
 *   Schemes (RFC 9449 §7.1): a refusal of a request under the DPoP scheme is a `DPoP`
 *   challenge (`error`, `error_description`, `algs`; a proof's faults `invalid_dpop_proof`, a
 *   missing server nonce `use_dpop_nonce` with `DPoP-Nonce`); a request with no (or another
 *   scheme's) credentials is offered every scheme accepted, `Bearer` then `DPoP`. Every
 *   challenge names `resource_metadata`.
 * - {@link protectedResourceMetadata} / {@link resourceMetadataEndpoint}: the RFC 9728 document
 *   at the path-inserted well-known URI of the resource.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  decodeJwt,
  decodeProtectedHeader,
  errors as joseErrors,
  jwtVerify,
  type JSONWebKeySet,
  type JWTPayload,
  type JWTVerifyGetKey,
} from 'jose';
import { ErrorCode } from '../jsonrpc/errors.js';
import { keyGetter } from './resource-keys.js';
import { DPoPVerifier, type DPoPOptions } from './dpop.js';
import type { AuthInfo, AuthRefusal, Authorizer, AuthRequest, AuthVerdict } from './types.js';

/** Asymmetric JWS algorithms accepted by default (RFC 7518, RFC 8037). */
export const DEFAULT_ALGORITHMS: readonly string[] = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
];

/** Options of {@link bearerAuth}. */
export interface BearerAuthOptions {
  /**
   * The server's canonical URI (RFC 8707 section 2; e.g. `https://mcp.example.com/mcp`): the
   * audience every token must name. No fragment allowed.
   */
  resource: string;
  /** The authorization server issuer identifier tokens must carry as `iss` (exact match). */
  issuer: string;
  /**
   * Where the signing keys are: a JWKS URL, a JWKS document, or a jose key getter. Default:
   * the `jwks_uri` of the issuer's metadata (RFC 8414 / OpenID discovery), fetched once.
   */
  jwks?: string | URL | JSONWebKeySet | JWTVerifyGetKey;
  /**
   * Instead of JWT verification: asks the authorization server (RFC 7662 introspection, or any
   * store) about an opaque token. Resolve undefined for a token that is not active. The
   * audience is still checked against `resource` when the answer names one (`aud`), and its
   * times as a JWT's (`clockToleranceSec`).
   */
  introspect?: (token: string) => Promise<Omit<AuthInfo, 'token'> | undefined>;
  /** Accepted JWS algorithms. Default: RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384, ES512, EdDSA, Ed25519; `none` is refused (TypeError). */
  algorithms?: readonly string[];
  /** Scopes every request needs (else 403 `insufficient_scope`). Default none. */
  requiredScopes?: readonly string[];
  /** The `scope` of a 401 challenge (RFC 6750 section 3). Default `requiredScopes`, else none. */
  challengeScopes?: readonly string[];
  /** The protected resource metadata URL named in challenges. Default {@link resourceMetadataUrl} of `resource`. */
  resourceMetadataUrl?: string;
  /**
   * Leeway on a JWT's `exp` and `nbf`, seconds (jose `clockTolerance`), for clocks that differ
   * between the authorization server and this one: a token is accepted up to this long after
   * its `exp` and before its `nbf`. From 0 to 300 (else TypeError); default 5. An
   * introspection answer (RFC 7662) is held to the same rule: its `expiresAt` (else its `exp`
   * claim) and its `nbf` claim, seconds since the epoch.
   */
  clockToleranceSec?: number;
  /** Required JWT `typ` header (RFC 9068: `at+jwt`). Default: not checked. */
  typ?: string;
  /** Allow http:// issuer metadata and JWKS URLs on loopback hosts (tests, local development). Default true. */
  allowLoopbackHttp?: boolean;
  /** Accept DPoP-bound tokens (RFC 9449, ./dpop.ts); proofs name `resource` as their `htu`. Default: bearer tokens only. */
  dpop?: DPoPOptions;
  /**
   * Told why a check could not be made, each time a request gets the 503 (the client's body
   * names neither URL nor cause): `stage` `'token'` — the issuer's metadata or JWKS, or the
   * introspection callback, failed (for a fetch, an `AuthFetchError` naming the method and URL,
   * and for a timeout the bound: 5 s for the metadata, all its URLs together, 5 s for the JWKS;
   * a JWKS answer other than 200 JSON is such a failure too); `'dpop-replay'` — the DPoP replay
   * store failed. What it throws is ignored. Default: nothing is told.
   */
  onError?: (error: Error, context: { stage: 'token' | 'dpop-replay' }) => void;
}

/**
 * The RFC 9728 section 3.1 metadata URL of a resource: `/.well-known/oauth-protected-resource`
 * inserted between its origin and its path (`https://h/mcp` → `https://h/.well-known/oauth-protected-resource/mcp`).
 * @throws TypeError when `resource` is not an absolute URL or has a fragment.
 */
export function resourceMetadataUrl(resource: string): string {
  const u = canonical(resource);
  const path = u.pathname === '/' ? '' : u.pathname;
  return `${u.origin}/.well-known/oauth-protected-resource${path}`;
}

function canonical(resource: string): URL {
  let u: URL;
  try {
    u = new URL(resource);
  } catch {
    throw new TypeError(`resource ${JSON.stringify(resource)} is not an absolute URL`);
  }
  if (resource.includes('#'))
    throw new TypeError(`resource ${JSON.stringify(resource)} must not have a fragment (RFC 8707 section 2)`);
  return u;
}

/** RFC 6750 auth-param quoting: backslash-escapes `"` and `\`. */
const quote = (v: string): string => `"${v.replace(/["\\]/g, (c) => `\\${c}`)}"`;

/** A `WWW-Authenticate: Bearer …` value from its parameters (undefined ones left out). */
export function bearerChallenge(params: Record<string, string | undefined>): string {
  return challengeOf('Bearer', params);
}

/** A challenge of `scheme` (RFC 6750 §3, RFC 9449 §7.1) from its parameters (undefined ones left out). */
function challengeOf(scheme: 'Bearer' | 'DPoP', params: Record<string, string | undefined>): string {
  const parts = Object.entries(params)
    .filter((e): e is [string, string] => e[1] !== undefined)
    .map(([k, v]) => `${k}=${quote(v)}`);
  return parts.length ? `${scheme} ${parts.join(', ')}` : scheme;
}

/** Splits a space-separated scope string. */
const scopesOf = (v: unknown): string[] =>
  typeof v === 'string'
    ? v.split(' ').filter(Boolean)
    : Array.isArray(v)
      ? v.filter((s): s is string => typeof s === 'string')
      : [];

/**
 * Makes the token check of a protected MCP endpoint: pass it as `authorize` to
 * `createStreamableHttpHandler` / `createStatelessHttpHandler` (both eras).
 * @throws TypeError for a bad `resource`, an `algorithms` list naming `none`, a `clockToleranceSec` outside 0..300, or neither `jwks`-able `issuer` nor `introspect`.
 */
// size: the token checks in order, one step each
export function bearerAuth(options: BearerAuthOptions): Authorizer {
  canonical(options.resource);
  const algorithms = [...(options.algorithms ?? DEFAULT_ALGORITHMS)];
  if (algorithms.length === 0 || algorithms.some((a) => a.toLowerCase() === 'none'))
    throw new TypeError('bearerAuth: algorithms must be a non-empty list without "none"');
  if (!options.issuer) throw new TypeError('bearerAuth: issuer is required');
  const clockTolerance = options.clockToleranceSec ?? 5;
  if (typeof clockTolerance !== 'number' || !(clockTolerance >= 0 && clockTolerance <= 300))
    throw new TypeError(
      `bearerAuth: clockToleranceSec must be a number of seconds from 0 to 300, got ${clockTolerance}`,
    );
  const metadataUrl = options.resourceMetadataUrl ?? resourceMetadataUrl(options.resource);
  const required = [...(options.requiredScopes ?? [])];
  const challengeScope = (options.challengeScopes ?? required).join(' ') || undefined;
  const allowHttp = options.allowLoopbackHttp ?? true;
  const keys = options.introspect ? undefined : keyGetter(options.jwks, options.issuer, allowHttp);
  const dpop = options.dpop && new DPoPVerifier(algorithms, options.dpop);
  /** The schemes a request may use here, in the order their challenges are offered. */
  const accepted: Scheme[] = [
    ...(options.dpop?.required ? [] : ['bearer' as const]),
    ...(dpop ? ['dpop' as const] : []),
  ];

  /**
   * A refusal and its challenges (RFC 6750 §3, RFC 9449 §7.1): of the scheme the request used
   * when it is one accepted here, else of every scheme accepted (no credentials: both, §7.1's
   * example); each names the metadata (RFC 9728 §5.1), a DPoP one also the `algs` accepted.
   */
  const refuse = (
    status: number,
    message: string,
    params: Record<string, string | undefined>,
    scheme: Scheme | undefined,
    extra: Record<string, string> = {},
  ): AuthVerdict => ({
    refusal: {
      status,
      code: ErrorCode.ServerError,
      message,
      headers: {
        'WWW-Authenticate': (scheme ? [scheme] : accepted)
          .map((s) =>
            s === 'bearer'
              ? challengeOf('Bearer', { resource_metadata: metadataUrl, ...params })
              : challengeOf('DPoP', { resource_metadata: metadataUrl, ...params, algs: algorithms.join(' ') }),
          )
          .join(', '),
        ...extra,
      },
    } satisfies AuthRefusal,
  });
  /**
   * 503 with `Retry-After`: the check could not be made (keys, introspection or replay store out
   * of reach); the cause goes to `onError` only, the client learns no URL of the issuer's.
   */
  const unavailable = (e: unknown, stage: 'token' | 'dpop-replay'): AuthVerdict => {
    try {
      options.onError?.(e instanceof Error ? e : new Error(String(e)), { stage });
    } catch {
      // (what the hook throws does not change the answer)
    }
    return {
      refusal: {
        status: 503,
        code: ErrorCode.ServerError,
        message: 'Service Unavailable: the access token cannot be checked now (temporarily_unavailable)',
        headers: { 'Retry-After': '5' },
      },
    };
  };
  const badRequest = (why: string, scheme: Scheme | undefined): AuthVerdict =>
    refuse(400, `Bad Request: ${why}`, { error: 'invalid_request', error_description: why }, scheme);
  const invalid = (why: string, scheme: Scheme | undefined): AuthVerdict =>
    refuse(
      401,
      `Unauthorized: ${why}`,
      { error: 'invalid_token', error_description: why, scope: challengeScope },
      scheme,
    );

  async function verify(token: string): Promise<AuthInfo | string> {
    if (options.introspect) {
      const got = await options.introspect(token);
      if (!got) return 'token is not active';
      const aud = got.claims.aud;
      if (aud !== undefined && !(Array.isArray(aud) ? aud : [aud]).includes(options.resource))
        return 'token was not issued for this resource';
      // the JWT rule (jose's, with the same tolerance): exp <= now - tolerance is past,
      // nbf > now + tolerance is ahead; exp from expiresAt, else the answer's claim
      const now = Math.floor(Date.now() / 1000);
      const exp = got.expiresAt ?? got.claims.exp;
      if (typeof exp === 'number' && exp <= now - clockTolerance) return 'token expired';
      if (typeof got.claims.nbf === 'number' && got.claims.nbf > now + clockTolerance) return 'token not yet valid';
      return { ...got, token, resource: options.resource };
    }
    // a token that is not a JWS compact JWT of an accepted algorithm is refused on its own
    // (RFC 6750 section 3.1 invalid_token): the issuer's keys are not fetched for it
    const shape = jwtShapeProblem(token, algorithms);
    if (shape) return shape;
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, await keys!(), {
        issuer: options.issuer,
        audience: options.resource,
        algorithms,
        requiredClaims: ['exp'],
        clockTolerance,
        typ: options.typ,
      }));
    } catch (e) {
      return reason(e);
    }
    return {
      token,
      subject: payload.sub,
      clientId:
        typeof payload.client_id === 'string'
          ? payload.client_id
          : typeof payload.azp === 'string'
            ? payload.azp
            : undefined,
      scopes: scopesOf(payload.scope ?? payload.scp),
      expiresAt: payload.exp,
      resource: options.resource,
      claims: payload,
    };
  }

  /** A 401 for a proof; with `nonce`, RFC 9449 §8's `use_dpop_nonce` and the nonce to use. */
  const dpopRefusal = (why: string, nonce?: string): AuthVerdict =>
    refuse(
      401,
      `Unauthorized: ${why}`,
      {
        error: nonce === undefined ? 'invalid_dpop_proof' : 'use_dpop_nonce',
        error_description: why,
        scope: challengeScope,
      },
      'dpop',
      nonce === undefined ? {} : { 'DPoP-Nonce': nonce },
    );

  return async (request: AuthRequest): Promise<AuthVerdict> => {
    const header = request.headers.authorization;
    // the scheme named, when it is one accepted here: its challenge answers a refusal
    const named = /^(Bearer|DPoP)(\s|$)/i.exec(header ?? '')?.[1].toLowerCase() as Scheme | undefined;
    const used = named && accepted.includes(named) ? named : undefined;
    // RFC 6750 §3.1 invalid_request: more than one method (or header) for the token; MCP
    // (basic/authorization, "Access Token Usage") never takes one from the URI query string
    if (queryToken(request.url))
      return badRequest(
        header === undefined
          ? 'an access token in the URI query string is not accepted (send it in the Authorization header)'
          : 'an access token in both the URI query string and the Authorization header',
        used,
      );
    if (header?.includes(','))
      return badRequest('more than one Authorization header (or credentials) in the request', used);
    if (header === undefined || header.trim() === '')
      return refuse(401, 'Unauthorized: an access token is required', { scope: challengeScope }, undefined);
    const m = /^(Bearer|DPoP)[ ]+([A-Za-z0-9\-._~+/]+=*)[ ]*$/i.exec(header);
    if (!m) {
      if (!named)
        return refuse(
          401,
          `Unauthorized: an access token is required (${accepted.map((s) => (s === 'dpop' ? 'DPoP' : 'Bearer')).join(' or ')} scheme)`,
          { scope: challengeScope },
          undefined,
        );
      return invalid('malformed token', used);
    }
    const scheme = m[1].toLowerCase();
    if (scheme === 'dpop' && !dpop)
      return refuse(
        401,
        'Unauthorized: DPoP is not accepted here (Bearer scheme)',
        { scope: challengeScope },
        undefined,
      );
    if (scheme === 'bearer' && options.dpop?.required) return invalid('a DPoP-bound token is required', undefined);
    let got: AuthInfo | string;
    try {
      got = await verify(m[2]);
    } catch (e) {
      // the keys or the introspection endpoint are out of reach: not the client's fault
      return unavailable(e, 'token');
    }
    if (typeof got === 'string') return invalid(got, used);
    const jkt = (got.claims.cnf as { jkt?: unknown } | undefined)?.jkt;
    if (scheme === 'bearer' && jkt !== undefined) return invalid('DPoP-bound token presented as a bearer token', used);
    if (scheme === 'dpop') {
      // RFC 9449 §7.1: the DPoP scheme carries a token bound to a key; one with no cnf.jkt is the
      // token's fault (invalid_token), told before its proof is checked (and its jti kept)
      if (typeof jkt !== 'string')
        return invalid('token is not DPoP-bound (no cnf.jkt); send it as a Bearer token', used);
      let proof: Awaited<ReturnType<DPoPVerifier['verify']>>;
      try {
        proof = await dpop!.verify(request.headers.dpop, request.method.toUpperCase(), options.resource, got.token);
      } catch (e) {
        // the replay store is out of reach (or full): a replay cannot be told, nothing is accepted
        return unavailable(e, 'dpop-replay');
      }
      if ('error' in proof) return dpopRefusal(proof.error, proof.nonce);
      if (jkt !== proof.jkt) return dpopRefusal('token is bound to another key');
    }
    const missing = required.filter((s) => !got.scopes.includes(s));
    if (missing.length) {
      const scope = [...new Set([...got.scopes, ...required])].join(' ');
      return refuse(
        403,
        `Forbidden: insufficient scope (needs ${missing.join(' ')})`,
        {
          error: 'insufficient_scope',
          scope,
          error_description: `requires scope ${missing.join(' ')}`,
        },
        used,
      );
    }
    return { auth: got };
  };
}

/** An authorization scheme of MCP requests (lower-case): RFC 6750 bearer tokens, RFC 9449 DPoP-bound ones. */
type Scheme = 'bearer' | 'dpop';

/** Whether a request target's query carries an access token (`access_token`, RFC 6750 §2.3). */
function queryToken(url: string | undefined): boolean {
  const q = url?.indexOf('?') ?? -1;
  if (q < 0) return false;
  const hash = url!.indexOf('#', q);
  return new URLSearchParams(url!.slice(q + 1, hash < 0 ? undefined : hash)).has('access_token');
}

/**
 * Why `token` cannot be a JWT this check accepts, before any key is looked at: not three
 * base64url parts, a header or payload that is not a JSON object, no `alg`, or an `alg` off
 * the allow-list. Undefined when it is well formed.
 */
function jwtShapeProblem(token: string, algorithms: readonly string[]): string | undefined {
  let alg: unknown;
  try {
    alg = decodeProtectedHeader(token).alg;
    decodeJwt(token);
  } catch {
    return 'malformed token';
  }
  if (typeof alg !== 'string') return 'malformed token';
  if (!algorithms.includes(alg)) return 'token signing algorithm not allowed';
  return undefined;
}

/** Why jose refused a token, as the `error_description` says it; infrastructure failures rethrown. */
function reason(e: unknown): string {
  if (e instanceof joseErrors.JWTExpired) return 'token expired';
  if (e instanceof joseErrors.JWTClaimValidationFailed) {
    if (e.claim === 'aud') return 'token was not issued for this resource';
    if (e.claim === 'iss') return 'token was issued by another issuer';
    if (e.claim === 'nbf') return 'token not yet valid';
    return `token claim ${e.claim} invalid`;
  }
  if (e instanceof joseErrors.JWSSignatureVerificationFailed) return 'token signature invalid';
  if (e instanceof joseErrors.JWKSNoMatchingKey || e instanceof joseErrors.JWKSMultipleMatchingKeys)
    return 'no signing key matches the token';
  if (
    e instanceof joseErrors.JWTInvalid ||
    e instanceof joseErrors.JWSInvalid ||
    e instanceof joseErrors.JOSENotSupported
  )
    return 'malformed token';
  if (e instanceof joseErrors.JWKSTimeout || e instanceof joseErrors.JWKSInvalid) throw e;
  if (e instanceof joseErrors.JOSEError) return 'token invalid';
  throw e;
}

/** The RFC 9728 document of a protected MCP server. */
export interface ProtectedResourceMetadata {
  resource: string;
  authorization_servers: string[];
  scopes_supported?: string[];
  bearer_methods_supported?: string[];
  resource_name?: string;
  resource_documentation?: string;
  [extra: string]: unknown;
}

/**
 * Builds the protected resource metadata (RFC 9728 section 2): the resource, its authorization
 * servers (at least one, as MCP requires), `bearer_methods_supported: ["header"]`.
 * @throws TypeError without an authorization server or with a bad resource.
 */
export function protectedResourceMetadata(options: {
  resource: string;
  authorizationServers: readonly string[];
  scopesSupported?: readonly string[];
  resourceName?: string;
  extra?: Record<string, unknown>;
}): ProtectedResourceMetadata {
  canonical(options.resource);
  if (options.authorizationServers.length === 0)
    throw new TypeError('protectedResourceMetadata: at least one authorization server is required');
  return {
    ...options.extra,
    resource: options.resource,
    authorization_servers: [...options.authorizationServers],
    ...(options.scopesSupported ? { scopes_supported: [...options.scopesSupported] } : {}),
    bearer_methods_supported: ['header'],
    ...(options.resourceName ? { resource_name: options.resourceName } : {}),
  };
}

/** Serves one protected resource metadata document at its well-known path. */
export interface ResourceMetadataEndpoint {
  /** The path it answers (`/.well-known/oauth-protected-resource/mcp`). */
  readonly path: string;
  /** Whether a request path (query ignored) is this endpoint's. */
  handles(url: string | undefined): boolean;
  /** `node:http` form: GET/HEAD → 200 JSON, OPTIONS → 204 (CORS), else 405. */
  node(req: IncomingMessage, res: ServerResponse): void;
  /** WHATWG form. */
  fetch(request: Request): Response;
}

/** The endpoint of {@link protectedResourceMetadata}'s document, readable cross-origin (browser clients discover it). */
export function resourceMetadataEndpoint(metadata: ProtectedResourceMetadata): ResourceMetadataEndpoint {
  const path = new URL(resourceMetadataUrl(metadata.resource)).pathname;
  const body = JSON.stringify(metadata);
  const cors = {
    'Access-Control-Allow-Origin': '*',
    'Access-Control-Allow-Methods': 'GET, OPTIONS',
    'Access-Control-Allow-Headers': 'MCP-Protocol-Version',
  };
  const answer = (method: string): { status: number; headers: Record<string, string>; body?: string } => {
    const m = method.toUpperCase();
    if (m === 'GET' || m === 'HEAD')
      return {
        status: 200,
        headers: { ...cors, 'Content-Type': 'application/json', 'Cache-Control': 'max-age=300' },
        body: m === 'GET' ? body : undefined,
      };
    if (m === 'OPTIONS') return { status: 204, headers: cors };
    return { status: 405, headers: { Allow: 'GET, HEAD, OPTIONS' } };
  };
  return {
    path,
    handles: (url) => (url ?? '/').split('?')[0] === path,
    node(req, res) {
      const a = answer(req.method ?? 'GET');
      res.writeHead(a.status, a.headers).end(a.body);
    },
    fetch(request) {
      const a = answer(request.method);
      return new Response(a.body ?? null, { status: a.status, headers: a.headers });
    },
  };
}
