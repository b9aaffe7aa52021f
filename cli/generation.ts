/**
 * What generate and check share: their flags (one list, read by both parsers and helps), the
 * options those flags and the project's config give (inputs, output folder, targets, emit
 * options, extensions), and the ingest of a revision.
 */
import { relative, resolve } from 'node:path';
import { TARGET_IDS, withdrawnTarget } from '../generator/emit/bindings/index.js';
import { followsSchemaTs } from '../generator/ingest/followed.js';
import type { ProtocolModel } from '../generator/model.js';
import type { ResolvedRevision } from '../schema/resolve.js';
import { type Command, type Flag, parseCommand } from './command.js';
import { type Project, configEmitOptions, configuredRevisions, configuredTargets } from './config.js';
import { extensionNames } from './extensions.js';
import { UsageError, resolveInputs } from './inputs.js';
import { shownPath } from './json-file.js';
import { checkOutDir } from './output.js';
import { didYouMean } from './nearest.js';

/**
 * A model's warnings as the commands print them: the places where schema.json lost what schema.ts
 * says and the model follows schema.ts (facts about the upstream inputs, counted in
 * {@link followedNote}; model.json lists them) apart from the others, printed one per line.
 */
export function splitWarnings(model: ProtocolModel): { followed: number; others: string[] } {
  const others = model.warnings.filter((w) => !followsSchemaTs(w));
  return { followed: model.warnings.length - others.length, others };
}

/**
 * The one line that sums up the places where the model followed schema.ts over schema.json, per
 * revision (`counts`: revision and count, zero counts left out), naming where each revision's
 * list is (`where(rev)`). Undefined when there are none.
 */
export function followedNote(
  counts: ReadonlyArray<[string, number]>,
  where: (rev: string) => string,
): string | undefined {
  const some = counts.filter(([, n]) => n > 0);
  if (!some.length) return undefined;
  const total = some.reduce((t, [, n]) => t + n, 0);
  const revs = some.map(([r]) => r);
  const places = total === 1 ? 'place' : 'places';
  return `note: schema.json says less than schema.ts in ${total} ${places} (${some.map(([r, n]) => `${r}: ${n}`).join(', ')}); the generated code follows schema.ts; the list is in ${revs.length === 1 ? where(revs[0]!) : where('<rev>')} ("warnings")`;
}

/** The emitters load json-schema-to-typescript, ajv and quicktype-core: only commands that generate pay for them. */
export const loadGenerate = () => import('../generator/generate.js');

/** The flags of generate and check. */
export const GENERATION_FLAGS: readonly Flag[] = [
  {
    name: 'rev',
    value: '<id>|all|DIR',
    default: "the config's revisions, else all pinned",
    meaning: 'revisions: pinned ids (comma-separated), all, or a folder holding schema.json + schema.ts',
  },
  { name: 'out', value: 'DIR', default: "the config's out, else generated", meaning: 'the output folder' },
  {
    name: 'spec-dir',
    value: 'DIR',
    default: "the config's inputs.specDir, else $MCP_SPEC_DIR, else the cache",
    meaning: 'a folder shaped like the upstream repository holding the pinned inputs',
  },
  {
    name: 'unpinned',
    value: 'DIR',
    meaning: "generate from any folder holding schema.json + schema.ts (id: the folder's name, or --rev)",
  },
  {
    name: 'target',
    value: '<langs>|all',
    default: "the config's targets, else none",
    meaning: `bindings and SDKs to add, comma-separated: ${TARGET_IDS.join(', ')}`,
  },
  {
    name: 'runtime-import',
    value: '<specifier>',
    default: "the config's runtimeImport, else @mcpgen/runtime/codegen/v1",
    meaning: 'the import specifier of the runtime entry in every generated module',
  },
  {
    name: 'validators',
    value: 'compact|ajv',
    default: "the config's validators, else compact",
    meaning: 'compact: schema data compiled on first use; ajv: standalone code (faster, larger)',
  },
  {
    name: 'ext',
    value: '<extensions>|all',
    default: "the config's extensions, else none",
    meaning: 'MCP extensions to emit beside each revision (apps)',
  },
];

/** The config keys generate and check read. */
export const GENERATION_CONFIG: readonly string[] = [
  'revisions',
  'out',
  'targets',
  'runtimeImport',
  'validators',
  'extensions',
  'inputs.specDir',
  'inputs.cacheDir',
  'inputs.lock',
];

/** Flags of `command`, no positional argument (UsageError for one). */
export function parseNoArguments(command: Command, args: string[]) {
  const parsed = parseCommand(command, args);
  if (parsed.positionals.length) throw new UsageError(`unexpected arguments: ${parsed.positionals.join(' ')}`);
  return parsed;
}

/** `--target python,go` or `all` → binding language ids; unknown and withdrawn ones are a usage error. */
export function parseTargets(target: string | undefined): string[] {
  const targets =
    target === undefined ? [] : target === 'all' ? [...TARGET_IDS] : target.split(',').map((x) => x.trim());
  const withdrawn = targets.map(withdrawnTarget).filter((why) => why !== undefined);
  if (withdrawn.length) throw new UsageError(`--target: ${withdrawn.join('; ')}`);
  const unknown = targets.filter((t) => !(TARGET_IDS as readonly string[]).includes(t));
  if (unknown.length)
    throw new UsageError(
      `--target: unknown language ${unknown.join(', ')}${unknown.length === 1 ? didYouMean(unknown[0], [...TARGET_IDS, 'all']) : ''} (languages: ${TARGET_IDS.join(', ')}, or all)`,
    );
  return targets;
}

/** Ingests resolved inputs into a model (loads the TypeScript compiler on first use). */
export async function modelOf(r: ResolvedRevision): Promise<ProtocolModel> {
  return (await import('../generator/ingest.js')).ingestResolved(r);
}

/**
 * `--runtime-import <specifier>`: written verbatim into a string literal of every generated
 * module, so it must be one line with no quote or backslash.
 */
export function parseRuntimeImport(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!value.trim() || value !== value.trim() || /['"`\\\s]/.test(value)) {
    throw new UsageError(
      `--runtime-import ${JSON.stringify(value)}: expected a module specifier (a package subpath such as @mcpgen/runtime/codegen/v1, or a relative path), without spaces, quotes or backslashes`,
    );
  }
  return value;
}

/** `--validators compact|ajv`. */
function parseValidators(value: string | undefined): 'compact' | 'ajv' | undefined {
  if (value === undefined || value === 'compact' || value === 'ajv') return value;
  throw new UsageError(`--validators ${JSON.stringify(value)}: expected compact or ajv`);
}

/**
 * The options `generate` and `check` share: inputs, output folder, binding targets, emit
 * options; each flag, else the project's config (./config.ts), else the default.
 */
export function generationOptions(command: Command, args: string[], project: Project) {
  const { values: v } = parseNoArguments(command, args);
  const targets = parseTargets((v.target as string | undefined) ?? configuredTargets(project));
  if (v.out === '') throw new UsageError('--out needs a folder');
  const out = v.out !== undefined ? resolve(v.out as string) : (project.out ?? resolve('generated'));
  const outArg = v.out !== undefined ? (v.out as string) : relative(process.cwd(), out) || '.';
  // the setting --out came from, for messages about the folder
  const outLabel =
    v.out !== undefined
      ? `--out ${v.out}`
      : project.out !== undefined
        ? `${shownPath(project.configFile!)}: out: ${JSON.stringify(project.config.out)}`
        : `the default --out ${outArg}`;
  checkOutDir(outLabel, out);
  const rev = (v.rev as string | undefined) ?? (v.unpinned ? undefined : configuredRevisions(project));
  return {
    targets,
    out,
    outArg,
    outLabel,
    emit: configEmitOptions(
      project,
      parseRuntimeImport(v['runtime-import'] as string | undefined),
      parseValidators(v.validators as string | undefined),
    ),
    inputs: resolveInputs({ ...(v as object), rev }, project),
    extensions: extensionNames(v.ext as string | undefined, project),
  };
}

/** Default of $MCPGEN_PROGRESS_MS: a stage of generate that takes this long (ms) is reported on stderr. */
export const PROGRESS_MS = 10_000;

/** $MCPGEN_PROGRESS_MS as a number of ms (a non-negative integer), else {@link PROGRESS_MS}. */
export function progressMs(): number {
  const v = process.env.MCPGEN_PROGRESS_MS;
  return v !== undefined && /^[0-9]+$/.test(v) ? Number(v) : PROGRESS_MS;
}

/** What {@link generationOptions} gives. */
export type GenerationOptions = ReturnType<typeof generationOptions>;
