/** The event store of resumable streams lives in ../../../stores/events.ts (shared with the Redis stores). */
export {
  MemoryEventStore,
  type EventStore,
  type MemoryEventStoreOptions,
  type SharedEventStore,
  type FollowEnd,
} from '../../../stores/events.js';
