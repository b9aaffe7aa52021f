/**
 * How bench:compare (bench/compare.ts) reads two medians of one figure: which way is better, and
 * whether a tree's move leaves the band its control (the same tree run again) moved in.
 */

/** Units whose larger value is better: rates. Every other unit (µs, ms, bytes, events) is a cost. */
const RATES = new Set(['calls/s', 'req/s']);

/**
 * Whether a larger value of the figure is better. Comparisons (unit `x`) are "ours over theirs"
 * where larger is better (`ours_vs_sdk.throughput`, `ours_vs_bare_limit.throughput`,
 * `ours_vs_sdk.cpu_per_call` as theirs/ours), except the cost ratios named `cpu_cost` (ours over
 * the bare side's CPU per call: bench/http.ts), where smaller is better.
 */
export function higherIsBetter(name: string, unit: string): boolean {
  if (unit === 'x') return !/(^|\.)cpu_cost$/.test(name);
  return RATES.has(unit);
}

/**
 * `head` against `other` as one ratio, above 1 when head is better (`compare.`/`noise.` lines), or
 * undefined when it cannot be formed (no unit, a load figure, a zero median).
 */
export function betterRatio(name: string, unit: string, head: number, other: number): number | undefined {
  if (!unit || /loadavg/.test(name) || head === 0 || other === 0) return undefined;
  return higherIsBetter(name, unit) ? head / other : other / head;
}

/**
 * Whether a tree's change is worse than noise: head worse than the base (`compare` below 1) by
 * more than head moved against itself (`noise`, either way).
 */
export function worseThanNoise(compare: number, noise: number): boolean {
  return compare < 1 && 1 - compare > Math.abs(1 - noise);
}
