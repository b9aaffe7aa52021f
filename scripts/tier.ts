/**
 * TIER.md: the TypeScript SDK's self-assessment against the MCP SDK tiering rules (SEP-1730,
 * docs/community/sdk-tiers), made from evidence this script runs, not typed by hand:
 *
 * - conformance: the official suites (test/conformance/run.ts) per requirement set — 0.1.16,
 *   0.2.0-alpha.12 at `--requirements 2025-11-25` and at `--requirements 2026-07-28` — server and
 *   client separately, auth scenarios counted, with the commands that reproduce each run;
 * - documentation: the audit's feature list (./tier/features.ts) → guide page → example, each
 *   row checked ({@link featureProblems}); the examples themselves are type-checked and run by
 *   `npm test` (test/docs/guide.test.ts), and by this script before it writes;
 * - the policies the tiering rules ask for, by file.
 *
 *   npm run tier              runs the conformance suites and the feature examples, rewrites TIER.md
 *   npm run tier -- --check   the same, but exits 1 when TIER.md differs from what it would write
 *
 * test/tier/tier.test.ts renders TIER.md again from the conformance runs of the same `npm test`
 * (conformance.test.ts records them) and fails when it is out of date. The output holds no
 * timing, date or machine path: the same evidence gives the same bytes.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { exampleSource, guideSlugs, headingAnchors } from '../test/docs/guide-check.js';
import { FEATURES, type Feature } from './tier/features.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
export const TIER_FILE = join(ROOT, 'TIER.md');
const GUIDE = join(ROOT, 'docs', 'guide');
const EXAMPLES = join(ROOT, 'examples', 'guide');

/** One conformance run as TIER.md shows it (a RunResult of test/conformance/run.ts, reduced). */
export interface ConformanceRow {
  suite: string;
  side: 'server' | 'client';
  passed: string[];
  failed: string[];
  /** Unscored scenarios (extensions, added after the release) and whether they passed. */
  unscored: Record<string, boolean>;
  /** Judged groups of unscored scenarios (the tasks extension at 2026-07-28). */
  groups: Array<{ key: string; passed: string[]; failed: string[]; skipped: string[] }>;
}

/** What each suite of run.ts's SUITES runs, and the raw command a reviewer can type for it. */
const SUITE_FACTS: Record<
  string,
  { label: string; requirements: string; pkg: string; server: string; client: string; serve: string }
> = {
  '0.1.16': {
    label: '@modelcontextprotocol/conformance 0.1.16',
    requirements: 'the active server scenarios; every client scenario (`--suite all`)',
    pkg: '@modelcontextprotocol/conformance@0.1.16',
    server: 'server --url http://localhost:3000/mcp',
    client: 'client --suite all',
    serve: 'npx mcpgen serve --http 3000',
  },
  'alpha.12': {
    label: '@modelcontextprotocol/conformance 0.2.0-alpha.12, requirement set 2025-11-25',
    requirements: '`--requirements 2025-11-25`: exactly what the revision requires',
    pkg: '@modelcontextprotocol/conformance@0.2.0-alpha.12',
    server: 'server --url http://localhost:3000/mcp --requirements 2025-11-25',
    client: 'client --requirements 2025-11-25',
    serve: 'npx mcpgen serve --http 3000',
  },
  'alpha.12 (2026-07-28)': {
    label: '@modelcontextprotocol/conformance 0.2.0-alpha.12, requirement set 2026-07-28',
    requirements: '`--requirements 2026-07-28`, against the dual-era endpoint (stateless wire)',
    pkg: '@modelcontextprotocol/conformance@0.2.0-alpha.12',
    server: 'server --url http://localhost:3000/mcp --requirements 2026-07-28',
    client: 'client --requirements 2026-07-28',
    serve: 'npx mcpgen serve --rev 2026-07-28 --http 3000',
  },
};
/** The suites in TIER.md's order (run.ts's SUITES). */
export const SUITE_ORDER = Object.keys(SUITE_FACTS);

/** What is wrong with a feature row: a missing page, section, example or evidence; [] when it holds. */
export function featureProblems(
  feature: Feature,
  guide = GUIDE,
  examples = EXAMPLES,
  pages: readonly string[] = guideSlugs(guide),
): string[] {
  const [slug, anchor] = feature.page.split('#');
  const where = `${feature.name}`;
  const page = join(guide, `${slug}.md`);
  if (!existsSync(page)) return [`${where}: no guide page docs/guide/${slug}.md`];
  const problems: string[] = [];
  if (anchor && !headingAnchors(readFileSync(page, 'utf8')).has(anchor))
    problems.push(`${where}: docs/guide/${slug}.md has no section #${anchor}`);
  const source = exampleSource(examples, feature.example);
  if (source === undefined) return [...problems, `${where}: no example examples/guide/${feature.example}.ts`];
  if (!pages.includes(feature.example))
    problems.push(
      `${where}: examples/guide/${feature.example}.ts is no guide page's example, so npm test does not run it`,
    );
  for (const e of feature.evidence)
    if (!e.test(source))
      problems.push(`${where}: examples/guide/${feature.example}.ts does not use it (no match for ${e})`);
  return problems;
}

/** The audit's numbers (1–48) each covered by exactly one row; the problems otherwise. */
export function auditCoverage(features: readonly Feature[] = FEATURES): string[] {
  const problems: string[] = [];
  for (let n = 1; n <= 48; n++) {
    const rows = features.filter((f) => f.n === n);
    if (rows.length !== 1) problems.push(`audit feature ${n}: ${rows.length} rows`);
  }
  return problems;
}

const pct = (passed: number, total: number) => (total ? `${Math.floor((passed / total) * 1000) / 10} %` : '—');
const code = (s: string) => `\`${s}\``;
const sorted = (xs: Iterable<string>) => [...xs].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

/** The policy files the tiering rules (and the conformance project's tier-check) look for. */
const POLICIES: Array<[string, string]> = [
  [
    'VERSIONING.md',
    'Stable release with clear versioning: semver of mcpgen, the runtime and generated packages, what is breaking for each, the API reports that catch it, how a new spec revision is released',
  ],
  ['DEPENDENCY_POLICY.md', 'Dependency policy: exact pins, update cadence, security updates within 7 days'],
  ['renovate.json', 'the dependency policy carried out by Renovate'],
  ['ROADMAP.md', 'Roadmap: spec components, the next revision, work items by issue'],
  ['SECURITY.md', 'Critical bug resolution: private reports, triage in 2 business days, High/Critical fixed in 7 days'],
  ['CONTRIBUTING.md', 'Issue triage: the tiering labels (type, status, P0–P3), triage within 2 business days'],
  ['CHANGELOG.md', 'a section per release, breaking changes marked'],
];

/** Whether a version is a stable release in the tiering rules' sense (1.0.0 or later, no pre-release identifier). */
export function stability(version: string): string {
  const [major] = version.split('.').map(Number);
  if (major < 1) return 'not stable: a 0.x version (1.0.0-rc.1, then 1.0.0, are next: ROADMAP.md)';
  if (version.includes('-')) return `a release candidate: ${version.split('-')[0]} follows`;
  return 'stable';
}

/** TIER.md's text from the conformance runs (one per suite and side, in {@link SUITE_ORDER}). */
// size: TIER.md, section by section
export function renderTier(rows: readonly ConformanceRow[]): string {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    version: string;
    engines?: { node?: string };
  };
  const out: string[] = [];
  const push = (...lines: string[]) => out.push(...lines);
  const scored = rows.reduce((n, r) => n + r.passed.length + r.failed.length, 0);
  const passedAll = rows.reduce((n, r) => n + r.passed.length, 0);
  const audit = FEATURES.filter((f) => f.n > 0);
  const documented = audit.filter((f) => featureProblems(f).length === 0).length;
  const present = POLICIES.filter(([f]) => existsSync(join(ROOT, f))).length;
  push(
    '# Tier assessment: the TypeScript SDK',
    '',
    '<!-- Generated by `npm run tier` (scripts/tier.ts) from the evidence it runs; `npm test` fails when this file is out of date. Do not edit. -->',
    '',
    `mcpgen ${pkg.version} — the generated TypeScript client and server of each spec revision with the \`@mcpgen/runtime\` package —`,
    'assessed against the MCP SDK tiering rules ([SEP-1730](https://modelcontextprotocol.io/seps/1730-sdks-tiering-system),',
    '[SDK tiers](https://modelcontextprotocol.io/community/sdk-tiers)). Every figure below is produced by a command of this',
    'repository; the commands are listed with it.',
    '',
    '## Summary',
    '',
    '| Tier 1 requirement | evidence | state |',
    '| --- | --- | --- |',
    `| Conformance tests: 100 % pass rate | ${rows.length} runs below: ${passedAll} of ${scored} scored scenarios passed | ${pct(passedAll, scored)} |`,
    '| New protocol features before the spec release | [VERSIONING.md](VERSIONING.md), "Releasing a new spec revision"; [ROADMAP.md](ROADMAP.md) for the revision expected around 2026-12-15 | process published |',
    '| Issue triage within 2 business days | [CONTRIBUTING.md](CONTRIBUTING.md), "Issues and triage" | policy published; response times are measured on the public tracker, not here |',
    '| Critical bugs resolved within 7 days | [SECURITY.md](SECURITY.md) | policy published; measured on the public tracker |',
    `| Stable release with clear versioning | version ${pkg.version}; [VERSIONING.md](VERSIONING.md); API reports checked by \`npm test\` | ${stability(pkg.version)} |`,
    `| Documentation with examples for all features | [features](#features) below: ${documented} of ${audit.length} audit features with a guide page and a running example | ${pct(documented, audit.length)} |`,
    '| Published dependency policy | [DEPENDENCY_POLICY.md](DEPENDENCY_POLICY.md), [renovate.json](renovate.json) | published |',
    '| Published roadmap | [ROADMAP.md](ROADMAP.md) | published |',
    '',
    `Supported Node.js lines (\`engines\`): ${code(pkg.engines?.node ?? 'unspecified')}.`,
    '',
    '## Conformance',
    '',
    'Server scenarios run against the reference server (`mcpgen serve --http`, the generated 2025-11-25 `Server`',
    'with the runtime; for 2026-07-28 the dual-era endpoint of `mcpgen serve --rev 2026-07-28 --http`); client',
    'scenarios against the conformance client (`test/conformance/client.ts`: the generated `Client`, its OAuth by the',
    "runtime's `oauthFetch`). A scenario counts when the suite scores it for the requirement set (unscored ones —",
    'extensions, scenarios added after the release — are listed, not counted). Auth scenarios (`auth/*`) are included',
    'and counted apart as well.',
    '',
    '| suite (requirement set) | side | scored passed | pass rate | of which auth | unscored (passed / run) |',
    '| --- | --- | --- | --- | --- | --- |',
  );
  for (const r of rows) {
    const total = r.passed.length + r.failed.length;
    const auth = r.passed.filter((n) => n.startsWith('auth/')).length;
    const authRun = [...r.passed, ...r.failed].filter((n) => n.startsWith('auth/')).length;
    const un = Object.values(r.unscored);
    push(
      `| ${SUITE_FACTS[r.suite]?.label ?? r.suite} | ${r.side} | ${r.passed.length} / ${total} | ${pct(r.passed.length, total)} | ${authRun ? `${auth} / ${authRun}` : '—'} | ${un.length ? `${un.filter(Boolean).length} / ${un.length}` : '—'} |`,
    );
  }
  const groups = rows.flatMap((r) => r.groups);
  if (groups.length) {
    push('', 'Judged apart (not scored by the suite, required by us):', '');
    for (const g of groups)
      push(
        `- ${g.key}: ${g.passed.length} / ${g.passed.length + g.failed.length} passed${g.skipped.length ? ` (${g.skipped.length} whose every check the suite skips: ${sorted(g.skipped).map(code).join(', ')})` : ''}`,
      );
  }
  push(
    '',
    '### Reproduce',
    '',
    'From a clean clone (the spec inputs in `MCP_SPEC_DIR`):',
    '',
    '```sh',
    'npm ci',
    'npm run generate',
    'npm run tier                                        # every run below, then rewrites TIER.md',
  );
  for (const suite of SUITE_ORDER)
    for (const side of ['server', 'client'])
      push(
        `npm run conformance -- --suite ${JSON.stringify(suite === 'alpha.12 (2026-07-28)' ? '2026-07-28' : suite)} --side ${side}`,
      );
  push(
    '```',
    '',
    'The server runs with the suite itself, against `mcpgen serve` (`npx mcpgen` in a project, `node bin/mcpgen.js` in this repository):',
    '',
    '```sh',
  );
  for (const suite of SUITE_ORDER) {
    const f = SUITE_FACTS[suite];
    push(`${f.serve} &`, `npx ${f.pkg} ${f.server}`, 'kill %1');
  }
  push(
    '```',
    '',
    'The client runs are `npx <suite> client --command "<client>" …` with the client `test/conformance/run.ts` bundles (esbuild) from',
    '`test/conformance/client.ts` (with `--rev 2026-07-28` for the 2026-07-28 set); `npm run conformance` does both.',
    '',
  );
  push('### Scenarios', '');
  for (const r of rows) {
    push(
      `<details><summary>${SUITE_FACTS[r.suite]?.label ?? r.suite}, ${r.side}: ${r.passed.length + r.failed.length} scored</summary>`,
      '',
    );
    push(`Requirement set: ${SUITE_FACTS[r.suite]?.requirements ?? r.suite}.`, '');
    if (r.failed.length) push(`Failed: ${sorted(r.failed).map(code).join(', ')}.`, '');
    push(`Passed: ${sorted(r.passed).map(code).join(', ')}.`, '');
    const un = sorted(Object.keys(r.unscored));
    if (un.length)
      push(`Not scored: ${un.map((n) => `${code(n)} ${r.unscored[n] ? 'passed' : 'failed'}`).join(', ')}.`, '');
    push('</details>', '');
  }
  push(
    '## Features',
    '',
    "The audit's feature list (the conformance project's tier audit: 48 non-experimental features, then the",
    'experimental ones and what mcpgen adds). Each row names the guide page that documents the feature and the',
    'example program that uses it; `npm test` type-checks and runs every example (test/docs/guide.test.ts) and checks',
    "that each row's example exercises its feature (test/tier/tier.test.ts).",
    '',
    '| # | feature | method | guide | example | 2026-07-28 |',
    '| --- | --- | --- | --- | --- | --- |',
  );
  for (const f of FEATURES) {
    const [slug, anchor] = f.page.split('#');
    const ok = featureProblems(f).length === 0;
    push(
      `| ${f.n || '—'} | ${f.name}${ok ? '' : ' **(missing: see npm test)**'} | ${f.method ? code(f.method) : ''} | [${slug}](docs/guide/${slug}.md#${anchor}) | [${f.example}.ts](examples/guide/${f.example}.ts) | ${f.era ?? 'same'} |`,
    );
  }
  push(
    '',
    '## Policies',
    '',
    `${present} of ${POLICIES.length} policy files present (the files the conformance project's \`tier-check\` looks for among them).`,
    '',
    '| file | what it answers |',
    '| --- | --- |',
    ...POLICIES.map(([f, what]) => `| ${existsSync(join(ROOT, f)) ? `[${f}](${f})` : `${f} (missing)`} | ${what} |`),
    '',
  );
  return out.join('\n');
}

/** A run of test/conformance/run.ts reduced to what TIER.md shows. */
export function toRow(r: {
  suite: string;
  side: 'server' | 'client';
  passed: string[];
  failed: string[];
  unscored: Record<string, boolean>;
  groups: Array<{ key: string; passed: string[]; failed: string[]; skipped: string[] }>;
}): ConformanceRow {
  return {
    suite: r.suite,
    side: r.side,
    passed: r.passed,
    failed: r.failed,
    unscored: r.unscored,
    groups: r.groups.map(({ key, passed, failed, skipped }) => ({ key, passed, failed, skipped })),
  };
}

/**
 * The conformance rows, in TIER.md's order: taken from `recorded` (`typescript <suite> <side>` →
 * run) where present, run now otherwise.
 */
export async function conformanceRows(
  recorded: ReadonlyMap<string, Parameters<typeof toRow>[0]> = new Map(),
): Promise<ConformanceRow[]> {
  const run = await import('../test/conformance/run.js');
  const rows: ConformanceRow[] = [];
  let clientCommand: string | undefined;
  const { mkdtempSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const work = mkdtempSync(join(tmpdir(), 'mcpgen-tier-'));
  try {
    for (const name of SUITE_ORDER) {
      const suite = run.SUITES.find((s) => s.name === name);
      if (!suite) throw new Error(`test/conformance/run.ts has no suite ${name}`);
      for (const side of ['server', 'client'] as const) {
        let r = recorded.get(`typescript ${name} ${side}`);
        if (!r) {
          if (side === 'client') clientCommand ??= await run.buildClient(work);
          r = await run.runConformance(suite, side, { work, clientCommand });
          process.stderr.write(`${run.report(r as never)}\n`);
        }
        rows.push(toRow(r));
      }
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return rows;
}

/** Runs each feature's example once (`node --import tsx`); the problems of those that fail. */
async function runFeatureExamples(): Promise<string[]> {
  const { runExamples, runProblem } = await import('../test/docs/guide-check.js');
  const slugs = sorted(new Set(FEATURES.map((f) => f.example)));
  const results = await runExamples(
    slugs.map((slug) => ({ slug, file: join(EXAMPLES, `${slug}.ts`) })),
    { cwd: ROOT, timeoutMs: 120_000 },
  );
  return results.flatMap((r) => runProblem(r) ?? []);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const check = process.argv.includes('--check');
  const problems = [
    ...auditCoverage(),
    ...FEATURES.flatMap((f) => featureProblems(f)),
    ...(await runFeatureExamples()),
  ];
  for (const p of problems) console.error(`feature: ${p}`);
  const text = renderTier(await conformanceRows());
  const before = existsSync(TIER_FILE) ? readFileSync(TIER_FILE, 'utf8') : '';
  if (check) {
    if (before !== text) console.error('TIER.md is out of date: run `npm run tier` and commit it');
    process.exit(before !== text || problems.length ? 1 : 0);
  }
  writeFileSync(TIER_FILE, text);
  console.log(
    `TIER.md ${before === text ? 'unchanged' : 'written'}${problems.length ? ` (${problems.length} feature problems)` : ''}`,
  );
  process.exit(problems.length ? 1 : 0);
}
