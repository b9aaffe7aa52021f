/**
 * DPoP proofs at the resource server (RFC 9449 sections 4.3, 7.1, 8, 9 and 11.1): a request with
 * `Authorization: DPoP <token>` carries one `DPoP` header, a JWT of `typ: dpop+jwt` signed by
 * the key in its `jwk` header, whose `htm` / `htu` name this request, `iat` is recent, `jti` is
 * new, and `ath` is the hash of the access token; the token's `cnf.jkt` must be that key's
 * thumbprint.
 *
 * - Replay (§11.1): each accepted proof's `jti` is claimed in a {@link ReplayStore} until the
 *   proof could no longer be accepted (`iat` + the window); a proof whose `jti` was claimed is
 *   refused. The default store is this verifier's own memory: give every process behind one
 *   endpoint the same shared store (Redis: `RedisStores.replay`), else a proof captured at one
 *   process is accepted at another. A store that cannot be reached refuses nothing and accepts
 *   nothing: the check answers 503.
 * - Server nonces (§8, optional, {@link DPoPOptions.nonce}): proofs must carry a `nonce` the
 *   server issued; one without it, or with one that is not current, is refused with
 *   `error="use_dpop_nonce"` and a fresh nonce in the `DPoP-Nonce` header, which the client
 *   puts in its next proof. Nonces are stateless: an HMAC of the time slot under a secret, so
 *   every process given the same secret accepts the others' nonces; one is current during its
 *   slot and the next.
 * No `node:` import: WebCrypto and jose only.
 */
import { base64url, calculateJwkThumbprint, EmbeddedJWK, type JWK, jwtVerify } from 'jose';
import { MemoryReplayStore, type ReplayStore } from './replay.js';

/** DPoP options of the resource-server check. */
export interface DPoPOptions {
  /** Refuse bearer tokens: every request must be DPoP-bound. Default false (both accepted; a DPoP-bound token is never accepted as a bearer token). */
  required?: boolean;
  /** How far `iat` may be from now, seconds. Default 60. */
  windowSec?: number;
  /**
   * Where accepted proof ids (`jti`, hashed to a fixed length) are claimed against replay; share
   * one store among the processes of a deployment. Default: a {@link MemoryReplayStore} of this
   * check alone, holding at most `maxRemembered` ids.
   */
  replay?: ReplayStore;
  /** Proof ids the default memory store holds at once (more are refused with 503, not forgotten). Default 100 000. */
  maxRemembered?: number;
  /**
   * Require server-issued nonces (RFC 9449 §8). `secret`: the HMAC key (at least 32 bytes; the
   * processes of one deployment share it; default random, this check alone); `lifetimeSec`: the
   * length of a nonce's time slot (a nonce is current for one to two slots). Default 300.
   */
  nonce?: true | { secret?: string | Uint8Array; lifetimeSec?: number };
}

/** Why a proof was refused, and the nonce to send with the refusal when it lacked a current one. */
export type DPoPRefusal = { error: string; nonce?: string };

const encoder = new TextEncoder();

/** The base64url SHA-256 of `text` (UTF-8). */
const sha256 = async (text: string): Promise<string> =>
  base64url.encode(new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(text))));

/** Checks proofs for one endpoint (see the module docs). */
export class DPoPVerifier {
  readonly #replay: ReplayStore;
  readonly #window: number;
  readonly #nonces: NonceIssuer | undefined;

  constructor(
    private readonly algorithms: readonly string[],
    options: DPoPOptions = {},
  ) {
    this.#window = options.windowSec ?? 60;
    this.#replay = options.replay ?? new MemoryReplayStore({ maxEntries: options.maxRemembered });
    this.#nonces = options.nonce ? new NonceIssuer(options.nonce === true ? {} : options.nonce) : undefined;
  }

  /** A current server nonce (RFC 9449 §8), for a `DPoP-Nonce` header; undefined when nonces are off. */
  async nonce(): Promise<string | undefined> {
    return this.#nonces?.current();
  }

  /**
   * Verifies `proof` for `method` `url` and `token`; returns the thumbprint of its key, or why
   * it is refused (with a fresh nonce when it had no current one).
   * @throws when the replay store cannot be reached (the caller answers 503).
   */
  async verify(
    proof: string | undefined,
    method: string,
    url: string,
    token: string,
  ): Promise<{ jkt: string } | DPoPRefusal> {
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
    if (payload.ath !== (await sha256(token))) return { error: 'DPoP proof is for another access token' };
    if (typeof payload.jti !== 'string' || !payload.jti) return { error: 'DPoP proof has no jti' };
    if (this.#nonces && !(typeof payload.nonce === 'string' && (await this.#nonces.accepts(payload.nonce))))
      return {
        error: payload.nonce === undefined ? 'DPoP proof has no nonce' : 'DPoP nonce is not current',
        nonce: await this.#nonces.current(),
      };
    // claimed until the proof could no longer pass the `iat` check (and a second more)
    if (!(await this.#replay.claim(`dpop:${await sha256(payload.jti)}`, (payload.iat + this.#window + 1) * 1000)))
      return { error: 'DPoP proof replayed' };
    return { jkt: await calculateJwkThumbprint(jwk) };
  }
}

/** Stateless nonces: `<slot>.<HMAC-SHA256(secret, slot)>` (base64url), current during its slot and the next. */
class NonceIssuer {
  readonly #key: Promise<CryptoKey>;
  readonly #lifetime: number;
  readonly #cache = new Map<number, string>();

  constructor(options: { secret?: string | Uint8Array; lifetimeSec?: number }) {
    this.#lifetime = Math.max(1, options.lifetimeSec ?? 300);
    const secret =
      options.secret === undefined
        ? crypto.getRandomValues(new Uint8Array(32))
        : typeof options.secret === 'string'
          ? encoder.encode(options.secret)
          : options.secret;
    if (secret.byteLength < 32) throw new TypeError('DPoP nonce secret: at least 32 bytes');
    this.#key = crypto.subtle.importKey(
      'raw',
      secret as Uint8Array<ArrayBuffer>,
      { name: 'HMAC', hash: 'SHA-256' },
      false,
      ['sign'],
    );
  }

  #slot(): number {
    return Math.floor(Date.now() / 1000 / this.#lifetime);
  }

  async #of(slot: number): Promise<string> {
    let nonce = this.#cache.get(slot);
    if (nonce === undefined) {
      const mac = await crypto.subtle.sign('HMAC', await this.#key, encoder.encode(String(slot)));
      nonce = `${slot}.${base64url.encode(new Uint8Array(mac))}`;
      if (this.#cache.size > 4) this.#cache.clear();
      this.#cache.set(slot, nonce);
    }
    return nonce;
  }

  current(): Promise<string> {
    return this.#of(this.#slot());
  }

  async accepts(nonce: string): Promise<boolean> {
    const slot = this.#slot();
    return nonce === (await this.#of(slot)) || nonce === (await this.#of(slot - 1));
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
