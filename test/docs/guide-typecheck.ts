/**
 * The type check of the feature guide's pages as a reader saves them: page `<slug>.md`'s ```ts
 * blocks, in order, as ONE file of the user's project (the generated code imported from `./mcp/`,
 * the runtime as the package `@mcpgen/runtime`). Each page becomes a file beside its example
 * (examples/guide/, where `./mcp/` is `../../generated/`) that only the compiler sees, checked with
 * the project's tsconfig.json: a close naming an object the page never creates, a name used
 * before its declaration, a call with a wrong argument: each is an error here. A page that is
 * deliberately a set of fragments says so with the line {@link FRAGMENTS_MARKER}.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { EXAMPLE_GENERATED, PAGE_GENERATED, tsBlocks } from './guide-check.js';

/** The line a page carries when its ts blocks are fragments, not one program (few pages). */
export const FRAGMENTS_MARKER = '<!-- guide: fragments, not one file -->';

/** A page to check: its slug and markdown. */
export interface GuidePage {
  slug: string;
  markdown: string;
}

/**
 * The type errors of each page's ts blocks saved as one file: `<slug>.md: TS<code> <message>
 * (line N of its ts blocks)`, at most three a page; pages carrying {@link FRAGMENTS_MARKER} or
 * holding no ts block are skipped. `root` is the repository (its tsconfig.json and
 * examples/guide/); one compiler program checks every page.
 */
export function snippetTypeProblems(root: string, pages: readonly GuidePage[]): string[] {
  const configPath = join(root, 'tsconfig.json');
  const config = ts.readConfigFile(configPath, (p) => readFileSync(p, 'utf8'));
  const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, root, { noEmit: true }, configPath);
  const virtual = new Map<string, { slug: string; text: string }>();
  for (const { slug, markdown } of pages) {
    if (markdown.includes(FRAGMENTS_MARKER)) continue;
    const blocks = tsBlocks(markdown);
    if (blocks.length === 0) continue;
    // `export {}` keeps the file a module (top-level await, its own scope) when a page imports nothing
    const text = `${blocks.join('\n').replaceAll(PAGE_GENERATED, EXAMPLE_GENERATED)}\nexport {};\n`;
    virtual.set(join(root, 'examples', 'guide', `${slug}.page-as-one-file.ts`), { slug, text });
  }
  const host = ts.createCompilerHost(options, true);
  const { getSourceFile, fileExists, readFile } = host;
  host.fileExists = (f) => virtual.has(f) || fileExists.call(host, f);
  host.readFile = (f) => virtual.get(f)?.text ?? readFile.call(host, f);
  host.getSourceFile = (f, lang, ...rest) => {
    const v = virtual.get(f);
    return v
      ? ts.createSourceFile(f, v.text, lang, true, ts.ScriptKind.TS)
      : getSourceFile.call(host, f, lang, ...rest);
  };
  const program = ts.createProgram([...virtual.keys()], options, host);
  return [...virtual].flatMap(([file, { slug }]) => {
    const source = program.getSourceFile(file);
    if (!source) return [`${slug}.md: the compiler did not read its blocks`];
    const diagnostics = [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)];
    return diagnostics
      .slice(0, 3)
      .map(
        (d) =>
          `${slug}.md: TS${d.code} ${ts.flattenDiagnosticMessageText(d.messageText, ' ')} (line ${source.getLineAndCharacterOfPosition(d.start ?? 0).line + 1} of its ts blocks)`,
      );
  });
}
