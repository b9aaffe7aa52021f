/**
 * `@mcpgen/runtime/stores/redis`: the stores of ../index.ts on Redis (ioredis, an optional peer dependency of the runtime package), and the Redis task store.
 *
 * @module
 */
export * from './redis.js';
export * from './tasks.js';
export * from './replay.js';
