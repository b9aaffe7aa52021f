/** Small deterministic helpers shared by the generator. */
import { createHash } from 'node:crypto';

/** Code-unit string order (never locale order): stable across machines. */
export const byCodeUnit = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** A copy of `v` with every object's keys in code-unit order. */
export function sortKeysDeep(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeysDeep);
  if (v && typeof v === 'object') {
    const o: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort(byCodeUnit)) o[k] = sortKeysDeep((v as Record<string, unknown>)[k]);
    return o;
  }
  return v;
}

export const sha256 = (data: string | Uint8Array): string => createHash('sha256').update(data).digest('hex');

/** Stable, pretty JSON with a trailing newline. */
export const stableJson = (v: unknown): string => `${JSON.stringify(sortKeysDeep(v), null, 2)}\n`;
