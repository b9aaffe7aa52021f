/** "Did you mean" hints: the known word nearest to a misspelt one (commands, flags, revisions). */

/**
 * The known word nearest to a misspelt `word`, for a "did you mean" hint: the one that starts
 * with it, else the one at the smallest edit distance (insertions, deletions, substitutions and
 * swaps of neighbours) when that distance is at most a third of the word (at least 1); ties go
 * to the earlier in `known`. Undefined when none is that near.
 */
export function nearest(word: string, known: readonly string[]): string | undefined {
  if (!word) return undefined;
  const prefixed = known.filter((k) => k.startsWith(word) && k !== word);
  if (prefixed.length === 1) return prefixed[0];
  const limit = Math.max(1, Math.floor(word.replace(/^-+/, '').length / 3));
  let best: string | undefined;
  let bestDistance = limit + 1;
  for (const k of known) {
    const d = editDistance(word, k);
    if (d < bestDistance) {
      best = k;
      bestDistance = d;
    }
  }
  return best;
}

/**
 * `; did you mean <nearest>?` for a misspelt `word` (see {@link nearest}), else the empty string.
 * A word of a date's shape (YYYY-MM-DD, as revision ids are) that is no date of the calendar
 * (2025-13-01, 2025-02-30) gets `; <word> is not a date` instead of a guess, unless one edit
 * (2025-11-52: two digits swapped) makes it a known one.
 */
export function didYouMean(word: string, known: readonly string[]): string {
  const near = nearest(word, known);
  if (/^\d{4}-\d{2}-\d{2}$/.test(word) && !isDate(word) && !(near && editDistance(word, near) <= 1))
    return `; ${word} is not a date`;
  return near ? `; did you mean ${near}?` : '';
}

/** Optimal string alignment distance: edits of one character, a swap of two neighbours counting one. */
function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

/** Whether `ymd` (YYYY-MM-DD) names a day of the calendar. */
function isDate(ymd: string): boolean {
  const t = Date.parse(`${ymd}T00:00:00Z`);
  return !Number.isNaN(t) && new Date(t).toISOString().slice(0, 10) === ymd;
}

/**
 * What is wrong with `value` given where one revision id is taken (`--rev` of init, serve, call,
 * tools) when it is a comma-separated list (`2025-11-25,drfat`, as generate takes): `one
 * revision, not the list "2025-11-25,drfat"`, then each item no id of `known` names, with its hint
 * (`; unknown revision "drfat"; did you mean draft?`). Undefined for a value without a comma.
 */
export function revisionListProblem(value: string, known: readonly string[]): string | undefined {
  if (!value.includes(',')) return undefined;
  const unknown = value
    .split(',')
    .map((r) => r.trim())
    .filter((r) => !known.includes(r));
  return `one revision, not the list "${value}"${unknown.map((r) => `; unknown revision "${r}"${r ? didYouMean(r, known) : ''}`).join('')}`;
}
