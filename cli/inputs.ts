/**
 * Input resolution shared by the commands that read schema inputs (generate, check, pack, diff):
 * which revisions a command line names and where their schema.json + schema.ts are.
 *
 * A revision is a pinned id (inputs from --spec-dir, $MCP_SPEC_DIR or the cache, hashes checked),
 * `all`, a comma list of ids, or a folder holding schema.json + schema.ts: `--unpinned DIR`, or
 * `--rev DIR` where DIR is a path (it contains a slash) or an existing folder that is not a
 * pinned id (a pinned id wins: write `./<id>` for the folder).
 */
import { existsSync, statSync } from 'node:fs';
import { sep } from 'node:path';
import { type Pins, type ResolvedRevision, loadPins, resolvePinned, resolveUnpinned } from '../schema/resolve.js';

/** A usage problem (bad flag or value): the CLI prints it with a pointer to --help and exits 2. */
export class UsageError extends Error {}

/** The revision options of a command: `--rev`, `--spec-dir`, `--unpinned`. */
export interface InputOptions {
  rev?: string;
  'spec-dir'?: string;
  unpinned?: string;
}

/** A revision id names an output folder: letters, digits, `.`, `_`, `-`, not starting with `.`. */
export function checkRevisionId(id: string): void {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(id)) {
    throw new UsageError(`invalid revision id "${id}": use letters, digits, '.', '_' and '-', starting with a letter or digit`);
  }
}

/**
 * Whether a revision argument names a folder rather than a pinned id: it contains a slash, or
 * it is an existing directory and no pinned revision has that id.
 */
export function isFolderArgument(arg: string, pins = loadPins()): boolean {
  if (arg.includes('/') || arg.includes(sep)) return true;
  return !Object.hasOwn(pins.revisions, arg) && existsSync(arg) && statSync(arg).isDirectory();
}

/** Where a project keeps its pins and inputs (cli/config.ts `Project`); each defaults as without a project. */
export interface InputContext {
  /** The pins in effect (default: those shipped with mcpgen). */
  pins?: Pins;
  /** The project's spec folder, used when there is no `--spec-dir`. */
  specDir?: string;
  cacheDir?: string;
}

/**
 * The inputs of the revisions `v` names (see the module comment), pinned by `ctx.pins`. Throws
 * UsageError on flags that contradict each other or an invalid id, PinError (exit 3) on missing
 * or mismatched inputs.
 */
export function resolveInputs(v: InputOptions, ctx: InputContext = {}): ResolvedRevision[] {
  const pins = ctx.pins ?? loadPins();
  if (v['spec-dir'] && v.unpinned) throw new UsageError('--spec-dir and --unpinned exclude each other');
  if (!v.unpinned && v.rev !== undefined && v.rev !== 'all') {
    const parts = v.rev.split(',');
    const folders = parts.filter((p) => isFolderArgument(p, pins));
    if (folders.length && parts.length > 1) throw new UsageError(`--rev ${v.rev}: a folder (${folders[0]}) is one revision: give it alone, or use --unpinned DIR`);
    if (folders.length) {
      if (v['spec-dir']) throw new UsageError(`--rev ${v.rev} is a folder: --spec-dir applies to pinned revisions only`);
      return [unpinned(v.rev, undefined, '--rev')];
    }
  }
  if (v.rev !== undefined && v.rev !== 'all') for (const r of v.rev.split(',')) checkRevisionId(r);
  if (v.unpinned) {
    if (v.rev === 'all' || v.rev?.includes(',')) throw new UsageError('--unpinned generates one revision: give --rev one id, or none to use the folder name');
    if (v.rev && Object.hasOwn(pins.revisions, v.rev)) {
      throw new UsageError(`--rev ${v.rev} is a pinned revision: an unpinned folder would overwrite its output; choose another id`);
    }
    return [unpinned(v.unpinned, v.rev, '--unpinned')];
  }
  const revs = v.rev === undefined || v.rev === 'all' ? Object.keys(pins.revisions) : v.rev.split(',');
  return revs.map((r) => resolvePinned(r, { specDir: v['spec-dir'], projectSpecDir: ctx.specDir, cacheDir: ctx.cacheDir }, pins));
}

/** The inputs in folder `dir` as revision `rev` (default: the folder's name, which must be a valid id). */
function unpinned(dir: string, rev: string | undefined, what: string): ResolvedRevision {
  const r = resolveUnpinned(dir, rev, what);
  checkRevisionId(r.revision);
  return r;
}
