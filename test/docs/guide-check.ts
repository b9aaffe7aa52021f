/**
 * The checks of the feature guide (docs/guide/), as functions of their inputs so that
 * test/docs/guide.test.ts can prove each one fails on bad input:
 * - a page `docs/guide/<slug>.md` has an example `examples/guide/<slug>.ts` holding every ```ts
 *   block of the page verbatim (it or a companion file `<slug>.<part>.ts`, such as the server
 *   it spawns), once the example's `../../generated/` is written `./mcp/` (where a
 *   user's project generates to);
 * - the index `docs/guide/README.md` lists every page, and every page it lists exists;
 * - every relative link of a page names a file (and its `#anchor` a heading of that file, when it
 *   is markdown); every spec link `https://modelcontextprotocol.io/specification/<rev>/<path>`
 *   names a page of `$MCP_SPEC_DIR/docs/<rev>/` (`<path>.mdx`, `.md`, `<path>/index.mdx`, `/index.md`);
 * - an example exits 0 within its time limit and prints `ok <slug>` as its last stdout line.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import ts from 'typescript';

/** How examples import the generated code, and how the pages write it (a user's `src/mcp`). */
export const EXAMPLE_GENERATED = '../../generated/';
export const PAGE_GENERATED = './mcp/';

/** The index page of the guide: not a feature page. */
export const INDEX = 'README.md';

/** Slugs of the feature pages of `dir` (every `*.md` but README.md), in code-unit order. */
export function guideSlugs(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.md') && f !== INDEX)
    .map((f) => f.slice(0, -3))
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** A fenced code block: its info string's language and its text (up to, not including, the closing fence). */
export interface Fence {
  lang: string;
  text: string;
}

/** The line that closes a fence opened by `fence`: the same character, at least as many times. */
const closingFence = (fence: string) => new RegExp(`^ {0,3}\\${fence[0]}{${fence.length},}\\s*$`);

/** Fenced code blocks (``` or ~~~, three or more) of a markdown page, in order. */
export function fences(markdown: string): Fence[] {
  const out: Fence[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^ {0,3}(`{3,}|~{3,})\s*([^\s`]*)/.exec(lines[i]);
    if (!open) continue;
    const [, fence, lang] = open;
    const body: string[] = [];
    let j = i + 1;
    const close = closingFence(fence);
    while (j < lines.length && !close.test(lines[j])) body.push(lines[j++]);
    out.push({ lang, text: body.length ? `${body.join('\n')}\n` : '' });
    i = j;
  }
  return out;
}

/** The ```ts (or ```typescript) blocks of a page. */
export function tsBlocks(markdown: string): string[] {
  return fences(markdown)
    .filter((f) => f.lang === 'ts' || f.lang === 'typescript')
    .map((f) => f.text);
}

/**
 * Syntax errors of page `slug`'s ts blocks read in order as one program (a reader who copies
 * them gets a file that parses: no `try {` or function left open): `<slug>.md: <message> (line
 * N of its ts blocks)` each, at most three; [] when they parse.
 */
export function snippetSyntaxProblems(slug: string, markdown: string): string[] {
  const text = tsBlocks(markdown).join('\n');
  if (text === '') return [];
  const file = ts.createSourceFile(`${slug}.ts`, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const diagnostics = (file as unknown as { parseDiagnostics: readonly ts.Diagnostic[] }).parseDiagnostics;
  return diagnostics
    .slice(0, 3)
    .map(
      (d) =>
        `${slug}.md: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')} (line ${file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1} of its ts blocks)`,
    );
}

/**
 * The source of page `slug`'s example in `dir`: `<slug>.ts`, followed by its companion files
 * `<slug>.<part>.ts` (a server it spawns, a worker), each separated by a NUL line so that no
 * block matches across two files; undefined when `<slug>.ts` does not exist.
 */
export function exampleSource(dir: string, slug: string): string | undefined {
  const main = join(dir, `${slug}.ts`);
  if (!existsSync(main)) return undefined;
  const parts = readdirSync(dir)
    .filter((f) => f.startsWith(`${slug}.`) && f.endsWith('.ts') && f !== `${slug}.ts`)
    .sort();
  return [main, ...parts.map((f) => join(dir, f))].map((f) => readFileSync(f, 'utf8')).join('\n\0\n');
}

/** The example's source as a page shows it: the generated code imported from `./mcp/`. */
export function asPageSource(example: string): string {
  return example.replaceAll(EXAMPLE_GENERATED, PAGE_GENERATED);
}

/**
 * What is wrong with page `slug` and its example (`example`: the source of
 * examples/guide/<slug>.ts, undefined when there is none): no example, no ts block, or a block
 * the example does not hold verbatim (after {@link asPageSource}). Empty when all is well.
 */
export function pageProblems(slug: string, markdown: string, example: string | undefined): string[] {
  if (example === undefined) return [`${slug}.md: no example examples/guide/${slug}.ts`];
  const blocks = tsBlocks(markdown);
  if (!blocks.length) return [`${slug}.md: no \`\`\`ts block (the page shows its example)`];
  const source = asPageSource(example);
  const problems: string[] = [];
  blocks.forEach((block, i) => {
    if (heldIndented(source, block)) return;
    const lines = block.split('\n');
    const first = lines.findIndex((line) => line && !source.includes(line));
    problems.push(
      `${slug}.md: ts block ${i + 1} is not in examples/guide/${slug}.ts (or ${slug}.*.ts) verbatim${first >= 0 ? ` (its line ${first + 1} is nowhere in it: ${JSON.stringify(lines[first])})` : ' (its lines are, not in this order)'}`,
    );
  });
  return problems;
}

/**
 * Whether `source` holds `block` verbatim, or with every non-empty line of it indented by the same
 * number of spaces (a page shows a block of the example's `try { … }` at the left margin).
 */
function heldIndented(source: string, block: string): boolean {
  const lines = block.split('\n');
  for (let indent = 0; indent <= 12; indent += 2) {
    const pad = ' '.repeat(indent);
    if (source.includes(lines.map((line) => (line ? pad + line : line)).join('\n'))) return true;
  }
  return false;
}

/** Markdown text with code (fenced blocks, inline code spans) blanked out, so links inside code are not links. */
function prose(markdown: string, spans = true): string {
  const lines = markdown.split('\n');
  const out: string[] = [];
  let close: RegExp | undefined;
  for (const line of lines) {
    if (close) {
      if (close.test(line)) close = undefined;
      out.push('');
      continue;
    }
    const m = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (m) {
      close = closingFence(m[1]);
      out.push('');
      continue;
    }
    out.push(spans ? line.replace(/(`+)[\s\S]*?\1/g, '') : line);
  }
  return out.join('\n');
}

/**
 * Targets of the links and images of a page, code excluded: inline (`[text](target "title")`)
 * and the definitions of reference links (`[label]: target`).
 */
export function links(markdown: string): string[] {
  const text = prose(markdown);
  const inline = [...text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]);
  const defined = [...text.matchAll(/^ {0,3}\[[^\]]+\]:\s*<?([^\s>]+)>?/gm)].map((m) => m[1]);
  return [...inline, ...defined];
}

/**
 * The anchors of a page's headings, as GitHub makes them: lower case, characters other than
 * letters, digits, `-`, `_` and spaces dropped, spaces turned into `-`; a repeated anchor gets
 * `-1`, `-2`, ….
 */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const counts = new Map<string, number>();
  for (const line of prose(markdown, false).split('\n')) {
    const m = /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const text = m[1].replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/<[^>]+>/g, '');
    const base = text
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = counts.get(base) ?? 0;
    counts.set(base, n + 1);
    anchors.add(n ? `${base}-${n}` : base);
  }
  return anchors;
}

const SPEC_LINK = /^https:\/\/modelcontextprotocol\.io\/specification\/([^/#?]+)\/?([^#?]*)/;

/**
 * What is wrong with the links of one page (`file`: its path, for resolving; `markdown`: its
 * text): relative targets that name no file, anchors that name no heading (of a markdown
 * target, or of the page itself for `#…`), site-absolute paths, and spec links naming no page
 * under `<specDir>/docs/<rev>/`. Other absolute links are not followed. Empty when all resolve.
 */
export function linkProblems(file: string, markdown: string, specDir: string): string[] {
  const problems: string[] = [];
  const name = file.split(/[\\/]/).pop();
  for (const href of links(markdown)) {
    const spec = SPEC_LINK.exec(href);
    if (spec) {
      const [, rev, path] = spec;
      const base = join(specDir, 'docs', rev, path.replace(/\/$/, ''));
      const found =
        !path.split('/').includes('..') &&
        ['.mdx', '.md', '/index.mdx', '/index.md'].some((ext) => existsSync(base + ext));
      if (!found)
        problems.push(`${name}: ${href}: no spec page ${rev}/${path || 'index'} under ${join(specDir, 'docs')}`);
      continue;
    }
    if (/^[a-z][a-z0-9+.-]*:/i.test(href)) continue;
    if (href.startsWith('/')) {
      problems.push(`${name}: ${href}: a site-absolute path (write it relative to the page)`);
      continue;
    }
    const hash = href.indexOf('#');
    const path = hash < 0 ? href : href.slice(0, hash);
    const anchor = hash < 0 ? undefined : decodeURIComponent(href.slice(hash + 1));
    const target = path ? resolve(dirname(file), decodeURIComponent(path)) : file;
    if (path && !existsSync(target)) {
      problems.push(`${name}: ${href}: no such file ${target}`);
      continue;
    }
    if (anchor !== undefined && target.endsWith('.md') && (target === file || statSync(target).isFile())) {
      const text = target === file ? markdown : readFileSync(target, 'utf8');
      if (!headingAnchors(text).has(anchor)) problems.push(`${name}: ${href}: no heading #${anchor} in ${target}`);
    }
  }
  return problems;
}

/** The slugs an index page lists: its links to `<slug>.md` (or `./<slug>.md`) beside it. */
export function indexedSlugs(indexMarkdown: string): string[] {
  const out: string[] = [];
  for (const href of links(indexMarkdown)) {
    const m = /^(?:\.\/)?([a-z0-9][a-z0-9-]*)\.md(?:#.*)?$/.exec(href);
    if (m && m[1] !== 'README' && !out.includes(m[1])) out.push(m[1]);
  }
  return out;
}

/** Pages the index does not list (`unlisted`), and pages it lists that do not exist (`missing`). */
export function indexProblems(
  indexMarkdown: string,
  slugs: readonly string[],
): { unlisted: string[]; missing: string[] } {
  const listed = indexedSlugs(indexMarkdown);
  return { unlisted: slugs.filter((s) => !listed.includes(s)), missing: listed.filter((s) => !slugs.includes(s)) };
}

/** How one run of an example ended. */
export interface ExampleRun {
  slug: string;
  file: string;
  /** Exit code; null when a signal (the timeout's SIGTERM included) ended it. */
  code: number | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
  ms: number;
}

/** What is wrong with a run (undefined: it exited 0 within its time and printed `ok <slug>` last). */
export function runProblem(run: ExampleRun): string | undefined {
  const lines = run.stdout
    .split('\n')
    .map((l) => l.trimEnd())
    .filter((l) => l !== '');
  const last = lines[lines.length - 1];
  const tail = () =>
    `\n--- stdout (end)\n${lines.slice(-5).join('\n')}\n--- stderr (start)\n${run.stderr.split('\n').slice(0, 30).join('\n')}`;
  if (run.timedOut) return `${run.slug}: did not finish within its time limit (${run.ms.toFixed(0)} ms)${tail()}`;
  if (run.code !== 0) return `${run.slug}: exit ${run.code ?? 'by signal'}${tail()}`;
  if (last !== `ok ${run.slug}`)
    return `${run.slug}: last stdout line is ${JSON.stringify(last ?? '')}, not "ok ${run.slug}"${tail()}`;
  return undefined;
}

/**
 * Runs each example (`node --import tsx <file>`, cwd `cwd`, environment `env`, default this
 * process's), at most `concurrency` at a time, each killed after `timeoutMs`; resolves with
 * every run, in the order given.
 */
export async function runExamples(
  examples: ReadonlyArray<{ slug: string; file: string }>,
  options: { cwd: string; concurrency?: number; timeoutMs?: number; env?: NodeJS.ProcessEnv },
): Promise<ExampleRun[]> {
  const results: ExampleRun[] = new Array(examples.length);
  const timeout = options.timeoutMs ?? 30_000;
  let next = 0;
  const worker = async () => {
    while (next < examples.length) {
      const i = next++;
      const { slug, file } = examples[i];
      const t0 = performance.now();
      results[i] = await new Promise<ExampleRun>((done) => {
        execFile(
          process.execPath,
          ['--import', 'tsx', file],
          { cwd: options.cwd, env: options.env, timeout, killSignal: 'SIGKILL', maxBuffer: 16 << 20, encoding: 'utf8' },
          (error, stdout, stderr) => {
            const e = error as
              | (NodeJS.ErrnoException & { code?: number | string; killed?: boolean; signal?: string })
              | null;
            const code = e ? (typeof e.code === 'number' ? e.code : null) : 0;
            done({ slug, file, code, timedOut: !!e?.killed, stdout, stderr, ms: performance.now() - t0 });
          },
        );
      });
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(options.concurrency ?? 2, examples.length)) }, worker));
  return results;
}

/** Calls that end something a program holds open: a client, transport, handler or server, a socket, a child process. */
const TEARDOWN_CALLS = new Set(['close', 'end', 'closeAllConnections', 'kill', 'stop', 'terminate']);

/** Whether `node` holds a call of a function or method named in {@link TEARDOWN_CALLS}. */
function callsTeardown(node: ts.Node): boolean {
  if (ts.isCallExpression(node)) {
    const callee = node.expression;
    const name = ts.isIdentifier(callee)
      ? callee.text
      : ts.isPropertyAccessExpression(callee)
        ? callee.name.text
        : undefined;
    if (name !== undefined && TEARDOWN_CALLS.has(name)) return true;
  }
  return ts.forEachChild(node, callsTeardown) ?? false;
}

/**
 * A statement that only checks, shows or awaits something (`assert…(…)`, `console.log(…)`,
 * `await exited;`): passed over when looking for the teardown.
 */
function checksOnly(statement: ts.Statement, file: ts.SourceFile): boolean {
  if (!ts.isExpressionStatement(statement)) return false;
  let e = statement.expression;
  if (ts.isAwaitExpression(e)) e = e.expression;
  if (ts.isIdentifier(e)) return true;
  if (!ts.isCallExpression(e)) return false;
  const callee = e.expression.getText(file);
  return /^assert\b/.test(callee) || /^console\.(log|error)$/.test(callee);
}

/**
 * The teardown statements at the end of `statements` (a file's, a block's), last first: walking
 * back, statements that call close/end/… (a `for` closing each server, a `Promise.all` of
 * closes) are taken, checks and prints are passed over, a `try` gives its `finally` block's
 * teardown and its `try` block's, and any other statement ends the walk.
 */
function trailingTeardown(statements: readonly ts.Statement[], file: ts.SourceFile): ts.Statement[] {
  const out: ts.Statement[] = [];
  for (let i = statements.length - 1; i >= 0; i--) {
    const s = statements[i];
    if (ts.isTryStatement(s)) {
      out.push(...trailingTeardown(s.finallyBlock?.statements ?? [], file));
      out.push(...trailingTeardown(s.tryBlock.statements, file));
      continue;
    }
    if (checksOnly(s, file)) continue;
    if (!callsTeardown(s)) break;
    out.push(s);
  }
  return out;
}

/** The names `node` declares anywhere in it (variables, bindings, functions, classes, imports, parameters). */
function declaredNames(node: ts.Node, out = new Set<string>()): Set<string> {
  const parent = node.parent;
  if (
    ts.isIdentifier(node) &&
    parent !== undefined &&
    (ts.isVariableDeclaration(parent) ||
      ts.isBindingElement(parent) ||
      ts.isFunctionDeclaration(parent) ||
      ts.isClassDeclaration(parent) ||
      ts.isImportSpecifier(parent) ||
      ts.isImportClause(parent) ||
      ts.isNamespaceImport(parent) ||
      ts.isParameter(parent)) &&
    parent.name === node
  )
    out.add(node.text);
  ts.forEachChild(node, (child) => void declaredNames(child, out));
  return out;
}

/** The names `node` reads (identifiers that are not a property name or a declaration's own name). */
function usedNames(node: ts.Node, out = new Set<string>()): Set<string> {
  if (ts.isIdentifier(node) && !(ts.isPropertyAccessExpression(node.parent) && node.parent.name === node))
    out.add(node.text);
  ts.forEachChild(node, (child) => void usedNames(child, out));
  return out;
}

/**
 * The teardown lines of an example (the source of `examples/guide/<slug>.ts`, not its
 * companions): each line, trimmed, of the teardown statements before its `ok <slug>` line (see
 * {@link trailingTeardown}), in file order. What a page's code needs for the program to exit.
 * With `pageNames` (the names a page declares), only the statements closing what the page
 * opened: a statement reading a name the example declares outside it and the page does not is
 * left out (the page never created that object, so it has nothing of it to close).
 */
export function teardownLines(example: string, pageNames?: ReadonlySet<string>): string[] {
  const file = ts.createSourceFile('example.ts', example, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const exampleNames = declaredNames(file);
  const opensOnPage = (s: ts.Statement) => {
    if (pageNames === undefined) return true;
    const own = declaredNames(s);
    return [...usedNames(s)].every((n) => own.has(n) || !exampleNames.has(n) || pageNames.has(n));
  };
  return trailingTeardown(file.statements, file)
    .reverse()
    .filter(opensOnPage)
    .flatMap((s) => s.getText(file).split('\n'))
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('//'));
}

/** The names page `markdown`'s ts blocks declare, read as one file. */
export function pageDeclaredNames(markdown: string): Set<string> {
  const text = tsBlocks(markdown).join('\n');
  return declaredNames(ts.createSourceFile('page.ts', text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS));
}

/**
 * The teardown lines of page `slug`'s example (`example`: examples/guide/<slug>.ts alone, as
 * {@link asPageSource} writes it) that close what the page opened (see {@link teardownLines}) and
 * that no line of the page's ts blocks holds (trimmed, a trailing `// comment` aside): the
 * page's code, saved as one file, would not exit. `<slug>.md: …` each; [] when all are there.
 */
export function teardownProblems(slug: string, markdown: string, example: string): string[] {
  // a page line may carry a comment after the statement (`receiver.close(); // aborts …`)
  const shown = new Set(
    tsBlocks(markdown)
      .join('\n')
      .split('\n')
      .flatMap((line) => [line.trim(), line.replace(/\s+\/\/ [^'"`]*$/, '').trim()]),
  );
  return teardownLines(asPageSource(example), pageDeclaredNames(markdown))
    .filter((line) => !shown.has(line))
    .map((line) => `${slug}.md: the example's teardown line ${JSON.stringify(line)} is not on the page`);
}

/**
 * The lines of a Go or Python guide example (`source`) that close or cancel what it opened
 * (`defer client.Close()`, `defer cancel()`, `await client.close()`), trimmed, comments left out.
 */
export function closeLines(source: string): string[] {
  return source
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => !/^(\/\/|#)/.test(line) && /\b(Close|close|aclose|cancel|kill|terminate|Shutdown)\(/.test(line));
}

/**
 * The close lines ({@link closeLines}) of `file` (`source`, a Go or Python example) that no line of
 * the page's ```<lang> blocks holds (trimmed): `<page>: …` each; [] when all are there.
 */
export function closeLineProblems(
  page: string,
  markdown: string,
  lang: string,
  file: string,
  source: string,
): string[] {
  const shown = new Set(
    fences(markdown)
      .filter((f) => f.lang === lang)
      .flatMap((f) => f.text.split('\n').map((line) => line.trim())),
  );
  return closeLines(source)
    .filter((line) => !shown.has(line))
    .map((line) => `${page}: ${file}'s line ${JSON.stringify(line)} is in no \`\`\`${lang} block of the page`);
}
