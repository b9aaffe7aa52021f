/**
 * What the authorization tests of issue 44 share: an issuer's signing key and JWKS (given to
 * `bearerAuth` as a key set, so no metadata server is needed), access tokens for a resource
 * (optionally bound to a DPoP key, RFC 9449 `cnf.jkt`), a DPoP key holder that signs fresh
 * proofs, and one request of each era with the headers its endpoint requires.
 */
import { base64url, calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';

const signing = await generateKeyPair('ES256');

/** The issuer identifier the tokens carry (`iss`); nothing is served there. */
export const issuer = 'https://issuer.test';

/** The issuer's key set (one ES256 key, `kid` k1). */
export const jwks = { keys: [{ ...(await exportJWK(signing.publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' }] };

const now = () => Math.floor(Date.now() / 1000);

/**
 * A day-long access token for `resource` naming `subject`, bound to the DPoP key `jkt` when given
 * (test files mint theirs when imported, and `npm test` imports every file before it runs the
 * first: a 5-minute token had expired by the time its suite ran).
 */
export function accessToken(resource: string, subject: string, jkt?: string): Promise<string> {
  return new SignJWT({
    iss: issuer,
    aud: resource,
    sub: subject,
    exp: now() + 86_400,
    client_id: 'c1',
    scope: 'mcp:use',
    ...(jkt ? { cnf: { jkt } } : {}),
  })
    .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
    .sign(signing.privateKey);
}

/** A DPoP key pair: its thumbprint, and proofs for a request (a fresh `jti` each). */
export async function dpopHolder(): Promise<{
  jkt: string;
  proof(method: string, url: string, token: string, nonce?: string): Promise<string>;
}> {
  const key = await generateKeyPair('ES256');
  const { kty, crv, x, y } = await exportJWK(key.publicKey);
  const jwk: JWK = { kty, crv, x, y };
  return {
    jkt: await calculateJwkThumbprint(jwk),
    proof: async (method, url, token, nonce) =>
      new SignJWT({
        htm: method,
        htu: url,
        iat: now(),
        jti: crypto.randomUUID(),
        ath: base64url.encode(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(token)))),
        ...(nonce === undefined ? {} : { nonce }),
      })
        .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk })
        .sign(key.privateKey),
  };
}

/** A 2026-07-28 `tools/list` request: its headers and body. */
export const modernList = {
  headers: {
    'Content-Type': 'application/json',
    Accept: 'application/json, text/event-stream',
    'MCP-Protocol-Version': '2026-07-28',
    'Mcp-Method': 'tools/list',
  } as Record<string, string>,
  body: JSON.stringify({
    jsonrpc: '2.0',
    id: 7,
    method: 'tools/list',
    params: {
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientInfo': { name: 'x', version: '1' },
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  }),
};

/** A 2025-11-25 `initialize` request: its headers and body. */
export const legacyInitialize = {
  headers: {
    'Content-Type': 'application/json',
    Accept: 'application/json, text/event-stream',
  } as Record<string, string>,
  body: JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
  }),
};
