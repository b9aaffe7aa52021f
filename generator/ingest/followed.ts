/**
 * The endings of the ingest warnings that report where the model follows schema.ts over
 * schema.json. A module of its own, free of the TypeScript compiler, so that the CLI commands that
 * never read schema.ts (call, serve) can sort warnings without loading it.
 */
/**
 * How a warning of `reconcile` (./defs.ts) ends when schema.json lost something schema.ts says and the
 * model follows schema.ts: a fact about the upstream inputs (the published schemas of 2025-06-18
 * and later have such places), not a fault of the user's; `mcpgen generate` sums these up in one
 * line and model.json lists them.
 */
export const FOLLOWED = '; following schema.ts';
export const RESTORED = '; restored as schema.ts writes them';
export const KEPT = '; kept as documented values';

/** Whether `warning` reports a place where the model follows schema.ts over schema.json (see `reconcile` in ./defs.ts). */
export const followsSchemaTs = (warning: string): boolean =>
  warning.endsWith(FOLLOWED) || warning.endsWith(RESTORED) || warning.endsWith(KEPT);
