/**
 * `mcpgen diff`: a semantic diff of two revisions' models (../../generator/diff.ts), or of two
 * versions of an MCP extension, in Markdown or JSON, each change flagged breaking or not for
 * clients and for servers.
 */
import { diffModels, hasBreaking, renderJson, renderMarkdown } from '../../generator/diff.js';
import { type ResolvedRevision, resolveUnpinned } from '../../schema/resolve.js';
import { type Command, type Context, EXIT, type Io, parseCommand } from '../command.js';
import type { Project } from '../config.js';
import { diffExtensions, isExtensionArgument } from '../extensions.js';
import { modelOf } from '../generation.js';
import { UsageError, checkPinned, isFolderArgument, resolveInputs } from '../inputs.js';

export const diff: Command = {
  name: 'diff',
  summary: "compares two revisions' models (or two versions of an extension)",
  usage: [
    'diff <revA> <revB> [--format md|json] [--fail-on breaking] [--spec-dir DIR]',
    'diff <extension>[@<version>] <extension>[@<version>] [--format md|json] [--fail-on breaking]',
  ],
  description: [
    "Semantic diff of two revisions' models: requests and notifications per direction, params and",
    'result fields, capabilities, types, error codes, lifecycle; each change flagged breaking or not',
    'for clients and for servers. A revision is a pinned id or a folder holding schema.json +',
    'schema.ts (a path: contains a slash or is a directory). An extension (apps) is compared between',
    'two versions of its package (another version is fetched from the registry, its tarball checked',
    "against the registry's integrity), the parties named as the extension names them (view, host).",
  ],
  flags: [
    { name: 'format', value: 'md|json', default: 'md', meaning: 'Markdown for people, JSON for CI' },
    { name: 'fail-on', value: 'breaking', meaning: 'exit 1 when any change is breaking' },
    {
      name: 'spec-dir',
      value: 'DIR',
      default: "the config's inputs.specDir, else $MCP_SPEC_DIR, else the cache",
      meaning: "where the pinned revisions' inputs are",
    },
  ],
  config: ['inputs.specDir', 'inputs.cacheDir', 'inputs.lock'],
  examples: [
    'diff 2025-06-18 2025-11-25',
    'diff 2025-11-25 draft --format json --fail-on breaking',
    'diff 2025-11-25 ./schema-snapshot',
    'diff apps@2.0.0 apps@2.0.4',
  ],
  exitCodes: [
    [0, 'the diff was printed (and with --fail-on breaking, nothing breaks)'],
    [1, 'with --fail-on breaking: some change is breaking'],
    [2, 'usage error: not two revisions, a bad flag value, an unknown revision'],
    [3, 'input error: missing or mismatched inputs, an unreadable schema'],
  ],
  run,
};

/** A pinned revision id, or a folder holding schema.json + schema.ts. */
function revisionInput(arg: string, which: string, specDir: string | undefined, project: Project): ResolvedRevision {
  // a pinned id wins over a folder of that name in the working directory (write ./<id> for the folder)
  if (isFolderArgument(arg, project.pins)) return resolveUnpinned(arg, undefined, 'folder');
  if (arg === 'all' || arg.includes(',')) throw new UsageError(`diff compares two revisions, not "${arg}"`);
  return resolveInputs({ rev: arg, 'spec-dir': specDir }, { ...project, what: which })[0];
}

async function run(args: string[], io: Io, ctx: Context): Promise<number> {
  const { values, positionals } = parseCommand(diff, args);
  const v = { ...values, format: values.format ?? 'md' } as Record<string, string | undefined>;
  if (positionals.length !== 2) throw new UsageError('expected two revisions: mcpgen diff <revA> <revB>');
  if (v.format !== 'md' && v.format !== 'json') throw new UsageError(`--format ${v.format}: expected md or json`);
  if (v['fail-on'] !== undefined && v['fail-on'] !== 'breaking')
    throw new UsageError(`--fail-on ${v['fail-on']}: expected breaking`);
  const project = ctx.project();
  if (positionals.every((p) => isExtensionArgument(p, project))) {
    const d = await diffExtensions([positionals[0], positionals[1]], project);
    io.out((v.format === 'json' ? d.json : d.markdown).trimEnd());
    return v['fail-on'] === 'breaking' && d.breaking ? EXIT.failed : EXIT.ok;
  }
  // both arguments are checked (a usage error, exit 2) before either's inputs are looked for
  positionals.forEach((p, i) => {
    if (p === 'all' || p.includes(',')) throw new UsageError(`diff compares two revisions, not "${p}"`);
    if (!isFolderArgument(p, project.pins)) checkPinned(i ? '<revB>' : '<revA>', [p], project.pins);
  });
  const inputs = positionals.map((p, i) =>
    revisionInput(p, i ? '<revB>' : '<revA>', v['spec-dir'] as string | undefined, project),
  );
  const [a, b] = await Promise.all(inputs.map(modelOf));
  const report = diffModels(a, b);
  io.out((v.format === 'json' ? renderJson(report) : renderMarkdown(report)).trimEnd());
  return v['fail-on'] === 'breaking' && hasBreaking(report) ? EXIT.failed : EXIT.ok;
}
