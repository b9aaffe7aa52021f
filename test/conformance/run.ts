/**
 * Runs the MCP conformance suites against mcpgen: the server scenarios against the reference
 * server over Streamable HTTP (`mcpgen serve --http`, started in-process), the client scenarios
 * against the conformance client (./client.ts, bundled to one JavaScript file with esbuild
 * first: the suite starts it once per scenario, in parallel, with tight timing checks).
 *
 *   node --import tsx test/conformance/run.ts [--suite 0.1.16|alpha.12|2026-07-28] [--side server|client]
 *
 * Suites: 0.1.16 (node_modules/conformance-0.1: its active server scenarios, `--suite all` of
 * the client ones) and alpha.12 (node_modules/conformance-alpha, `--requirements 2025-11-25`:
 * exactly what that revision requires; unscored scenarios are reported but not judged) and
 * `alpha.12 (2026-07-28)` (the same suite at `--requirements 2026-07-28`: the server scenarios
 * against the dual-era endpoint of `mcpgen serve --rev 2026-07-28 --http`, the client scenarios
 * with the conformance client speaking 2026-07-28, `--rev 2026-07-28`). All
 * need `fs.globSync` (Node ≥ 22); ./glob-shim.mjs provides it on Node 20.
 *
 * Prints `conformance <suite> <side>: N/M` per run (scored scenarios passed / run); a scenario
 * that fails in the suite's run is run once more alone, and the report says so. Scenarios
 * listed in ./expected-failures.json (each with a reason) may fail; the run fails on any other
 * failure and on a listed scenario that passed or did not run (a stale entry). Exit code 1 then.
 *
 * Some unscored scenarios are judged all the same, as a group of their own with its own line
 * and its own entry `<suite> <group> <side>` in ./expected-failures.json: at `--requirements
 * 2026-07-28` the server scenarios of the tasks extension (`tasks-*`, SEP-2663), printed as
 * `conformance alpha.12 (2026-07-28) tasks extension server: N/M`. A scenario of a group whose
 * checks were all skipped by the suite is listed as such and not counted; a group of which no
 * scenario ran fails the run.
 *
 * Languages: the same suites run against another language's reference server and conformance
 * client through a {@link LanguageTarget} (`runConformance(suite, side, { language })`): it
 * starts its reference server (a command that prints `listening on <url>`: {@link commandServer})
 * and names its conformance client command; its expected failures are in
 * `./expected-failures.<language>.json` (same keys; TypeScript's is `./expected-failures.json`).
 *
 *   node --import tsx test/conformance/run.ts --language python [--suite …] [--side …]
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { loadRevision, olderHandshakeTables } from '../../cli/revisions.js';
import { serveHttp } from '../../cli/serve/http.js';
import { serveStatelessHttp } from '../../cli/serve/stateless.js';
import type { LanguageTarget } from './language.js';

export { type LanguageTarget, commandServer } from './language.js';

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));
const SHIM = here('./glob-shim.mjs');
/** The expected-failures file of a language (TypeScript: ./expected-failures.json). */
export const expectedFile = (language = 'typescript'): string =>
  here(language === 'typescript' ? './expected-failures.json' : `./expected-failures.${language}.json`);

/** The TypeScript reference server (`mcpgen serve --http`, in process) and conformance client (./client.ts). */
export const TYPESCRIPT: LanguageTarget = {
  name: 'typescript',
  async startServer(revision) {
    // what `mcpgen serve --http` serves: 2025-11-25 with the older handshake revisions it
    // negotiates; 2026-07-28: the dual-era endpoint of `mcpgen serve --rev 2026-07-28 --http`
    const legacy = { ...(await loadRevision('2025-11-25')), fallbackTables: await olderHandshakeTables('2025-11-25') };
    const served = revision
      ? await serveStatelessHttp((await loadRevision(revision)) as never, legacy as never, {
          port: 0,
          host: '127.0.0.1',
        })
      : await serveHttp(legacy, { port: 0, host: '127.0.0.1' });
    return { url: `http://localhost:${served.port}/mcp`, stop: served.close };
  },
  clientCommand: (work) => buildClient(work),
};

export type Side = 'server' | 'client';
/** Unscored scenarios of one side judged as a group: those whose name starts with `prefix`. */
export interface JudgedGroup {
  name: string;
  side: Side;
  prefix: string;
}
export interface SuiteSpec {
  name: string;
  bin: string;
  server: string[];
  client: string[];
  /** The revision served to the server scenarios and spoken by the conformance client (default 2025-11-25). */
  revision?: '2026-07-28';
  /** Unscored scenarios judged anyway (see the module doc). */
  judged?: readonly JudgedGroup[];
}

export const SUITES: readonly SuiteSpec[] = [
  {
    name: '0.1.16',
    bin: here('../../node_modules/conformance-0.1/dist/index.js'),
    server: [],
    client: ['--suite', 'all'],
  },
  {
    name: 'alpha.12',
    bin: here('../../node_modules/conformance-alpha/dist/index.js'),
    server: ['--requirements', '2025-11-25'],
    client: ['--requirements', '2025-11-25'],
  },
  {
    name: 'alpha.12 (2026-07-28)',
    bin: here('../../node_modules/conformance-alpha/dist/index.js'),
    server: ['--requirements', '2026-07-28'],
    client: ['--requirements', '2026-07-28'],
    revision: '2026-07-28',
    judged: [{ name: 'tasks extension', side: 'server', prefix: 'tasks-' }],
  },
];

/** The expected-failures.json key of a group: `<suite> <group> <side>`. */
export const groupKey = (suite: SuiteSpec, g: JudgedGroup): string => `${suite.name} ${g.name} ${g.side}`;

/** The judgement of one {@link JudgedGroup} in a run. */
export interface GroupResult {
  /** `<suite> <group> <side>`. */
  key: string;
  passed: string[];
  failed: string[];
  /** Scenarios whose every check the suite skipped (not counted). */
  skipped: string[];
  unexpected: string[];
  stale: string[];
  rerun: string[];
  /** `conformance <suite> <group> <side>: N/M`. */
  line: string;
}

export interface RunResult {
  suite: string;
  side: Side;
  /** The {@link LanguageTarget} run (`typescript`, `python` …). */
  language: string;
  /** Scored scenarios that passed, by name. */
  passed: string[];
  /** Scored scenarios that failed. */
  failed: string[];
  /** Unscored scenarios (extensions, added after the release) with whether they passed. */
  unscored: Record<string, boolean>;
  /** Failures not listed in expected-failures.json. */
  unexpected: string[];
  /** Listed scenarios that passed or did not run. */
  stale: string[];
  /** Scenarios that failed in the parallel run and passed when run alone. */
  rerun: string[];
  /** `conformance <suite> <side>: N/M`. */
  line: string;
  /** The judged groups of unscored scenarios of this suite and side. */
  groups: GroupResult[];
  output: string;
}

/** The scenario lines of a suite's closing summary: name → passed. */
export function parseSummary(output: string): { scenarios: Map<string, boolean>; unscored: Map<string, boolean> } {
  // eslint-disable-next-line no-control-regex
  const plain = output.replace(/\x1b\[[0-9;]*m/g, '');
  const scenarios = new Map<string, boolean>();
  const unscored = new Map<string, boolean>();
  const start = plain.lastIndexOf('SUMMARY ===');
  if (start < 0) return { scenarios, unscored };
  const lines = plain.slice(start).split('\n');
  let inUnscored = false;
  for (const line of lines) {
    if (/^Not scored/.test(line)) inUnscored = true;
    const m = /^\s*([✓✗])\s+(\S+?)(?::\s+\d+ passed| \()/.exec(line);
    if (!m) continue;
    (inUnscored ? unscored : scenarios).set(m[2], m[1] === '✓');
  }
  for (const name of unscored.keys()) scenarios.delete(name);
  return { scenarios, unscored };
}

/** A single-scenario run passed: every check succeeded, no warning. */
export function passedAlone(output: string): boolean {
  // eslint-disable-next-line no-control-regex
  const plain = output.replace(/\x1b\[[0-9;]*m/g, '');
  const m = /Passed: (\d+)\/(\d+), (\d+) failed, (\d+) warnings/.exec(plain);
  return !!m && m[1] === m[2] && m[3] === '0' && m[4] === '0' && !/OVERALL: FAILED/.test(plain);
}

/** Failures not listed, and listed scenarios that did not fail (passed, or did not run). */
export function judge(
  failed: readonly string[],
  expected: Readonly<Record<string, string>>,
): { unexpected: string[]; stale: string[] } {
  return {
    unexpected: failed.filter((n) => !(n in expected)),
    stale: Object.keys(expected).filter((n) => !failed.includes(n)),
  };
}

/**
 * Scenarios of a run's results directory (`-o`) whose checks were all SKIPPED (checks.json of
 * `<side>-<scenario>-<timestamp>/`).
 */
export function skippedScenarios(dir: string, side: Side, names: readonly string[]): string[] {
  if (!existsSync(dir)) return [];
  const entries = readdirSync(dir);
  return names.filter((name) => {
    const re = new RegExp(`^${side}-${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}-\\d{4}-\\d{2}-\\d{2}T`);
    const found = entries.filter((e) => re.test(e) && existsSync(join(dir, e, 'checks.json')));
    if (!found.length) return false;
    return found.every((e) => {
      const checks = JSON.parse(readFileSync(join(dir, e, 'checks.json'), 'utf8')) as Array<{ status?: string }>;
      return checks.length > 0 && checks.every((c) => c.status === 'SKIPPED');
    });
  });
}

/** expected-failures.json by `<suite> <side>`; throws on an entry without a written reason. */
export function loadExpected(language = 'typescript'): Record<string, Record<string, string>> {
  const raw = JSON.parse(readFileSync(expectedFile(language), 'utf8')) as Record<string, unknown>;
  const out: Record<string, Record<string, string>> = {};
  for (const [k, v] of Object.entries(raw)) {
    if (k.startsWith('$')) continue;
    const entries = v as Record<string, unknown>;
    for (const [scenario, reason] of Object.entries(entries)) {
      if (typeof reason !== 'string' || reason.trim().length < 10)
        throw new Error(`expected-failures.json: "${k}" → "${scenario}" needs a written reason`);
    }
    out[k] = entries as Record<string, string>;
  }
  return out;
}

function run(args: string[], cwd: string, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', SHIM, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', () => {
      clearTimeout(timer);
      resolve(out);
    });
  });
}

/** Bundles ./client.ts into `dir`; returns the command the suite runs. */
export async function buildClient(dir: string): Promise<string> {
  const esbuild = await import('esbuild');
  const outdir = join(dir, 'conformance-client');
  await esbuild.build({
    entryPoints: { 'conformance-client': here('./client.ts') },
    bundle: true,
    splitting: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outdir,
    outExtension: { '.js': '.mjs' },
    logLevel: 'warning',
    banner: {
      js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
    },
  });
  return `${JSON.stringify(process.execPath)} ${JSON.stringify(join(outdir, 'conformance-client.mjs'))}`;
}

/**
 * Every run of this process by `<language> <suite> <side>` (the last one kept): what
 * conformance.test.ts ran, for test/tier/tier.test.ts to render TIER.md from without running the
 * suites twice.
 */
export const recordedRuns = new Map<string, RunResult>();

/** Runs one suite on one side and judges it against expected-failures.json. */
export async function runConformance(
  suite: SuiteSpec,
  side: Side,
  options: { work?: string; clientCommand?: string; serverUrl?: string; language?: LanguageTarget } = {},
): Promise<RunResult> {
  const language = options.language ?? TYPESCRIPT;
  const work = options.work ?? mkdtempSync(join(tmpdir(), 'mcpgen-conformance-'));
  const own = options.work === undefined;
  let stop: (() => Promise<void>) | undefined;
  try {
    let args: string[];
    if (side === 'server') {
      let url = options.serverUrl;
      if (!url) {
        const served = await language.startServer(suite.revision);
        stop = served.stop;
        url = served.url;
      }
      args = [suite.bin, 'server', '--url', url, ...suite.server];
    } else {
      const command = options.clientCommand ?? (await language.clientCommand(work));
      args = [
        suite.bin,
        'client',
        '--command',
        suite.revision ? `${command} --rev ${suite.revision}` : command,
        ...suite.client,
      ];
    }
    const outName = suite.name.replace(/[^\w.-]+/g, '_');
    const resultsDir = join(work, `${outName}-${side}`);
    let output = await run([...args, '-o', resultsDir], work, 600_000);
    const { scenarios, unscored } = parseSummary(output);
    const all = loadExpected(language.name);
    const expected = all[`${suite.name} ${side}`] ?? {};
    // A failure in the parallel run is run once more alone: the client scenarios all start at
    // once and some check timings (sse-retry: reconnect within 450–700 ms), which a loaded
    // 2-core machine misses. Both outcomes are reported.
    const rerunAlone = async (verdicts: Map<string, boolean>, listed: Record<string, string>): Promise<string[]> => {
      const rerun: string[] = [];
      for (const [name, ok] of verdicts) {
        if (ok || name in listed) continue;
        const base = args.filter(
          (a, i) => !['--requirements', '--suite'].includes(a) && !['--requirements', '--suite'].includes(args[i - 1]),
        );
        const again = await run(
          [...base, '--scenario', name, '-o', join(work, `${outName}-${side}-rerun`)],
          work,
          120_000,
        );
        output += `\n=== re-run of ${name} alone ===\n${again}`;
        if (passedAlone(again)) {
          verdicts.set(name, true);
          rerun.push(name);
        }
      }
      return rerun;
    };
    const rerun = await rerunAlone(scenarios, expected);
    const groups: GroupResult[] = [];
    for (const g of (suite.judged ?? []).filter((x) => x.side === side)) {
      const key = groupKey(suite, g);
      const listed = all[key] ?? {};
      const names = [...unscored.keys()].filter((n) => n.startsWith(g.prefix));
      const skipped = skippedScenarios(resultsDir, side, names);
      const verdicts = new Map(
        names.filter((n) => !skipped.includes(n)).map((n) => [n, unscored.get(n) ?? false] as const),
      );
      for (const n of names) unscored.delete(n);
      const groupRerun = await rerunAlone(verdicts, listed);
      const passed = [...verdicts].filter(([, ok]) => ok).map(([n]) => n);
      const failed = [...verdicts].filter(([, ok]) => !ok).map(([n]) => n);
      groups.push({
        key,
        passed,
        failed,
        skipped,
        ...judge(failed, listed),
        rerun: groupRerun,
        line: `conformance ${language === TYPESCRIPT ? '' : `${language.name} `}${key}: ${passed.length}/${verdicts.size}`,
      });
    }
    const passed = [...scenarios].filter(([, ok]) => ok).map(([n]) => n);
    const failed = [...scenarios].filter(([, ok]) => !ok).map(([n]) => n);
    const { unexpected, stale } = judge(failed, expected);
    const result: RunResult = {
      suite: suite.name,
      side,
      language: language.name,
      passed,
      failed,
      unscored: Object.fromEntries(unscored),
      unexpected,
      stale,
      rerun,
      line: `conformance ${language === TYPESCRIPT ? '' : `${language.name} `}${suite.name} ${side}: ${passed.length}/${scenarios.size}`,
      groups,
      output,
    };
    if (!options.serverUrl) recordedRuns.set(`${language.name} ${suite.name} ${side}`, result);
    return result;
  } finally {
    await stop?.();
    if (own) rmSync(work, { recursive: true, force: true });
  }
}

/** One printable report of a run. */
export function report(r: RunResult): string {
  const lines = [r.line];
  const expected = loadExpected(r.language)[`${r.suite} ${r.side}`] ?? {};
  for (const n of r.failed)
    lines.push(`  ${n in expected ? 'expected failure' : 'FAILED'}: ${n}${n in expected ? ` (${expected[n]})` : ''}`);
  for (const n of r.stale) lines.push(`  STALE expected-failures entry: ${n} (it passed or did not run)`);
  for (const n of r.rerun) lines.push(`  ${n}: failed in the parallel run, passed when run alone`);
  const auth = r.passed.filter((n) => n.startsWith('auth/')).length;
  const authRun = [...r.passed, ...r.failed].filter((n) => n.startsWith('auth/')).length;
  if (r.side === 'client' && auth && r.language === 'typescript')
    lines.push(
      `  of which auth/*: ${auth} (OAuth by the runtime's client, runtime/auth/client.ts, on the transport's fetch)`,
    );
  else if (r.side === 'client' && authRun) lines.push(`  of which auth/*: ${auth} passed of ${authRun} run`);
  const un = Object.entries(r.unscored);
  if (un.length) lines.push(`  not scored: ${un.map(([n, ok]) => `${n} ${ok ? 'passed' : 'failed'}`).join(', ')}`);
  for (const g of r.groups) {
    const listed = loadExpected(r.language)[g.key] ?? {};
    lines.push(g.line);
    for (const n of g.failed)
      lines.push(`  ${n in listed ? 'expected failure' : 'FAILED'}: ${n}${n in listed ? ` (${listed[n]})` : ''}`);
    for (const n of g.stale) lines.push(`  STALE expected-failures entry: ${n} (it passed or did not run)`);
    for (const n of g.rerun) lines.push(`  ${n}: failed in the parallel run, passed when run alone`);
    for (const n of g.skipped) lines.push(`  ${n}: every check skipped by the suite (not counted)`);
    if (g.passed.length + g.failed.length + g.skipped.length === 0) lines.push('  NO scenario of this group ran');
  }
  return lines.join('\n');
}

/** Whether a run must fail: unexpected failures, stale entries, nothing run (also per judged group). */
export function runFailed(r: RunResult): boolean {
  if (r.unexpected.length || r.stale.length || r.passed.length + r.failed.length === 0) return true;
  return r.groups.some(
    (g) => g.unexpected.length || g.stale.length || g.passed.length + g.failed.length + g.skipped.length === 0,
  );
}

/** The languages `--language` names, each loaded on demand from beside its own tests. */
export const LANGUAGES: Record<string, () => Promise<LanguageTarget>> = {
  typescript: async () => TYPESCRIPT,
  python: async () => (await import('../python/conformance-target.js')).PYTHON,
  go: async () => (await import('../go/conformance-target.js')).GO,
};

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { values } = parseArgs({
    options: {
      suite: { type: 'string' },
      side: { type: 'string' },
      verbose: { type: 'boolean' },
      language: { type: 'string' },
    },
  });
  const load = LANGUAGES[values.language ?? 'typescript'];
  if (!load) {
    console.error(`unknown --language ${values.language} (languages: ${Object.keys(LANGUAGES).join(', ')})`);
    process.exit(2);
  }
  const language = await load();
  const suites = SUITES.filter((s) => !values.suite || s.name === values.suite || s.revision === values.suite);
  const sides = (['server', 'client'] as const).filter((s) => !values.side || s === values.side);
  if (!suites.length || !sides.length) {
    console.error(
      'usage: run.ts [--language typescript|python|go|…] [--suite 0.1.16|alpha.12|2026-07-28] [--side server|client] [--verbose]',
    );
    process.exit(2);
  }
  const work = mkdtempSync(join(tmpdir(), 'mcpgen-conformance-'));
  let bad = false;
  try {
    const clientCommand = sides.includes('client') ? await language.clientCommand(work) : undefined;
    for (const suite of suites) {
      for (const side of sides) {
        const r = await runConformance(suite, side, { work, clientCommand, language });
        if (values.verbose) console.log(r.output);
        console.log(report(r));
        if (runFailed(r)) bad = true;
      }
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  process.exit(bad ? 1 : 0);
}
