/**
 * DPoP proofs at the resource server (RFC 9449 sections 4.3 and 7.1): a request with
 * `Authorization: DPoP <token>` carries one `DPoP` header, a JWT of `typ: dpop+jwt` signed by
 * the key in its `jwk` header, whose `htm` / `htu` name this request, `iat` is recent, `jti` is
 * new, and `ath` is the hash of the access token; the token's `cnf.jkt` must be that key's
 * thumbprint. Proof ids are remembered for the acceptance window, at most `maxRemembered`.
 */
import { calculateJwkThumbprint, EmbeddedJWK, jwtVerify, base64url, type JWK } from 'jose';

/** DPoP options of the resource-server check. */
export interface DPoPOptions {
  /** Refuse bearer tokens: every request must be DPoP-bound. Default false (both accepted; a DPoP-bound token is never accepted as a bearer token). */
  required?: boolean;
  /** How far `iat` may be from now, seconds. Default 60. */
  windowSec?: number;
  /** Proof ids kept against replay (oldest dropped). Default 100 000. */
  maxRemembered?: number;
}

/** Checks proofs for one endpoint; remembers the `jti`s it accepted. */
export class DPoPVerifier {
  readonly #seen = new Map<string, number>();
  readonly #window: number;
  readonly #max: number;
  constructor(
    private readonly algorithms: readonly string[],
    options: DPoPOptions = {},
  ) {
    this.#window = options.windowSec ?? 60;
    this.#max = options.maxRemembered ?? 100_000;
  }

  /**
   * Verifies `proof` for `method` `url` and `token`; returns the thumbprint of its key, or why
   * it is refused.
   */
  async verify(
    proof: string | undefined,
    method: string,
    url: string,
    token: string,
  ): Promise<{ jkt: string } | { error: string }> {
    if (!proof) return { error: 'DPoP proof missing' };
    if (proof.includes(',')) return { error: 'more than one DPoP proof' };
    let payload: Record<string, unknown>;
    let jwk: JWK;
    try {
      const r = await jwtVerify(proof, EmbeddedJWK, { typ: 'dpop+jwt', algorithms: [...this.algorithms] });
      payload = r.payload;
      jwk = r.protectedHeader.jwk as JWK;
    } catch {
      return { error: 'DPoP proof invalid' };
    }
    if (payload.htm !== method) return { error: 'DPoP proof is for another method' };
    if (typeof payload.htu !== 'string' || strip(payload.htu) !== strip(url))
      return { error: 'DPoP proof is for another URL' };
    const now = Math.floor(Date.now() / 1000);
    if (typeof payload.iat !== 'number' || Math.abs(now - payload.iat) > this.#window)
      return { error: 'DPoP proof is not recent' };
    const ath = base64url.encode(
      new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(token))),
    );
    if (payload.ath !== ath) return { error: 'DPoP proof is for another access token' };
    if (typeof payload.jti !== 'string' || !payload.jti) return { error: 'DPoP proof has no jti' };
    this.#expire(now);
    if (this.#seen.has(payload.jti)) return { error: 'DPoP proof replayed' };
    if (this.#seen.size >= this.#max) this.#seen.delete(this.#seen.keys().next().value!);
    this.#seen.set(payload.jti, now + this.#window);
    return { jkt: await calculateJwkThumbprint(jwk) };
  }

  #expire(now: number): void {
    for (const [jti, until] of this.#seen) {
      if (until >= now) break; // inserted in time order
      this.#seen.delete(jti);
    }
  }
}

/** A URL without query and fragment (RFC 9449 section 4.3, `htu`). */
function strip(u: string): string {
  try {
    const url = new URL(u);
    url.search = '';
    url.hash = '';
    return url.href;
  } catch {
    return u;
  }
}
