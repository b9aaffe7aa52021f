/**
 * API reports of `@mcpgen/runtime`: one report per public subpath and export condition (each
 * distinct declaration file an `exports` target names), made by API Extractor from the built
 * package's declarations and committed under api/runtime/ (`<name>.api.md`). A report lists every
 * exported declaration's signature; a change of the public API changes a report.
 *
 *   npm run api:update        builds the runtime's declarations, rewrites api/runtime/ (removes stale reports)
 *   npm run api:check         the same comparison `npm test` makes (test/layout/api-report.test.ts): exit 1
 *                             naming each changed report and whether the change is breaking
 *
 * Breaking or additive ({@link diffReport}): a declaration, an overload or a member removed, or
 * changed, is breaking; a new declaration, a new class member or a new optional interface member
 * is additive; a new required interface member is breaking (code that builds or implements the
 * interface must supply it). Changes are judged on signatures only: doc comments are not in the
 * reports. VERSIONING.md says what each kind of change means for the version.
 */
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
/** Where the reports are committed. */
export const REPORT_DIR = join(ROOT, 'api', 'runtime');

/** One report: a declaration file of the built package, and every `exports` entry resolving to it. */
export interface ReportEntry {
  /** The report's name: `index`, `http`, `http.web`, `codegen-v1` … (file `<name>.api.md`). */
  name: string;
  /** The declaration file, relative to the package folder (`transport/http/session/index.d.ts`). */
  file: string;
  /** `@mcpgen/runtime/http`, `@mcpgen/runtime/http (browser, deno, worker, workerd)` … */
  exports: string[];
}

const WEB_CONDITIONS = new Set(['browser', 'deno', 'worker', 'workerd']);

/** A source `exports` target's TypeScript file per condition (`default` last); null targets left out. */
function conditionTargets(target: unknown, condition = 'default'): Array<[string, string]> {
  if (typeof target === 'string') return target.endsWith('.ts') ? [[condition, target]] : [];
  if (target === null || typeof target !== 'object') return [];
  return Object.entries(target as Record<string, unknown>).flatMap(([c, t]) => conditionTargets(t, c));
}

/**
 * The reports of a runtime manifest whose `exports` name TypeScript sources (runtime/package.json):
 * one per distinct file, named after the first subpath whose `default` target it is, else after
 * the subpath with `.web` (web conditions) or `.<condition>`.
 */
export function reportEntries(exportsMap: Record<string, unknown>): ReportEntry[] {
  const baseName = (subpath: string) => (subpath === '.' ? 'index' : subpath.slice(2).replaceAll('/', '-'));
  const spec = (subpath: string) => `@mcpgen/runtime${subpath === '.' ? '' : subpath.slice(1)}`;
  const byFile = new Map<string, ReportEntry>();
  const pending: Array<{ subpath: string; conditions: string[]; file: string }> = [];
  for (const [subpath, target] of Object.entries(exportsMap)) {
    const perFile = new Map<string, string[]>();
    for (const [condition, file] of conditionTargets(target))
      perFile.set(file, [...(perFile.get(file) ?? []), condition]);
    for (const [file, conditions] of perFile) pending.push({ subpath, conditions, file });
  }
  const label = (subpath: string, conditions: string[]) =>
    conditions.includes('default') ? spec(subpath) : `${spec(subpath)} (${[...conditions].sort().join(', ')})`;
  // default targets name their reports first, so `./web` names web.ts, not `.`'s browser condition
  for (const pass of ['default', 'other'] as const) {
    for (const { subpath, conditions, file } of pending) {
      if (conditions.includes('default') !== (pass === 'default')) continue;
      const dts = `${file.replace(/^\.\//, '').slice(0, -'.ts'.length)}.d.ts`;
      const existing = byFile.get(dts);
      if (existing) {
        existing.exports.push(label(subpath, conditions));
        continue;
      }
      const suffix =
        pass === 'default' ? '' : conditions.every((c) => WEB_CONDITIONS.has(c)) ? '.web' : `.${conditions[0]}`;
      byFile.set(dts, { name: `${baseName(subpath)}${suffix}`, file: dts, exports: [label(subpath, conditions)] });
    }
  }
  return [...byFile.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The report entries of this checkout's runtime/package.json. */
export function runtimeReportEntries(): ReportEntry[] {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'runtime', 'package.json'), 'utf8')) as {
    exports: Record<string, unknown>;
  };
  return reportEntries(manifest.exports);
}

/**
 * Links `<root>/node_modules` (this checkout's) beside `builtDir` as `../node_modules`, for the
 * types its declarations import, unless `builtDir` has a node_modules of its own or the link is
 * there already. The folder above `builtDir` is a cache in the system's temporary folder shared
 * by every checkout of the same runtime inputs: a link another checkout left (to a clone since
 * removed, or to another checkout) is replaced; a folder of its own is kept.
 */
export function linkNodeModules(builtDir: string, root = ROOT): void {
  if (existsSync(join(builtDir, 'node_modules'))) return;
  const link = join(builtDir, '..', 'node_modules');
  const target = join(root, 'node_modules');
  let current: string | undefined;
  try {
    current = readlinkSync(link);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') return; // a folder, not a link: kept
  }
  if (current === target) return;
  if (current !== undefined) rmSync(link, { force: true });
  try {
    symlinkSync(target, link, 'dir');
  } catch (e) {
    // another process linked it meanwhile: a checkout's node_modules all the same
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
}

/**
 * Runs API Extractor over the built package in `builtDir` (the declarations of scripts/build.ts's
 * buildRuntime; the checkout's node_modules is linked beside it when absent, for the types it
 * imports) and returns each report's text by file name (`<name>.api.md`). One compiler program
 * serves every entry.
 */
export async function extractReports(builtDir: string, entries = runtimeReportEntries()): Promise<Map<string, string>> {
  const { CompilerState, Extractor, ExtractorConfig, ExtractorLogLevel } = await import('@microsoft/api-extractor');
  const none = ExtractorLogLevel.None;
  linkNodeModules(builtDir);
  const work = join(builtDir, '..', 'api-extractor');
  rmSync(work, { recursive: true, force: true });
  mkdirSync(join(work, 'reports'), { recursive: true });
  const files = entries.map((e) => join(builtDir, e.file));
  const problems: string[] = [];
  let state: import('@microsoft/api-extractor').CompilerState | undefined;
  const out = new Map<string, string>();
  for (const entry of entries) {
    const config = ExtractorConfig.prepare({
      configObject: {
        projectFolder: builtDir,
        mainEntryPointFilePath: join(builtDir, entry.file),
        compiler: {
          overrideTsconfig: {
            compilerOptions: {
              module: 'nodenext',
              moduleResolution: 'nodenext',
              target: 'es2022',
              lib: ['es2023', 'dom'],
              types: ['node'],
              strict: true,
              skipLibCheck: true,
            },
            files,
          },
        },
        apiReport: {
          enabled: true,
          reportFileName: `${entry.name}.api.md`,
          reportFolder: join(work, 'reports'),
          reportTempFolder: join(work, 'temp'),
        },
        docModel: { enabled: false },
        dtsRollup: { enabled: false },
        tsdocMetadata: { enabled: false },
        messages: {
          compilerMessageReporting: { default: { logLevel: ExtractorLogLevel.Error } },
          extractorMessageReporting: {
            default: { logLevel: none },
            // no release tags are used: every export of a public subpath is public
            'ae-missing-release-tag': { logLevel: none, addToApiReportFile: false },
            // a doc comment is not API: adding one must not change a report
            'ae-undocumented': { logLevel: none, addToApiReportFile: false },
            // a type the public API names but no entry point exports: recorded in the report
            'ae-forgotten-export': { logLevel: none, addToApiReportFile: true },
          },
          tsdocMessageReporting: { default: { logLevel: none, addToApiReportFile: false } },
        },
      },
      configObjectFullPath: join(work, 'api-extractor.json'),
      packageJsonFullPath: join(builtDir, 'package.json'),
    });
    state ??= CompilerState.create(config, { additionalEntryPoints: files });
    const result = Extractor.invoke(config, {
      localBuild: true,
      compilerState: state,
      messageCallback: (m) => {
        if (m.logLevel === ExtractorLogLevel.Error) problems.push(`${entry.name}: ${m.text}`);
        m.handled = true;
      },
    });
    if (!result.succeeded || problems.length)
      throw new Error(
        `API Extractor failed on ${entry.file}:\n${problems.join('\n') || `${result.errorCount} errors`}`,
      );
    const raw = readFileSync(join(work, 'reports', `${entry.name}.api.md`), 'utf8');
    out.set(`${entry.name}.api.md`, withExports(raw, entry));
  }
  rmSync(work, { recursive: true, force: true });
  return out;
}

/** The report's title names the subpaths (and conditions) it covers, and how to refresh it. */
function withExports(report: string, entry: ReportEntry): string {
  const lines = report.replace(/\r\n/g, '\n').split('\n');
  const title = lines.findIndex((l) => l.startsWith('## API Report File for'));
  const head = [
    `## API report of ${entry.exports.map((e) => `\`${e}\``).join(', ')}`,
    '',
    `> Generated by \`npm run api:update\` (API Extractor) from \`${entry.file}\`; checked by \`npm test\`.`,
    '> A change here is a change of the public API: see VERSIONING.md.',
  ];
  const body = lines.slice(title + 1).filter((l, i) => !(i < 3 && /Do not edit this file/.test(l)));
  while (body.length && body[0].trim() === '') body.shift();
  return `${[...head, '', ...body].join('\n').replace(/\n+$/, '')}\n`;
}

/** One exported declaration of a report: its header line and its signature (comments left out). */
interface Declaration {
  kind: string;
  name: string;
  /** The signature text, overloads joined. */
  text: string;
  /** Class and interface members by key (modifiers and name), overloads joined. */
  members?: Map<string, string>;
  /** The declaration's first line (`export interface A extends B {`), for header changes. */
  header: string;
}

const DECLARATION =
  /^export (?:declare )?(?:abstract )?(function|class|interface|type|const|let|var|enum|namespace)\s+([\w$]+)/;

/** Bracket depth change of a line (strings with brackets are rare in signatures; good enough for grouping). */
const depth = (line: string) => {
  let d = 0;
  for (const ch of line.replace(/'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"/g, '')) {
    if (ch === '{' || ch === '(' || ch === '[' || ch === '<') d++;
    else if (ch === '}' || ch === ')' || ch === ']' || ch === '>') d--;
  }
  return d;
};

/** Members of a class or interface block (lines between its braces). */
function parseMembers(lines: string[]): Map<string, string> {
  const members = new Map<string, string>();
  let current: string[] = [];
  let open = 0;
  const flush = () => {
    if (!current.length) return;
    const text = current.join('\n');
    const m =
      /^\s*((?:(?:readonly|static|protected|private|abstract|get|set|accessor|declare)\s+)*)(\[[^\]]+\]|[\w$#]+|"[^"]*"|'[^']*')/.exec(
        text,
      );
    const key = m ? `${m[1]}${m[2]}` : text.trim();
    members.set(key, members.has(key) ? `${members.get(key)}\n${text}` : text);
    current = [];
  };
  for (const line of lines) {
    if (/^\s*\/\//.test(line)) continue;
    if (open === 0) flush();
    current.push(line);
    open += depth(line.replace(/=>/g, ''));
    if (open < 0) open = 0;
  }
  flush();
  return members;
}

/** The exported declarations of a report's ```ts block, by `<kind> <name>`. */
export function parseReport(report: string): Map<string, Declaration> {
  const block = /```ts\n([\s\S]*?)```/.exec(report)?.[1] ?? '';
  const out = new Map<string, Declaration>();
  const chunks: string[][] = [];
  let chunk: string[] = [];
  let open = 0;
  for (const line of block.split('\n')) {
    if (line.trim() === '' && open === 0) {
      if (chunk.length) chunks.push(chunk);
      chunk = [];
      continue;
    }
    chunk.push(line);
    if (!/^\s*\/\//.test(line)) open = Math.max(0, open + depth(line.replace(/=>/g, '')));
  }
  if (chunk.length) chunks.push(chunk);
  for (const lines of chunks) {
    const code = lines.filter((l) => !/^\s*\/\//.test(l));
    if (!code.length || /^import\b/.test(code[0])) continue;
    const m = DECLARATION.exec(code[0]);
    const kind = m?.[1] ?? 'export';
    const name = m?.[2] ?? code[0].trim();
    const key = `${kind} ${name}`;
    const text = code.join('\n');
    const previous = out.get(key);
    if (previous) {
      previous.text += `\n${text}`;
      continue;
    }
    const declaration: Declaration = { kind, name, text, header: code[0] };
    if ((kind === 'class' || kind === 'interface') && code[0].trimEnd().endsWith('{'))
      declaration.members = parseMembers(code.slice(1, -1));
    out.set(key, declaration);
  }
  return out;
}

/** How one report changed: what breaks users, what only adds. */
export interface ReportChange {
  breaking: string[];
  additive: string[];
}

/** Compares two reports' declarations (see the module doc for what counts as breaking). */
export function diffReport(before: string, after: string): ReportChange {
  const old = normalized(parseReport(before));
  const now = normalized(parseReport(after));
  const breaking: string[] = [];
  const additive: string[] = [];
  for (const [key, d] of old) {
    const n = now.get(key);
    if (!n) {
      breaking.push(`removed: ${key}`);
      continue;
    }
    if (n.text === d.text) continue;
    if (d.members && n.members && n.header === d.header) {
      for (const [member, text] of d.members) {
        const next = n.members.get(member);
        if (next === undefined) breaking.push(`removed: ${key} member ${member}`);
        else if (next !== text) breaking.push(`changed: ${key} member ${member}: ${oneLine(text)} → ${oneLine(next)}`);
      }
      for (const [member, text] of n.members) {
        if (d.members.has(member)) continue;
        const optional = /^\s*(?:(?:readonly|static|protected|abstract|get|set)\s+)*[\w$#"'[\]]+\?/.test(text);
        if (d.kind === 'interface' && !optional)
          breaking.push(
            `added required member: ${key} member ${member} (code that builds or implements it must supply it)`,
          );
        else additive.push(`added: ${key} member ${member}`);
      }
      continue;
    }
    breaking.push(`changed: ${key}: ${oneLine(d.text)} → ${oneLine(n.text)}`);
  }
  for (const key of now.keys()) if (!old.has(key)) additive.push(`added: ${key}`);
  return { breaking, additive };
}

/**
 * The declarations with API Extractor's suffixes of unexported types made unique (`Obj_3`, the
 * third unexported `Obj` it met) written `Obj_#`: a suffix renumbered because another `Obj`
 * appeared elsewhere is no change of the API. Names the report declares keep their suffix.
 */
function normalized(declarations: Map<string, Declaration>): Map<string, Declaration> {
  const declared = new Set([...declarations.values()].map((d) => d.name));
  const norm = (text: string) =>
    text.replace(/\b([A-Za-z_$][\w$]*?)_\d+\b/g, (name, base: string) => (declared.has(name) ? name : `${base}_#`));
  for (const d of declarations.values()) {
    d.text = norm(d.text);
    d.header = norm(d.header);
    if (d.members) d.members = new Map([...d.members].map(([k, v]) => [k, norm(v)]));
  }
  return declarations;
}

const oneLine = (text: string) => {
  const s = text.replace(/\s+/g, ' ').trim();
  return s.length > 160 ? `${s.slice(0, 157)}…` : s;
};

/** What differs between the committed reports (`dir`) and fresh ones: one paragraph per report. */
export function compareReports(dir: string, fresh: ReadonlyMap<string, string>): string[] {
  const problems: string[] = [];
  const committed = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.api.md')) : [];
  const shown = relative(ROOT, dir);
  for (const [file, text] of [...fresh].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const subpaths = /^## API report of (.*)$/m.exec(text)?.[1] ?? file;
    if (!committed.includes(file)) {
      problems.push(`${shown}/${file} is missing: ${subpaths} has no API report (a new public entry point)`);
      continue;
    }
    const before = readFileSync(join(dir, file), 'utf8');
    if (before === text) continue;
    const { breaking, additive } = diffReport(before, text);
    const verdict = breaking.length ? 'BREAKING' : additive.length ? 'additive' : 'changed (no declaration differs)';
    problems.push(
      [
        `${shown}/${file} (${subpaths}) is out of date: ${verdict}`,
        ...breaking.map((b) => `  breaking — ${b}`),
        ...additive.map((a) => `  additive — ${a}`),
      ].join('\n'),
    );
  }
  for (const file of committed)
    if (!fresh.has(file))
      problems.push(`${shown}/${file} reports an entry point the package no longer exports: BREAKING`);
  return problems;
}

/** The advice printed under the problems. */
export const UPDATE_ADVICE =
  'Run `npm run api:update` and commit api/runtime/ with the change; a breaking change needs a major version (VERSIONING.md).';

/** Builds the runtime's declarations (scripts/build.ts) into .cache/api-report/, returns the package folder. */
export async function buildForReports(): Promise<string> {
  const { buildRuntime } = await import('./build.js');
  const base = join(ROOT, '.cache', 'api-report');
  rmSync(base, { recursive: true, force: true });
  const out = join(base, 'runtime');
  buildRuntime(out);
  return out;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const check = process.argv.includes('--check');
  const built = await buildForReports();
  const fresh = await extractReports(built);
  if (check) {
    const problems = compareReports(REPORT_DIR, fresh);
    if (problems.length) {
      console.error(`${problems.join('\n')}\n${UPDATE_ADVICE}`);
      process.exit(1);
    }
    console.log(`api reports: ${fresh.size} up to date`);
  } else {
    const before = existsSync(REPORT_DIR) ? readdirSync(REPORT_DIR).filter((f) => f.endsWith('.api.md')) : [];
    const problems = compareReports(REPORT_DIR, fresh);
    mkdirSync(REPORT_DIR, { recursive: true });
    for (const f of before) if (!fresh.has(f)) rmSync(join(REPORT_DIR, f));
    for (const [f, text] of fresh) writeFileSync(join(REPORT_DIR, f), text);
    for (const p of problems) console.log(p);
    console.log(`api reports: ${fresh.size} written to ${relative(ROOT, REPORT_DIR)}/ (${problems.length} changed)`);
  }
}
