/** The event store of resumable streams lives in ../../../stores/events.ts and events-memory.ts (shared with the Redis stores). */
export type { EventStore, SharedEventStore, FollowEnd } from '../../../stores/events.js';
export { ClaimLimitError } from '../../../stores/events.js';
export { MemoryEventStore, type MemoryEventStoreOptions } from '../../../stores/events-memory.js';
