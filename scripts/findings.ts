/**
 * docs/findings.md: what generating an MCP SDK from the specification showed, measured from this
 * tree and its history, not typed by hand:
 *
 * - per revision, the lines generated for it (TypeScript: generated/<rev>/ made by `npm run
 *   generate`; Python and Go: the SDK emitters' output for the revision's model.json) beside the
 *   hand-written lines every revision shares (each language's runtime, the generator);
 * - the spec clarity issues the generator surfaces: the schema.json ↔ schema.ts disagreements it
 *   warns about (model.json `warnings`), the facts the schema does not state and the generator
 *   takes from the spec pages (generator/overrides.ts), and the error-id rule;
 * - what the stateless revision (2026-07-28, and the draft) cost the runtime, from `git log`
 *   up to a fixed commit, so the figures do not move with later work.
 *
 *   npm run findings              rewrites docs/findings.md
 *   npm run findings -- --check   exits 1 when docs/findings.md differs from what it would write
 *
 * test/docs/findings.test.ts fails when docs/findings.md is out of date (a line count more than
 * 10 % off, a share more than 5 points, any other text changed). Line counts are of
 * non-blank lines, rounded to the nearest 100 so that small edits elsewhere do not move them;
 * the output holds no date, timing or machine path.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { emitGoSdk } from '../generator/emit/go/sdk.js';
import { emitPythonSdk } from '../generator/emit/python/sdk.js';
import type { ProtocolModel } from '../generator/model.js';
import { CAPABILITY_OVERRIDES, RESULT_OVERRIDES } from '../generator/overrides.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
export const FINDINGS_FILE = join(ROOT, 'docs', 'findings.md');

/**
 * The last commit the history section reads: fixed, so the figures are the same on every clone
 * made after it. Moving it forward is a deliberate edit (and a regenerated docs/findings.md).
 */
export const HISTORY_END = '1f701d1152045f7b015825fc78d8ed84f2fe162e';

/** Subjects of runtime commits that served the stateless revision (2026-07-28 and the draft). */
const STATELESS_WORK =
  /2026-07-28|\bdraft\b|stateless|dual-era|MRTR|multi round-trip|requestState|input[_ -]required|SEP-2663|tasks extension|subscriptions\/listen|listen stream|server\/discover/i;

const nonBlank = (text: string): number => text.split('\n').filter((l) => l.trim() !== '').length;
const round100 = (n: number): number => Math.round(n / 100) * 100;
const fmt = (n: number): string => round100(n).toLocaleString('en-US');

function walk(dir: string, keep: (path: string) => boolean): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    if (name === 'node_modules' || name === '__pycache__' || name.startsWith('.')) continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...walk(p, keep));
    else if (keep(p)) out.push(p);
  }
  return out;
}

function linesOf(files: string[]): number {
  return files.reduce((n, f) => n + nonBlank(readFileSync(f, 'utf8')), 0);
}

/** Non-blank lines of the hand-written parts, by part. */
export function handWritten(root = ROOT): Array<{ part: string; where: string; lines: number }> {
  const under = (p: string) => join(root, p);
  const ts = (p: string) => /\.(ts|mts)$/.test(p) && !p.endsWith('.d.ts') && !p.endsWith('.test.ts');
  const hbs = (p: string) => p.endsWith('.hbs');
  const emitter = (lang: string) => linesOf(walk(under(`generator/emit/${lang}`), (p) => ts(p) || hbs(p)));
  const generatorAll = linesOf(walk(under('generator'), (p) => ts(p) || hbs(p)));
  const perLanguage = emitter('go') + emitter('python') + emitter('rust');
  return [
    { part: 'TypeScript runtime', where: 'runtime/', lines: linesOf(walk(under('runtime'), ts)) },
    {
      part: 'Python runtime',
      where: 'python/runtime/src/',
      lines: linesOf(walk(under('python/runtime/src'), (p) => p.endsWith('.py'))),
    },
    {
      part: 'Go runtime',
      where: 'go/runtime/',
      lines: linesOf(walk(under('go/runtime'), (p) => p.endsWith('.go') && !p.endsWith('_test.go'))),
    },
    {
      part: 'generator: ingest, model, TypeScript emitters and templates',
      where: 'generator/ (but emit/go, emit/python, emit/rust)',
      lines: generatorAll - perLanguage,
    },
    { part: 'generator: Python emitters', where: 'generator/emit/python/', lines: emitter('python') },
    { part: 'generator: Go emitters', where: 'generator/emit/go/', lines: emitter('go') },
  ];
}

/** The revisions `npm run generate` made, oldest first, with their models. */
export function revisions(root = ROOT): Array<{ rev: string; model: ProtocolModel }> {
  const gen = join(root, 'generated');
  if (!existsSync(gen)) throw new Error('generated/ is missing: run npm run generate first');
  return readdirSync(gen)
    .filter((r) => existsSync(join(gen, r, 'model.json')))
    .sort()
    .map((rev) => ({ rev, model: JSON.parse(readFileSync(join(gen, rev, 'model.json'), 'utf8')) as ProtocolModel }));
}

/** Non-blank lines generated for one revision, per language. */
export function generatedLines(rev: string, model: ProtocolModel, root = ROOT): { ts: number; py: number; go: number } {
  const dir = join(root, 'generated', rev);
  const ts = linesOf(walk(dir, (p) => /\.(ts|js)$/.test(p)));
  const sum = (files: Map<string, string>) => [...files.values()].reduce((n, t) => n + nonBlank(t), 0);
  return { ts, py: sum(emitPythonSdk(model)), go: sum(emitGoSdk(model)) };
}

/** One runtime commit of the history section. */
interface RuntimeCommit {
  subject: string;
  added: number;
  deleted: number;
}

/** Commits up to HISTORY_END that changed runtime/ source (tests and docs left out), oldest first. */
export function runtimeHistory(root = ROOT): RuntimeCommit[] {
  let log: string;
  try {
    log = execFileSync(
      'git',
      ['log', '--reverse', '--no-merges', '--numstat', '--format=@@%s', HISTORY_END, '--', 'runtime'],
      { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20 },
    );
  } catch (e) {
    throw new Error(
      `git log ${HISTORY_END.slice(0, 7)} failed (${(e as Error).message.split('\n')[0]}): docs/findings.md needs the project's history (a full clone, not a shallow one)`,
    );
  }
  const out: RuntimeCommit[] = [];
  for (const chunk of log.split('@@').slice(1)) {
    const [subject, ...rest] = chunk.split('\n');
    let added = 0;
    let deleted = 0;
    for (const line of rest) {
      const m = /^(\d+)\t(\d+)\t(.+)$/.exec(line);
      if (!m || !/\.(ts|mts)$/.test(m[3]) || m[3].endsWith('.test.ts')) continue;
      added += Number(m[1]);
      deleted += Number(m[2]);
    }
    if (added + deleted > 0) out.push({ subject, added, deleted });
  }
  return out;
}

/** String literals naming a revision in the TypeScript runtime's code (comments left out). */
export function revisionLiterals(root = ROOT): string[] {
  const found: string[] = [];
  for (const f of walk(join(root, 'runtime'), (p) => p.endsWith('.ts') && !p.endsWith('.d.ts'))) {
    const code = readFileSync(f, 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/(^|[^:])\/\/.*$/gm, '$1');
    for (const m of code.matchAll(/['"`](\d{4}-\d{2}-\d{2})['"`]/g)) found.push(`${relative(root, f)}: ${m[1]}`);
  }
  return found;
}

const ERROR_ID_RULE = `An error answering a request whose id can be read (a string or an integer) carries **that
id**, even when the rest of the request is invalid: \`{"jsonrpc":"2.0","id":5,"method":5}\` is answered
\`{"jsonrpc":"2.0","id":5,"error":{"code":-32600,"message":"Invalid Request: method must be a string"}}\`
(JSON-RPC 2.0 §5). An error whose id cannot be read (a line or body that is not JSON, a value that
is not an object, an id that is \`null\`, a fraction, a boolean or an object, a refusal before the
body is read) carries **no \`id\` member**:
\`{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error: …"}}\`.

- JSON-RPC 2.0 §5 asks for \`"id": null\` in that second case; the MCP schema's
  \`JSONRPCErrorResponse\` makes \`id\` optional (\`id?: RequestId\`) and \`RequestId\` is a string or
  an integer, never null. A \`null\` id is therefore not a valid MCP message: the official
  TypeScript SDK's schema (1.32) refuses it.
- The TypeScript, Python and Go runtimes follow both halves on every transport: stdio (parse
  errors, invalid requests, lines over the limit), Streamable HTTP (the refusals before a body is
  read, the -32700 and -32600 answers of the session, stateless and dual-era endpoints, node:http's
  client errors) and the HTTP+SSE endpoint. One input set, test/fixtures/jsonrpc-bad-lines.json
  (not JSON, truncated JSON, arrays of garbage, a readable id with a bad method, version or params,
  ids that are objects, booleans, fractions or null), is run by each runtime's tests: on stdio each
  bad line gets exactly one answer, in the order of the lines (the answers without id can only be
  matched by their order), and the requests around them are served.
- What it receives, it reads either way: an error with \`id: null\` is taken as one with no id.
- The fuzzer (\`npm run fuzz\`, its short form in \`npm test\`) counts an \`id: null\` answer as a
  wrong answer, so the rule holds on every path it reaches.
- Recommendation for the specification: state the rule in basic/index (JSON-RPC messages), since
  the schema and JSON-RPC 2.0 disagree and SDKs differ.`;

/** docs/findings.md's text. */
export function renderFindings(root = ROOT): string {
  const revs = revisions(root);
  const hand = handWritten(root);
  const handTotal = (part: string) => hand.find((h) => h.part === part)!.lines;
  const rows = revs.map(({ rev, model }) => ({ rev, ...generatedLines(rev, model, root) }));
  // to the nearest 5 %, so that a change of a few hundred lines elsewhere does not move it
  const share = (gen: number, handLines: number) => `~${5 * Math.round((20 * gen) / (gen + handLines))} %`;
  const history = runtimeHistory(root);
  const stateless = history.filter((c) => STATELESS_WORK.test(c.subject));
  const tasks = history.filter((c) => !STATELESS_WORK.test(c.subject) && /\btasks?\b/i.test(c.subject));
  const sum = (cs: RuntimeCommit[], k: 'added' | 'deleted') => cs.reduce((n, c) => n + c[k], 0);
  const statelessDirs = ['runtime/stateless', 'runtime/transport/http/stateless'];
  const statelessNow = linesOf(
    statelessDirs.flatMap((d) => walk(join(root, d), (p) => p.endsWith('.ts') && !p.endsWith('.test.ts'))),
  );
  const literals = revisionLiterals(root);

  const out: string[] = [];
  out.push('# Generation findings');
  out.push('');
  out.push(
    '<!-- Made by `npm run findings` (scripts/findings.ts); `npm test` fails when it is out of date. Do not edit by hand. -->',
  );
  out.push('');
  out.push(
    'What generating an MCP SDK from the specification showed: which layers the schema can drive and which stay hand-written, where the specification is unclear, and what a new revision cost. Line counts are non-blank lines, rounded to the nearest 100.',
  );
  out.push('');
  out.push('## Generated and hand-written, per revision');
  out.push('');
  out.push(
    'Generated: what `mcpgen generate` writes for the revision (TypeScript: messages, validators, method maps, dispatch tables, the typed client and server, the apps extension where present) and what the Python and Go SDK emitters write from the same model. Hand-written: the runtime each language links against, shared by every revision.',
  );
  out.push('');
  out.push('| Revision | TypeScript generated | share | Python generated | share | Go generated | share |');
  out.push('| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const r of rows)
    out.push(
      `| ${r.rev} | ${fmt(r.ts)} | ${share(r.ts, handTotal('TypeScript runtime'))} | ${fmt(r.py)} | ${share(r.py, handTotal('Python runtime'))} | ${fmt(r.go)} | ${share(r.go, handTotal('Go runtime'))} |`,
    );
  out.push('');
  out.push(
    '"share": generated lines over generated plus the language\'s runtime, for one revision, to the nearest 5 %.',
  );
  out.push('');
  out.push('| Hand-written part | Where | Lines |');
  out.push('| --- | --- | ---: |');
  for (const h of hand) out.push(`| ${h.part} | \`${h.where}\` | ${fmt(h.lines)} |`);
  out.push('');
  out.push('### Which layers should be generated');
  out.push('');
  out.push(
    [
      '- **Deterministic codegen**: message types, validators, method maps (request → result, capability gates), dispatch tables, typed client methods and server handler interfaces. They follow from the schema alone, change with every revision and are byte-identical wherever they are made (`mcpgen check`).',
      '- **Hand-written runtime**: transports (stdio, Streamable HTTP of both eras, HTTP+SSE), the JSON-RPC engine (correlation, cancellation, progress, timeouts, bounds), sessions and negotiation, tasks, authorization. Their behaviour is in the spec pages, not the schema; they are written once per language and read the revision facts from the generated tables, so a revision of an existing era changes none of it.',
      '- **Neither, by hand per revision**: the few facts the schema does not state (below), kept in one table in the generator with the spec section that states each.',
    ].join('\n'),
  );
  out.push('');
  out.push('## Spec clarity issues');
  out.push('');
  out.push('### schema.json and schema.ts disagree');
  out.push('');
  out.push(
    'The generator reads both files of a revision and warns where they differ; it follows schema.ts, the source schema.json is made from. `mcpgen generate` counts them in one `note:` line; model.json lists them.',
  );
  out.push('');
  for (const { rev, model } of revs) {
    out.push(`- **${rev}**: ${model.warnings.length === 0 ? 'none' : `${model.warnings.length}`}`);
    // as code: a warning quotes schema text (`{@link …}`), which a docs renderer would read as markup
    for (const w of model.warnings) out.push(`  - ${w.includes('`') ? `\`\` ${w} \`\`` : `\`${w}\``}`);
  }
  out.push('');
  out.push('### Facts the schema does not state');
  out.push('');
  out.push(
    'The pairing of a request with its result is derived from the schema except for these (generator/overrides.ts):',
  );
  out.push('');
  out.push('| Method | Result | Revisions | Where the spec says it |');
  out.push('| --- | --- | --- | --- |');
  for (const o of RESULT_OVERRIDES)
    out.push(`| \`${o.method}\` | \`${o.result}\` | ${o.revisions?.join(', ') ?? 'all'} | ${o.why} |`);
  out.push('');
  out.push('Capability gates the method name does not spell:');
  out.push('');
  for (const [method, path] of Object.entries(CAPABILITY_OVERRIDES))
    out.push(`- \`${method}\` needs the server capability \`${path.join('.')}\` (server/resources, Subscriptions)`);
  out.push('');
  out.push('### The error-id rule');
  out.push('');
  out.push(ERROR_ID_RULE);
  out.push('');
  out.push('## What a revision bump cost the runtime');
  out.push('');
  out.push(
    `Measured from \`git log\` of \`runtime/\` (TypeScript sources, tests left out) up to commit ${HISTORY_END.slice(0, 7)}: ${history.length} commits changed the runtime, +${sum(history, 'added').toLocaleString('en-US')} / −${sum(history, 'deleted').toLocaleString('en-US')} lines.`,
  );
  out.push('');
  out.push(
    [
      `- **A new era (the stateless 2026-07-28 revision and the draft)**: ${stateless.length} of those commits name it (stateless HTTP, dual-era routing, multi round-trip requests, request state, the tasks extension, listen streams, server/discover), +${sum(stateless, 'added').toLocaleString('en-US')} / −${sum(stateless, 'deleted').toLocaleString('en-US')} lines, ${Math.round((100 * sum(stateless, 'added')) / Math.max(1, sum(history, 'added')))} % of all lines added to the runtime. The era's own modules (\`${statelessDirs.join('`, `')}\`) hold ${fmt(statelessNow)} lines today.`,
      `- **A new feature within an era** (tasks, new in 2025-11-25): ${tasks.length} commits name it, +${sum(tasks, 'added').toLocaleString('en-US')} / −${sum(tasks, 'deleted').toLocaleString('en-US')} lines; that revision's other changes to messages came with the generated code.`,
      `- **What stays at zero**: the runtime holds ${literals.length === 0 ? 'no revision literal' : `${literals.length} revision literals (${literals.join('; ')})`}: versions, HTTP facts, capability gates, error codes and log levels come from the generated tables. A revision that changes messages only is \`mcpgen pull\`, \`npm run generate\` and the release steps of VERSIONING.md, with no runtime change.`,
      '- So the next revision (expected around 2026-12-15) costs the runtime only the behaviour its spec pages add; the figures above are what a new era and a new feature cost.',
    ].join('\n'),
  );
  out.push('');
  out.push('## Reproduce');
  out.push('');
  out.push('```sh');
  out.push('npm ci && npm run generate');
  out.push('npm run findings            # rewrites docs/findings.md');
  out.push('npm run findings -- --check # exits 1 when it is out of date');
  out.push('```');
  out.push('');
  return out.join('\n');
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const text = renderFindings();
  if (process.argv.includes('--check')) {
    const now = existsSync(FINDINGS_FILE) ? readFileSync(FINDINGS_FILE, 'utf8') : '';
    if (now !== text) {
      console.error('docs/findings.md is out of date: run npm run findings');
      process.exit(1);
    }
    console.log('docs/findings.md is up to date');
  } else {
    writeFileSync(FINDINGS_FILE, text);
    console.log('wrote docs/findings.md');
  }
}
