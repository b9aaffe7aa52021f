/**
 * `npm run docs [-- <rev>… ] [--generated DIR] [--out DIR]`: typedoc HTML for each generated
 * revision (default: every folder of `generated/` holding an `index.ts`), from its `index.ts`,
 * into `docs-html/<rev>/`. Warnings count as errors: a revision whose docs log any warning or
 * error fails, and the run exits 1 after trying every revision.
 *
 * Each revision compiles on its own: a temporary tsconfig extends the project's and lists only
 * the revision's index.ts, so typedoc sees the revision and the runtime it imports, nothing else.
 * Source links are off (generated code is not committed).
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Application, type CommentDisplayPart, type Context, Converter, OptionDefaults } from 'typedoc';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

/**
 * JSON Schema keywords the spec's JSDoc carries as block tags (`@maxItems 100` in schema.ts),
 * kept in the generated types: known to typedoc so they render instead of warning.
 */
const SCHEMA_TAGS = [
  '@minItems', '@maxItems', '@uniqueItems', '@minLength', '@maxLength', '@pattern', '@format',
  '@minimum', '@maximum', '@exclusiveMinimum', '@exclusiveMaximum', '@multipleOf', '@minProperties', '@maxProperties',
] as const;

export interface DocsOptions {
  /** Folder holding `<rev>/index.ts` (default `generated`). */
  generated?: string;
  /** Output root; each revision goes to `<out>/<rev>` (default `docs-html`). */
  out?: string;
  log?: (line: string) => void;
}

export interface DocsResult {
  revision: string;
  out: string;
  ok: boolean;
  errors: number;
  warnings: number;
}

/** Generated revisions under `dir`: folders holding an index.ts, in code-unit order. */
export function generatedRevisions(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && existsSync(join(dir, e.name, 'index.ts')))
    .map((e) => e.name)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Builds the docs of one revision; never throws for a typedoc failure, reports it instead. */
export async function buildDocs(revision: string, options: DocsOptions = {}): Promise<DocsResult> {
  const generated = resolve(options.generated ?? join(ROOT, 'generated'));
  const out = resolve(options.out ?? join(ROOT, 'docs-html'), revision);
  const entry = join(generated, revision, 'index.ts');
  if (!existsSync(entry)) throw new Error(`${entry}: no generated revision ${revision} (run npm run generate)`);
  const tmp = mkdtempSync(join(tmpdir(), 'mcpgen-docs-'));
  try {
    const tsconfig = join(tmp, 'tsconfig.json');
    writeFileSync(
      tsconfig,
      JSON.stringify({
        extends: join(ROOT, 'tsconfig.json'),
        // the runtime's own dependencies (ajv, …) resolve from mcpgen's node_modules wherever the output is
        compilerOptions: { rootDir: '/', typeRoots: [join(ROOT, 'node_modules', '@types')], paths: { '*': [join(ROOT, 'node_modules', '*')] } },
        include: [],
        files: [entry],
      }),
    );
    const app = await Application.bootstrapWithPlugins({
      entryPoints: [entry],
      tsconfig,
      out,
      name: `MCP ${revision}`,
      readme: 'none',
      blockTags: [...OptionDefaults.blockTags, ...SCHEMA_TAGS],
      disableSources: true,
      excludePrivate: true,
      excludeInternal: true,
      treatWarningsAsErrors: true,
      // links into members of inline object types (`ClientCapabilities.sampling.tools`) go to
      // the nearest documented anchor (`sampling`): typedoc gives such members no page anchor
      validation: { notExported: true, invalidLink: true, invalidPath: true, rewrittenLink: false, notDocumented: false, unusedMergeModuleWith: true },
      githubPages: false,
      plugin: [],
    });
    // before the link resolver (priority -300)
    app.converter.on(Converter.EVENT_RESOLVE_END, (context: Context) => void repairFusedLinks(context), 100);
    const fail = (): DocsResult => ({ revision, out, ok: false, errors: app.logger.errorCount, warnings: app.logger.warningCount });
    if (app.logger.hasErrors() || app.logger.hasWarnings()) return fail();
    const project = await app.convert();
    if (!project || app.logger.hasErrors() || app.logger.hasWarnings()) return fail();
    app.validate(project);
    if (app.logger.hasErrors() || app.logger.hasWarnings() || app.logger.validationWarningCount) return fail();
    await app.generateOutputs(project);
    if (app.logger.hasErrors() || app.logger.hasWarnings()) return fail();
    return { revision, out, ok: true, errors: 0, warnings: 0 };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/**
 * `{@link CallToolRequesttools/call}`: how the descriptions of schema.json (2026-07-28, draft)
 * carry schema.ts's `{@link CallToolRequest | tools/call}`, the separator lost. Matched only
 * when the type is documented in the revision; any other broken link still warns.
 */
const FUSED_LINK = /^([A-Z][A-Za-z0-9]*?(?:Request|Notification|Result))([a-z][A-Za-z0-9_]*(?:\/[A-Za-z0-9_]+)+)$/;

/** Restores the separator of fused links before typedoc resolves them; returns how many. */
function repairFusedLinks(context: Context): number {
  const project = context.project;
  let repaired = 0;
  const fix = (parts: readonly CommentDisplayPart[]) => {
    for (const part of parts) {
      if (part.kind !== 'inline-tag' || part.tag !== '@link') continue;
      const m = FUSED_LINK.exec(part.text.trim());
      if (m && project.getChildByName(m[1])) {
        part.text = `${m[1]} | ${m[2]}`;
        repaired++;
      }
    }
  };
  for (const r of Object.values(project.reflections)) {
    if (!r.comment) continue;
    fix(r.comment.summary);
    for (const tag of r.comment.blockTags) fix(tag.content);
  }
  return repaired;
}

async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: { generated: { type: 'string' }, out: { type: 'string' }, rev: { type: 'string' } },
      allowPositionals: true,
      strict: true,
    });
  } catch (e) {
    console.error(`docs: ${(e as Error).message}\nusage: npm run docs -- [<rev>…|--rev <rev>[,<rev>…]] [--generated DIR] [--out DIR]`);
    return 2;
  }
  const { values, positionals } = parsed;
  const generated = resolve(values.generated ?? join(ROOT, 'generated'));
  const named = [...positionals, ...(values.rev ? values.rev.split(',') : [])];
  const revisions = named.length ? named : generatedRevisions(generated);
  if (!revisions.length) {
    console.error(`docs: no generated revisions in ${generated} (run npm run generate)`);
    return 1;
  }
  let failed = 0;
  for (const rev of revisions) {
    const t0 = performance.now();
    const took = () => `${(performance.now() - t0).toFixed(0)}ms`;
    let r: DocsResult;
    try {
      r = await buildDocs(rev, { generated, out: values.out });
    } catch (e) {
      failed++;
      console.error(`${rev}: FAILED: ${(e as Error).message}`);
      continue;
    }
    if (!r.ok) failed++;
    console.log(r.ok ? `${rev}: ${r.out} (${took()})` : `${rev}: FAILED with ${r.errors} error(s), ${r.warnings} warning(s) (${took()})`);
  }
  console.log(failed ? `docs: ${failed} of ${revisions.length} revision(s) failed` : `docs: ${revisions.length} revision(s), no warnings`);
  return failed ? 1 : 0;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await main(process.argv.slice(2));
}
