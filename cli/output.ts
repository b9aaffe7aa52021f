/**
 * The output folders of generate, check and pack: written only where mcpgen wrote before. A
 * revision folder is wiped and rewritten; one mcpgen did not write, one holding a file it did not
 * write (build output of a binding aside), a symbolic link, or one holding the run's own inputs is
 * refused (UsageError, exit 2); a path that cannot be a folder is an OutputError (exit 3).
 */
import {
  closeSync,
  existsSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  statSync,
  writeFileSync,
  rmSync,
} from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import type { ResolvedRevision } from '../schema/resolve.js';
import { GENERATED_MARK } from '../generator/emit/common.js';
import { OutputError, UsageError } from './inputs.js';

/**
 * Refuses an output folder that exists and is not a folder: OutputError (exit 3) naming `label`
 * (the setting it came from) and the path, as {@link prepareOutDir} does for the folders it creates.
 */
export function checkOutDir(label: string, out: string): void {
  // the folder itself, or the nearest part of its path that exists (`<file>/sub` cannot be made)
  let p = out;
  while (!existsSync(p) && dirname(p) !== p) p = dirname(p);
  if (existsSync(p) && !statSync(p).isDirectory()) throw new OutputError(`${label}: ${p} exists and is not a folder`);
}

/** Writes `files` into `dir`, wiping it first (see {@link checkWipe}). */
export function writeTree(dir: string, files: Map<string, string>): void {
  rmSync(dir, { recursive: true, force: true });
  for (const [p, text] of files) {
    const full = join(dir, p);
    makeDirs(dirname(full));
    // `wx`: the folder was just wiped, so a file (or link) there now was put by someone else: fail, never write through it
    writeFileSync(full, text, { flag: 'wx' });
  }
}

/**
 * `mkdir -p`, one level at a time: a parent that cannot hold folders (a file, /proc) fails at
 * once with its errno instead of being retried.
 */
function makeDirs(dir: string): void {
  if (existsSync(dir)) return;
  makeDirs(dirname(dir));
  mkdirSync(dir);
}

/** True when `dir` is a revision folder mcpgen wrote: its index.ts carries the generated preamble. */
export function isGeneratedFolder(dir: string): boolean {
  const index = join(dir, 'index.ts');
  // (a regular file only: a FIFO would block the read, a folder fail it)
  return existsSync(index) && lstatSync(index).isFile() && isGeneratedFile(index);
}

/**
 * Refuses to wipe an output folder that is not mcpgen's: `<out>/<rev>` must be absent, empty, or
 * a revision folder mcpgen wrote that holds nothing else (see {@link foreignFiles}; a binding's
 * build output aside), and not a symbolic link; and no input of the run may lie inside it.
 * `label` names the setting `dir` came from. UsageError (exit 2) for a folder it would wipe,
 * OutputError (exit 3) when `<out>/<rev>` exists and is not a folder.
 */
export function checkWipe(label: string, dir: string, inputs: ResolvedRevision[]): void {
  for (const r of inputs) {
    for (const f of Object.values(r.files)) {
      if (f.path === dir || f.path.startsWith(dir + sep))
        throw new UsageError(
          `${label}: ${dir} would be wiped and rewritten, but it holds the input ${f.path}; choose another --out`,
        );
    }
  }
  if (!existsSync(dir) && !isLink(dir)) return;
  if (isLink(dir))
    throw new UsageError(
      `${label}: ${dir} is a symbolic link; it would be replaced by a folder: remove it or choose another --out`,
    );
  if (!statSync(dir).isDirectory()) throw new OutputError(`${label}: ${dir} exists and is not a folder`);
  const entries = readdirSync(dir);
  if (entries.length && !isGeneratedFolder(dir)) {
    throw new UsageError(
      `${label}: ${dir} holds files mcpgen did not write (${entries.slice(0, 3).join(', ')}${entries.length > 3 ? ', …' : ''}); it would be wiped: move them or choose another --out`,
    );
  }
  refuseForeign(label, dir);
}

/** Whether `path` is a symbolic link (dangling or not). */
export function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/** The start of a generated file's first line: a `//` or `#` comment holding {@link GENERATED_MARK}. */
const GENERATED_LINE = new RegExp(`^(//|#) ${GENERATED_MARK} `);

/** Whether the regular file at `path` begins with mcpgen's generated line (read: its first 64 bytes). */
function isGeneratedFile(path: string): boolean {
  const fd = openSync(path, 'r');
  try {
    const head = Buffer.alloc(64);
    const n = readSync(fd, head, 0, head.length, 0);
    return GENERATED_LINE.test(head.toString('utf8', 0, n));
  } finally {
    closeSync(fd);
  }
}

/**
 * What building a binding in place leaves in `bindings/<language>/`, per language: folders at
 * its top (`top`), folders at any depth (`anywhere`), files at its top (`files`). Made again by
 * the next build, so wiped without asking; anything else there is the user's.
 */
const BUILD_OUTPUT: Record<string, { top?: string[]; anywhere?: string[]; files?: string[] }> = {
  python: { top: ['build', 'dist'], anywhere: ['__pycache__', '.pytest_cache', '.mypy_cache'] },
  rust: { top: ['target'], files: ['Cargo.lock'] },
  go: { files: ['go.sum'] },
  csharp: { top: ['bin', 'obj'] },
  java: { top: ['build', 'target', '.gradle'] },
  kotlin: { top: ['build', '.gradle'] },
  swift: { top: ['.build'] },
  cpp: { top: ['build'] },
};

/** Whether `parts` (a path below a revision folder) is inside build output of a binding (see {@link BUILD_OUTPUT}). */
function isBuildOutput(parts: string[]): boolean {
  if (parts[0] !== 'bindings' || parts.length < 3 || !Object.hasOwn(BUILD_OUTPUT, parts[1])) return false;
  const out = BUILD_OUTPUT[parts[1]];
  const below = parts.slice(2);
  if (below.length === 1) return out.files?.includes(below[0]) ?? false;
  // a folder: any part but the last
  const folders = below.slice(0, -1);
  if (out.top?.includes(folders[0]) || (parts[1] === 'python' && folders[0].endsWith('.egg-info'))) return true;
  return folders.some((f) => out.anywhere?.includes(f) ?? false);
}

/** The two JSON files of a revision folder, which cannot carry the generated comment. */
const GENERATED_JSON = new Set(['model.json', 'package.json']);

/** Whether `file` is an extension's model.json (`<rev>/<name>/model.json`: an object with `extension.identifier`). */
function isExtensionModel(file: string): boolean {
  try {
    const m = JSON.parse(readFileSync(file, 'utf8')) as { extension?: { identifier?: unknown } };
    return typeof m?.extension?.identifier === 'string';
  } catch {
    return false;
  }
}

/**
 * Entries below generated revision folder `dir` that mcpgen did not write, as paths relative to
 * it (sorted, `/`-separated): every file it writes is a regular file that starts with its
 * `@generated by mcpgen` line (after the comment mark of its language), except model.json and
 * package.json at the top and an extension's `<name>/model.json`. A symbolic link is listed, never followed.
 */
export function foreignFiles(dir: string, rel: string[] = [], found: string[] = []): string[] {
  const here = join(dir, ...rel);
  for (const name of readdirSync(here).sort()) {
    const parts = [...rel, name];
    const full = join(here, name);
    const st = lstatSync(full);
    if (st.isDirectory()) {
      // mcpgen nests a few levels; a tree far deeper is not its (and would overflow the wipe)
      if (parts.length > MAX_DEPTH) found.push(`${parts.join('/')}/…`);
      else foreignFiles(dir, parts, found);
      continue;
    }
    // only regular files are mcpgen's or a build's: a link, FIFO or socket is the user's
    if (
      st.isFile() &&
      (isBuildOutput(parts) ||
        (parts.length === 1 && GENERATED_JSON.has(name)) ||
        (parts.length === 2 && name === 'model.json' && isExtensionModel(full)) ||
        isGeneratedFile(full))
    )
      continue;
    found.push(parts.join('/'));
  }
  return found;
}

/** Folder depth below a revision folder past which a tree is taken for the user's. */
const MAX_DEPTH = 64;

/** UsageError (exit 2) when revision folder `dir`, written by mcpgen, holds entries it did not write. */
function refuseForeign(label: string, dir: string): void {
  const foreign = foreignFiles(dir);
  if (foreign.length) {
    throw new UsageError(
      `${label}: ${dir} was written by mcpgen but also holds files it did not write (${foreign.slice(0, 3).join(', ')}${foreign.length > 3 ? ', …' : ''}); they would be deleted: move them or choose another --out`,
    );
  }
}

/** Files below `dir`, relative, sorted; empty when `dir` does not exist. */
export function listTree(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  const visit = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) visit(p);
      else out.push(relative(dir, p));
    }
  };
  visit(dir);
  return out.sort();
}
