/**
 * The project's lock of pins, `mcpgen.lock.json` (schema/lock.schema.json): for each revision
 * the upstream repository and commit its inputs come from and the sha256 and size of each
 * input file. A revision pinned there replaces the pin shipped with mcpgen (schema/pins.json);
 * the shipped pins are the defaults for every other revision.
 *
 * ```json
 * { "lockVersion": 1,
 *   "revisions": { "draft": { "repository": "modelcontextprotocol/modelcontextprotocol",
 *     "commit": "41173312…", "files": {
 *       "schema.json": { "path": "schema/draft/schema.json", "sha256": "…", "size": 181234 },
 *       "schema.ts": { "path": "schema/draft/schema.ts", "sha256": "…", "size": 70123 } } } } }
 * ```
 *
 * The file is written by {@link writeLock} only, deterministically: revisions in code-unit
 * order, two-space indent, LF, trailing newline, through a temporary file and a rename.
 */
import { existsSync } from 'node:fs';
import type { ExtensionPin } from '../schema/extensions.js';
import { type Pins, type PinnedFile, writeAtomic } from '../schema/resolve.js';
import { readProjectFile, shownPath } from './json-file.js';

export const LOCK_FILE = 'mcpgen.lock.json';

/** One revision of the lock. */
export interface LockedRevision {
  /** `owner/name` of the upstream GitHub repository. */
  repository: string;
  /** The upstream commit, 7 to 40 lowercase hex digits. */
  commit: string;
  files: Record<'schema.json' | 'schema.ts', PinnedFile>;
}
export interface Lock {
  lockVersion: 1;
  revisions: Record<string, LockedRevision>;
  /** Extensions published as npm packages (../schema/extensions.ts), by name. */
  extensions?: Record<string, Omit<ExtensionPin, 'lock'>>;
}

/** The lock at `path`, or null when there is none. Throws ConfigError (file and field) when it is invalid. */
export function readLock(path: string): Lock | null {
  if (!existsSync(path)) return null;
  return readProjectFile<Lock>(path, 'lock.schema.json');
}

/** `shipped` with the revisions of `lock` (found at `lockPath`) in place of or beside its own. */
export function mergePins(shipped: Pins, lock: Lock | null, lockPath: string): Pins {
  if (!lock) return shipped;
  const revisions: Pins['revisions'] = { ...shipped.revisions };
  const shown = shownPath(lockPath);
  for (const [rev, entry] of Object.entries(lock.revisions)) {
    revisions[rev] = { repository: entry.repository, commit: entry.commit, files: entry.files, lock: shown };
  }
  const extensions = { ...(shipped.extensions ?? {}) };
  for (const [name, entry] of Object.entries(lock.extensions ?? {})) extensions[name] = { ...entry, lock: shown };
  return { upstream: shipped.upstream, revisions, extensions };
}

const file = (f: PinnedFile): PinnedFile => ({ path: f.path, sha256: f.sha256, size: f.size });

/** Writes `lock` to `path` (see the module comment for the form). */
export function writeLock(path: string, lock: Lock): void {
  const revisions: Record<string, LockedRevision> = {};
  for (const rev of Object.keys(lock.revisions).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) {
    const e = lock.revisions[rev];
    revisions[rev] = {
      repository: e.repository,
      commit: e.commit,
      files: { 'schema.json': file(e.files['schema.json']), 'schema.ts': file(e.files['schema.ts']) },
    };
  }
  const names = Object.keys(lock.extensions ?? {}).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const extensions: NonNullable<Lock['extensions']> = {};
  for (const name of names) {
    const e = lock.extensions![name];
    extensions[name] = {
      identifier: e.identifier,
      package: e.package,
      version: e.version,
      ...(e.integrity ? { integrity: e.integrity } : {}),
      files: { 'schema.json': file(e.files['schema.json']), 'spec.types.d.ts': file(e.files['spec.types.d.ts']) },
    };
  }
  const body = names.length ? { lockVersion: 1, revisions, extensions } : { lockVersion: 1, revisions };
  writeAtomic(path, `${JSON.stringify(body, null, 2)}\n`);
}
