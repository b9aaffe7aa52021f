/**
 * The one-time values of a deployment (../../auth/replay.ts `ReplayStore`: the `jti` of accepted
 * DPoP proofs, RFC 9449 §11.1) on Redis, shared by every process: one key per value,
 * `<prefix>j:<key>`, set only when absent (`SET … NX`) and expiring when the value could no
 * longer be accepted, so Redis holds what the acceptance window holds and no more.
 */
import type { Redis } from 'ioredis';
import type { ReplayStore } from '../../auth/replay.js';

/** A {@link ReplayStore} on Redis (`RedisStores.replay` of ./redis.ts). */
export class RedisReplayStore implements ReplayStore {
  constructor(
    private readonly client: Redis,
    private readonly prefix = 'mcp:',
  ) {}

  /** @throws the command's error when Redis cannot be reached or does not answer in time. */
  async claim(key: string, expiresAt: number): Promise<boolean> {
    const ttl = Math.max(1, Math.ceil(expiresAt - Date.now()));
    return (await this.client.set(`${this.prefix}j:${key}`, '1', 'PX', ttl, 'NX')) === 'OK';
  }
}
