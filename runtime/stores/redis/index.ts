/** `@mcpgen/runtime/stores/redis`: the stores of ../index.ts on Redis (ioredis, an optional peer dependency of the runtime package), and the Redis task store. */
export * from './redis.js';
export * from './tasks.js';
