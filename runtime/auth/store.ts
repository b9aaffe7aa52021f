/**
 * What the OAuth client (./client.ts) keeps: registrations per authorization server, tokens per
 * authorization server and resource; the {@link TokenStore} contract and its memory default.
 */

/** Tokens as kept by the client. `expiresAt`: ms since the epoch. */
export interface StoredTokens {
  access_token: string;
  token_type: string;
  refresh_token?: string;
  scope?: string;
  expiresAt?: number;
}

/** A registered client at one authorization server. */
export interface ClientRegistration {
  client_id: string;
  client_secret?: string;
  token_endpoint_auth_method?: string;
  [extra: string]: unknown;
}

/**
 * Where the client keeps what it obtained: registrations by authorization server issuer, tokens
 * by issuer and resource. Implementations must keep them confidential (draft "Refresh Tokens").
 */
export interface TokenStore {
  getClient(issuer: string): Promise<ClientRegistration | undefined> | ClientRegistration | undefined;
  setClient(issuer: string, client: ClientRegistration | undefined): Promise<void> | void;
  getTokens(issuer: string, resource: string): Promise<StoredTokens | undefined> | StoredTokens | undefined;
  setTokens(issuer: string, resource: string, tokens: StoredTokens | undefined): Promise<void> | void;
}

/** The default {@link TokenStore}: memory, at most `max` entries of each kind (oldest dropped). */
export class MemoryTokenStore implements TokenStore {
  readonly #clients = new Map<string, ClientRegistration>();
  readonly #tokens = new Map<string, StoredTokens>();
  constructor(private readonly max = 1000) {}
  #put<T>(map: Map<string, T>, key: string, value: T | undefined): void {
    map.delete(key);
    if (value === undefined) return;
    if (map.size >= this.max) map.delete(map.keys().next().value!);
    map.set(key, value);
  }
  getClient(issuer: string) {
    return this.#clients.get(issuer);
  }
  setClient(issuer: string, client: ClientRegistration | undefined) {
    this.#put(this.#clients, issuer, client);
  }
  getTokens(issuer: string, resource: string) {
    return this.#tokens.get(`${issuer}\n${resource}`);
  }
  setTokens(issuer: string, resource: string, tokens: StoredTokens | undefined) {
    this.#put(this.#tokens, `${issuer}\n${resource}`, tokens);
  }
}
