/**
 * The Redis {@link NotificationBus} of ./redis.ts.
 */
import type { Redis } from 'ioredis';
import type { BusMessage, NotificationBus } from '../bus.js';
import type { RedisProcess } from './options.js';

/** The notification bus on Redis: one channel, `bus`, that every process of the deployment listens on. */
export class RedisBus implements NotificationBus {
  readonly processId: string;

  constructor(
    private readonly owner: RedisProcess,
    private readonly client: Redis,
    private readonly prefix: string,
  ) {
    this.processId = owner.processId;
  }

  async publish(message: Omit<BusMessage, 'from'>): Promise<void> {
    await this.client.publish(`${this.prefix}bus`, JSON.stringify({ ...message, from: this.processId }));
  }

  subscribe(listener: (message: BusMessage) => void): () => void {
    return this.owner.listen(`${this.prefix}bus`, (text) => {
      let m: BusMessage;
      try {
        m = JSON.parse(text) as BusMessage;
      } catch {
        return;
      }
      if (typeof m?.topic === 'string' && typeof m.sessionId === 'string' && typeof m.from === 'string') listener(m);
    });
  }
}
