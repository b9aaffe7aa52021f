/**
 * The issuer's signing keys for `bearerAuth` (./resource.ts): given (a key set or getter), or
 * fetched from a JWKS URL, by default the `jwks_uri` of the issuer's metadata (RFC 8414 /
 * OpenID discovery). Every fetch is bounded ({@link KEY_FETCH_MS}: the metadata, all of its
 * discovery URLs together; the JWKS) and its answer read whole within the bound; a failure is
 * an error naming the request (`GET <url> failed: …`, {@link AuthFetchError}), a timeout also
 * the bound, and a JWKS answer other than 200 JSON is one too: the token check cannot be made
 * (503, the error to `onError`), it is never a reason to refuse the token.
 */
import { createLocalJWKSet, createRemoteJWKSet, customFetch, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';
import { AuthFetchError, discoverAuthorizationServer, isLoopbackUrl, namingFetch } from './discovery.js';

/** How long the issuer's metadata (all of its discovery URLs together) or its JWKS may take, ms. */
export const KEY_FETCH_MS = 5000;

/** Where the keys are (`BearerAuthOptions.jwks`). */
export type KeySource = string | URL | JSONWebKeySet | JWTVerifyGetKey | undefined;

/**
 * A fetch of the issuer's `what` under the caller's timeout signal: the answer read whole (a
 * stall in its body times out here too); a timeout is an {@link AuthFetchError} naming the URL
 * and the bound; with `keys`, an answer other than 200 with a JSON body is one as well.
 */
function issuerFetch(what: string, keys: boolean): typeof globalThis.fetch {
  const f = namingFetch(globalThis.fetch);
  return async (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const method = (init?.method ?? 'GET').toUpperCase();
    try {
      const res = await f(input, init);
      if (res.status !== 200) {
        // (discovery tries its next URL after an answer other than 200)
        if (!keys) return res;
        await res.body?.cancel();
        throw new AuthFetchError(method, url, new Error(`answered ${res.status}, not 200 with the issuer's keys`));
      }
      const body = await res.text();
      if (keys) JSON.parse(body);
      return new Response(body, { status: 200, statusText: res.statusText, headers: res.headers });
    } catch (e) {
      if (e instanceof AuthFetchError) throw e;
      const name = (e as Error | undefined)?.name;
      if (name === 'TimeoutError' || (name === 'AbortError' && init?.signal?.aborted))
        throw new AuthFetchError(
          method,
          url,
          new Error(`timed out: the bound on ${what} is ${KEY_FETCH_MS / 1000} s`, { cause: e }),
        );
      throw new AuthFetchError(method, url, e instanceof SyntaxError ? new Error('the answer is not JSON') : e);
    }
  };
}

/** The key getter of the options: given, or the issuer's `jwks_uri` discovered once (retried after a failure). */
export function keyGetter(jwks: KeySource, issuer: string, allowHttp: boolean): () => Promise<JWTVerifyGetKey> {
  const remote = (url: URL) => {
    if (url.protocol !== 'https:' && !(allowHttp && url.protocol === 'http:' && isLoopbackUrl(url)))
      throw new TypeError(`bearerAuth: JWKS URL ${url.href} must be https`);
    return createRemoteJWKSet(url, {
      timeoutDuration: KEY_FETCH_MS,
      cooldownDuration: 30_000,
      [customFetch]: issuerFetch("the issuer's keys (JWKS)", true) as never,
    });
  };
  if (jwks !== undefined) {
    const got: JWTVerifyGetKey =
      typeof jwks === 'function'
        ? jwks
        : typeof jwks === 'object' && !(jwks instanceof URL)
          ? createLocalJWKSet(jwks)
          : remote(new URL(String(jwks)));
    return async () => got;
  }
  let pending: Promise<JWTVerifyGetKey> | undefined;
  return () => {
    // bounded as the key fetch is: an issuer that accepts the connection and never answers
    // fails the check (503) rather than holding every request
    pending ??= discoverAuthorizationServer(issuer, {
      allowLoopbackHttp: allowHttp,
      signal: AbortSignal.timeout(KEY_FETCH_MS),
      fetch: issuerFetch("the issuer's metadata (all its discovery URLs together)", false),
    }).then((as) => {
      if (!as.jwks_uri) throw new Error(`issuer ${issuer} publishes no jwks_uri`);
      return remote(new URL(as.jwks_uri));
    });
    pending.catch(() => (pending = undefined));
    return pending;
  };
}
