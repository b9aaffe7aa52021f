/**
 * Input resolution shared by the commands that read schema inputs (generate, check, pack, diff):
 * which revisions a command line names and where their schema.json + schema.ts are.
 *
 * A revision is a pinned id (inputs from --spec-dir, $MCP_SPEC_DIR or the cache, hashes checked),
 * `all`, a comma list of ids, or a folder holding schema.json + schema.ts: `--unpinned DIR`, or
 * `--rev DIR` where DIR is a path (it contains a slash) or an existing folder that is not a
 * pinned id (a pinned id wins: write `./<id>` for the folder).
 */
import { accessSync, constants, existsSync, mkdirSync, readdirSync, rmdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, resolve, sep } from 'node:path';
import { type Pins, type ResolvedRevision, loadPins, resolvePinned, resolveUnpinned } from '../schema/resolve.js';
import { didYouMean } from './nearest.js';

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
    throw new UsageError(
      `invalid revision id "${id}": use letters, digits, '.', '_' and '-', starting with a letter or digit`,
    );
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
  /** The flag or argument the revisions came from, for messages (default `--rev`). */
  what?: string;
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
    if (folders.length && parts.length > 1)
      throw new UsageError(
        `--rev ${v.rev}: a folder (${folders[0]}) is one revision: give it alone, or use --unpinned DIR`,
      );
    if (folders.length) {
      if (v['spec-dir'])
        throw new UsageError(`--rev ${v.rev} is a folder: --spec-dir applies to pinned revisions only`);
      return [unpinned(v.rev, undefined, '--rev')];
    }
  }
  if (v.rev !== undefined && v.rev !== 'all') for (const r of v.rev.split(',')) checkRevisionId(r);
  if (!v.unpinned && v.rev !== undefined && v.rev !== 'all') checkPinned(ctx.what ?? '--rev', v.rev.split(','), pins);
  if (v.unpinned) {
    if (v.rev === 'all' || v.rev?.includes(','))
      throw new UsageError('--unpinned generates one revision: give --rev one id, or none to use the folder name');
    if (v.rev && Object.hasOwn(pins.revisions, v.rev)) {
      throw new UsageError(
        `--rev ${v.rev} is a pinned revision: an unpinned folder would overwrite its output; choose another id`,
      );
    }
    return [unpinned(v.unpinned, v.rev, '--unpinned')];
  }
  const revs = v.rev === undefined || v.rev === 'all' ? Object.keys(pins.revisions) : v.rev.split(',');
  return revs.map((r) =>
    resolvePinned(r, { specDir: v['spec-dir'], projectSpecDir: ctx.specDir, cacheDir: ctx.cacheDir }, pins),
  );
}

/** The inputs in folder `dir` as revision `rev` (default: the folder's name, which must be a valid id). */
function unpinned(dir: string, rev: string | undefined, what: string): ResolvedRevision {
  const r = resolveUnpinned(dir, rev, what);
  checkRevisionId(r.revision);
  return r;
}

/** An output folder or file that cannot be written: the CLI says which and why, and exits 3. */
export class OutputError extends Error {}

/** What an errno of creating or writing `path` means, in words, with the code. */
export function writeCause(e: NodeJS.ErrnoException, path: string): string {
  const parent = dirname(path);
  const why: Record<string, string> = {
    ENOENT: `${parent} does not accept new entries`,
    EACCES: 'permission denied',
    EPERM: 'operation not permitted',
    EROFS: 'read-only file system',
    ENOTDIR: `${parent} is not a folder`,
    EEXIST: 'exists and is not a folder',
    ENOSPC: 'no space left on the device',
    EISDIR: 'is a folder',
  };
  return `${e.code && Object.hasOwn(why, e.code) ? why[e.code] : e.message} (${e.code ?? 'error'})`;
}

/**
 * Creates output folder `dir` (and its missing parents, one level at a time: a parent that
 * cannot hold folders, such as /proc, fails at once instead of being retried) and checks that
 * it can be written. `label` names the setting and its value (`--out /proc/nope`,
 * `mcpgen.config.json: out: "/proc/nope"`). Throws OutputError naming the folder and the cause:
 * `--out /proc/nope: cannot create /proc/nope: /proc does not accept new entries (ENOENT)`.
 * Returns the topmost folder it created (undefined: `dir` was there).
 */
export function prepareOutDir(label: string, dir: string): string | undefined {
  let created: string | undefined;
  const make = (d: string): void => {
    if (existsSync(d)) {
      if (!statSync(d).isDirectory()) throw new OutputError(`${label}: ${d} exists and is not a folder`);
      return;
    }
    make(dirname(d));
    try {
      mkdirSync(d);
      created ??= d;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST' && statSync(d).isDirectory()) return;
      throw new OutputError(`${label}: cannot create ${d}: ${writeCause(e as NodeJS.ErrnoException, d)}`);
    }
  };
  const full = resolve(dir);
  make(full);
  try {
    accessSync(full, constants.W_OK);
  } catch (e) {
    throw new OutputError(`${label}: cannot write into ${full}: ${writeCause(e as NodeJS.ErrnoException, full)}`);
  }
  return created;
}

/**
 * Undoes {@link prepareOutDir} after a run that wrote nothing: removes `dir` and its parents up
 * to `created` (the topmost folder it made), each only while it is empty.
 */
export function removeMadeDirs(dir: string, created: string | undefined): void {
  if (created === undefined) return;
  for (let d = resolve(dir); ; d = dirname(d)) {
    try {
      if (readdirSync(d).length) return;
      rmdirSync(d);
    } catch {
      return;
    }
    if (d === created || dirname(d) === d) return;
  }
}

/** Writes output file `path` (`flag` names it, e.g. `--out`), its folder created as by {@link prepareOutDir}; OutputError when it cannot. */
export function writeOutFile(flag: string, path: string, text: string): void {
  prepareOutDir(`${flag} ${path}`, dirname(resolve(path)));
  try {
    writeFileSync(path, text);
  } catch (e) {
    throw new OutputError(`${flag} ${path}: cannot write it: ${writeCause(e as NodeJS.ErrnoException, path)}`);
  }
}

/** The http(s) URL pattern of `inputs.baseUrl` (schema/config.schema.json) and `--base-url`. */
const BASE_URL = /^https?:\/\//;

/** `--base-url URL`: an http(s) base or `{repository}/{commit}/{path}` template, as the config's `inputs.baseUrl`. */
export function checkBaseUrl(flag: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  let ok = BASE_URL.test(value);
  if (ok) {
    try {
      new URL(value.replaceAll(/\{(repository|commit|path)\}/g, 'x'));
    } catch {
      ok = false;
    }
  }
  if (!ok)
    throw new UsageError(
      `${flag} ${JSON.stringify(value)}: expected an http(s) URL: a base that gets /<path> appended, or a template with {repository}, {commit} and {path}`,
    );
  return value;
}

/**
 * Refuses revision ids no pin names (the lock's or mcpgen's): a usage error naming `what` (the
 * flag or argument) and the pinned ids.
 */
export function checkPinned(what: string, revs: string[], pins: Pins): void {
  for (const r of revs) {
    if (!Object.hasOwn(pins.revisions, r)) {
      throw new UsageError(
        `${what}: unknown revision "${r}"${didYouMean(r, Object.keys(pins.revisions))} (pinned: ${Object.keys(pins.revisions).join(', ')}; or give a folder holding schema.json + schema.ts, or pin it: mcpgen pin ${r} --commit <sha>)`,
      );
    }
  }
}
