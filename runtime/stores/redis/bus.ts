/**
 * The Redis {@link NotificationBus} of ./redis.ts.
 */
import type { Redis } from 'ioredis';
import { exactIdsIn, serializeExact } from '../../jsonrpc/message.js';
import type { BusMessage, NotificationBus } from '../bus.js';
import type { RedisProcess } from './options.js';

/**
 * The notification bus on Redis: one channel, `bus`, that every process of the deployment
 * listens on. A message is JSON; the integer ids beyond ±(2^53 − 1) of the JSON-RPC message
 * it carries (the payload, or the payload's `message`) cross it exact: the `id`, and the
 * `requestId` of a `notifications/cancelled` or a `progressToken`, as the receiving endpoint
 * parsed them (see `exactIds`).
 */
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
    await this.client.publish(`${this.prefix}bus`, serializeExact({ ...message, from: this.processId }));
  }

  subscribe(listener: (message: BusMessage) => void): () => void {
    return this.owner.listen(`${this.prefix}bus`, (text) => {
      let m: BusMessage;
      try {
        m = JSON.parse(text) as BusMessage;
      } catch {
        return;
      }
      if (typeof m?.topic !== 'string' || typeof m.sessionId !== 'string' || typeof m.from !== 'string') return;
      const payload = m.payload;
      if (typeof payload === 'object' && payload !== null) {
        exactIdsIn(payload, text, PAYLOAD);
        const inner = (payload as { message?: unknown }).message;
        if (typeof inner === 'object' && inner !== null) exactIdsIn(inner, text, PAYLOAD_MESSAGE);
      }
      listener(m);
    });
  }
}

const PAYLOAD = ['payload'];
const PAYLOAD_MESSAGE = ['payload', 'message'];
