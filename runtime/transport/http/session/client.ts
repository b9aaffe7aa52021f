/**
 * The Streamable HTTP client transport of Node (./node-client.ts), under its historical path.
 * Browsers and workers use ./fetch-client.ts.
 */
export * from './node-client.js';
