/**
 * Input resolution for the pinned MCP schema revisions (schema/pins.json).
 *
 * Order: `--spec-dir DIR`, else `MCP_SPEC_DIR`, else the user cache filled by `mcpgen pull`
 * (`$MCPGEN_CACHE`, else `$XDG_CACHE_HOME/mcpgen`, else `~/.cache/mcpgen`). Pinned inputs are
 * verified (sha256 and size) and a mismatch is refused with a PinError naming the file, the
 * expected and the actual hash. `--unpinned DIR` takes any folder holding schema.json +
 * schema.ts, unverified.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';

const sha256 = (data: Uint8Array): string => createHash('sha256').update(data).digest('hex');

export interface PinnedFile {
  path: string;
  sha256: string;
  size: number;
}
/**
 * One revision's pin. `repository` and `commit` override the set's `upstream` ones: a project's
 * lock (mcpgen.lock.json) pins each revision at its own commit.
 */
export interface RevisionPin {
  repository?: string;
  commit?: string;
  files: Record<'schema.json' | 'schema.ts', PinnedFile>;
  /** Where the pin comes from: the project's lock file (absent: shipped with mcpgen). */
  lock?: string;
}
export interface Pins {
  upstream: { repository: string; commit: string; rawUrl: string };
  revisions: Record<string, RevisionPin>;
  /** Extensions published as npm packages, by name (./extensions.ts). */
  extensions?: Record<string, ExtensionPin>;
}

/**
 * One extension's pin (./extensions.ts): an npm package at an exact version, the registry's
 * tarball integrity, and each input file's path inside the package, sha256 and size.
 */
export interface ExtensionPin {
  /** The extension identifier it is negotiated by (`capabilities.extensions` key), e.g. `io.modelcontextprotocol/ui`. */
  identifier: string;
  /** The npm package the files are read from. */
  package: string;
  /** Its exact version. */
  version: string;
  /** The registry's `dist.integrity` of the version's tarball (Subresource Integrity, sha512). */
  integrity?: string;
  /** Each input file: its path inside the package, sha256 and size. */
  files: Record<'schema.json' | 'spec.types.d.ts', PinnedFile>;
  /** Where the pin comes from: the project's lock file (absent: shipped with mcpgen). */
  lock?: string;
}

/** The upstream repository and commit of a revision's pin. */
export function pinOrigin(pins: Pins, revision: string): { repository: string; commit: string } {
  const entry = pins.revisions[revision];
  return { repository: entry?.repository ?? pins.upstream.repository, commit: entry?.commit ?? pins.upstream.commit };
}

/** `<cache>/<commit>/<path>`: where `pull` and `pin` keep a pinned file. */
export function cachePath(cacheDir: string, commit: string, path: string): string {
  return join(cacheDir, commit, path);
}

/**
 * The URL of upstream file `path` from `template` (default: the pins' raw URL). `{path}` (e.g.
 * `schema/draft/schema.json`), `{repository}` and `{commit}` are filled in; a template without
 * `{path}` is a base that gets `/<path>` appended.
 */
export function upstreamUrl(template: string, origin: { repository: string; commit: string }, path: string): string {
  const t = template.includes('{path}') ? template : `${template.replace(/\/?$/, '/')}{path}`;
  return t
    .replaceAll('{repository}', origin.repository)
    .replaceAll('{commit}', origin.commit)
    .replaceAll('{path}', path);
}

export const INPUT_FILES = ['schema.json', 'schema.ts'] as const;

/** The pins shipped with mcpgen. */
export function loadPins(): Pins {
  return JSON.parse(readFileSync(new URL('./pins.json', import.meta.url), 'utf8')) as Pins;
}

/** An input that does not match its pin, or that cannot be found. */
export class PinError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PinError';
  }
}

export interface ResolvedFile {
  /** Absolute path the text was read from. */
  path: string;
  text: string;
  sha256: string;
  size: number;
}
export interface ResolvedRevision {
  revision: string;
  files: { 'schema.json': ResolvedFile; 'schema.ts': ResolvedFile };
  /** Where the inputs were found: `--spec-dir`, `MCP_SPEC_DIR`, `cache` or `--unpinned`. */
  source: string;
  pinned: boolean;
  commit: string | null;
}

export interface ResolveOptions {
  /** A folder shaped like the upstream repository, given on the command line: used alone. */
  specDir?: string;
  /**
   * A folder shaped like the upstream repository from a project's config (`inputs.specDir`),
   * used before `MCP_SPEC_DIR`; like the environment's, it gives way to the cache.
   */
  projectSpecDir?: string;
  cacheDir?: string;
  env?: NodeJS.ProcessEnv;
}

export function defaultCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.MCPGEN_CACHE) return resolve(env.MCPGEN_CACHE);
  return join(env.XDG_CACHE_HOME ? resolve(env.XDG_CACHE_HOME) : join(homedir(), '.cache'), 'mcpgen');
}

function readFile(path: string, what: string): Buffer {
  if (!statSync(path).isFile()) throw new PinError(`${what} ${path}: not a file`);
  return readFileSync(path);
}

function readVerified(path: string, pin: PinnedFile): ResolvedFile {
  const buf = readFile(path, 'input');
  const actual = sha256(buf);
  if (actual !== pin.sha256 || buf.length !== pin.size) {
    throw new PinError(
      `${path}: sha256 ${actual} (${buf.length} bytes) does not match the pin ${pin.sha256} (${pin.size} bytes) for ${pin.path}; ` +
        'use the pinned upstream file, `mcpgen pull`, or --unpinned DIR to generate from an unpinned folder',
    );
  }
  return { path, text: buf.toString('utf8'), sha256: actual, size: buf.length };
}

/**
 * Finds and verifies the inputs of one pinned revision. With `specDir` (`--spec-dir`) only that
 * folder. Otherwise `projectSpecDir` (else `MCP_SPEC_DIR`), then the cache at the pin's commit:
 * a spec folder whose files are missing or do not match the pin (a checkout of another commit,
 * a revision pinned by the project's lock) gives way to a cache holding the pinned files; when
 * neither has them, the spec folder's problem is thrown. Throws PinError.
 */
export function resolvePinned(revision: string, opts: ResolveOptions = {}, pins = loadPins()): ResolvedRevision {
  const entry = Object.hasOwn(pins.revisions, revision) ? pins.revisions[revision] : undefined;
  if (!entry) {
    throw new PinError(
      `unknown revision "${revision}"; pinned: ${Object.keys(pins.revisions).join(', ')} (or give a folder holding schema.json + schema.ts, or pin it: mcpgen pin ${revision})`,
    );
  }
  const { commit } = pinOrigin(pins, revision);
  const env = opts.env ?? process.env;
  const candidates: Array<[string, string]> = [];
  if (opts.specDir) candidates.push(['--spec-dir', resolve(opts.specDir)]);
  else {
    if (opts.projectSpecDir) candidates.push(['inputs.specDir', resolve(opts.projectSpecDir)]);
    else if (env.MCP_SPEC_DIR) candidates.push(['MCP_SPEC_DIR', resolve(env.MCP_SPEC_DIR)]);
    candidates.push(['cache', join(opts.cacheDir ?? defaultCacheDir(env), commit)]);
  }
  let problem: PinError | undefined;
  let problemSource: string | undefined;
  for (const [source, dir] of candidates) {
    const paths = INPUT_FILES.map((f) => join(dir, entry.files[f].path));
    if (!paths.every((p) => existsSync(p))) {
      // (an absent cache is no problem of its own; a cache holding only some of the files is)
      if (source !== 'cache' || paths.some((p) => existsSync(p))) {
        const missing = paths.filter((p) => !existsSync(p));
        if (!problem)
          [problem, problemSource] = [new PinError(`${source} ${dir}: missing ${missing.join(', ')}`), source];
      }
      continue;
    }
    try {
      return {
        revision,
        files: {
          'schema.json': readVerified(paths[0], entry.files['schema.json']),
          'schema.ts': readVerified(paths[1], entry.files['schema.ts']),
        },
        source,
        pinned: true,
        commit,
      };
    } catch (e) {
      if (!(e instanceof PinError)) throw e;
      if (!problem) [problem, problemSource] = [e, source];
    }
  }
  if (problem && problemSource === 'cache') {
    throw new PinError(
      `${problem.message}; the cached copy is damaged: \`mcpgen pull\` downloads it again (offline: \`mcpgen pin ${revision} --from DIR\`)`,
    );
  }
  if (problem && !opts.specDir) {
    throw new PinError(
      `${problem.message}; and the cache has no verified copy at ${candidates[candidates.length - 1][1]} (\`mcpgen pull\` fills it)`,
    );
  }
  throw (
    problem ??
    new PinError(
      `no inputs for revision ${revision}: set MCP_SPEC_DIR, --spec-dir or the config's inputs.specDir to a folder shaped like the upstream repository, or run \`mcpgen pull\` (offline: \`mcpgen pin ${revision} --from DIR\` fills the cache)`,
    )
  );
}

/**
 * Reads schema.json + schema.ts from any folder, unverified; the revision id is the folder name.
 * `what` names the folder in errors (`--unpinned` for generate, `folder` for diff).
 */
export function resolveUnpinned(dir: string, revision = basename(resolve(dir)), what = '--unpinned'): ResolvedRevision {
  const read = (f: string): ResolvedFile => {
    const path = join(resolve(dir), f);
    if (!existsSync(path)) throw new PinError(`${what} ${dir}: missing ${f}`);
    const buf = readFile(path, what);
    return { path, text: buf.toString('utf8'), sha256: sha256(buf), size: buf.length };
  };
  return {
    revision,
    files: { 'schema.json': read('schema.json'), 'schema.ts': read('schema.ts') },
    source: '--unpinned',
    pinned: false,
    commit: null,
  };
}

export interface PullOptions {
  cacheDir?: string;
  /**
   * Replaces the upstream raw URL template; `{path}` (e.g. `schema/draft/schema.json`),
   * `{repository}` and `{commit}` are filled in. A URL without `{path}` gets it appended.
   */
  baseUrl?: string;
  fetch?: typeof fetch;
  log?: (line: string) => void;
}

/**
 * Downloads the pinned inputs of `revisions` into the cache, verifying each hash before it is
 * written (a mismatch writes nothing and throws PinError). Files already cached and valid are
 * kept. Returns the paths written.
 */
export async function pull(revisions: string[], opts: PullOptions = {}, pins = loadPins()): Promise<string[]> {
  const cacheDir = opts.cacheDir ?? defaultCacheDir();
  const doFetch = opts.fetch ?? fetch;
  // every file is fetched and verified before any is written: a failure leaves the cache as it was
  const verified: Array<{ dest: string; buf: Buffer; path: string; sha256: string }> = [];
  for (const rev of revisions) {
    const entry = Object.hasOwn(pins.revisions, rev) ? pins.revisions[rev] : undefined;
    if (!entry) throw new PinError(`unknown revision "${rev}"; pinned: ${Object.keys(pins.revisions).join(', ')}`);
    const origin = pinOrigin(pins, rev);
    for (const f of INPUT_FILES) {
      const pin = entry.files[f];
      const dest = cachePath(cacheDir, origin.commit, pin.path);
      if (existsSync(dest) && sha256(readFileSync(dest)) === pin.sha256) continue;
      const url = upstreamUrl(opts.baseUrl ?? pins.upstream.rawUrl, origin, pin.path);
      const buf = await fetchFile(url, pin.path, doFetch);
      const actual = sha256(buf);
      if (actual !== pin.sha256 || buf.length !== pin.size) {
        throw new PinError(
          `${url}: sha256 ${actual} (${buf.length} bytes) does not match the pin ${pin.sha256} (${pin.size} bytes) for ${pin.path}` +
            `${entry.lock ? ` in ${entry.lock}` : ''}; nothing written`,
        );
      }
      verified.push({ dest, buf, path: pin.path, sha256: actual });
    }
  }
  for (const { dest, buf, path, sha256: hash } of verified) {
    writeAtomic(dest, buf);
    opts.log?.(`pulled ${path} (${buf.length} bytes, sha256 ${hash.slice(0, 12)})`);
  }
  return verified.map((v) => v.dest);
}

/** The largest upstream file `pull` and `pin` accept (a schema.json is ~0.2 MiB). */
export const MAX_INPUT_BYTES = 32 * 1024 * 1024;
/** How long one download may take, in ms, before it is abandoned. */
export const FETCH_TIMEOUT_MS = 60_000;

/**
 * GETs `url` (at most {@link MAX_INPUT_BYTES}, within {@link FETCH_TIMEOUT_MS}); a network
 * failure, a timeout, a non-2xx status or a larger body is a PinError naming the URL and `what`.
 */
export async function fetchFile(url: string, what: string, doFetch: typeof fetch = fetch): Promise<Buffer> {
  const signal = AbortSignal.timeout(FETCH_TIMEOUT_MS);
  const failed = (e: unknown): PinError => {
    if (signal.aborted) return new PinError(`${url}: no answer for ${what} within ${FETCH_TIMEOUT_MS} ms`);
    const cause = (e as { cause?: { message?: string } }).cause?.message;
    return new PinError(`${url}: could not fetch ${what}: ${(e as Error).message}${cause ? ` (${cause})` : ''}`);
  };
  const tooLarge = () => new PinError(`${url}: ${what} is larger than ${MAX_INPUT_BYTES} bytes; refused`);
  let res: Response;
  try {
    res = await doFetch(url, { redirect: 'follow', signal });
  } catch (e) {
    throw failed(e);
  }
  if (!res.ok) {
    await res.body?.cancel();
    throw new PinError(`${url}: HTTP ${res.status} while fetching ${what}`);
  }
  if (Number(res.headers.get('content-length') ?? 0) > MAX_INPUT_BYTES) {
    await res.body?.cancel();
    throw tooLarge();
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for await (const chunk of res.body ?? []) {
      size += chunk.byteLength;
      // leaving the loop cancels the stream
      if (size > MAX_INPUT_BYTES) throw tooLarge();
      chunks.push(chunk);
    }
  } catch (e) {
    throw e instanceof PinError ? e : failed(e);
  }
  return Buffer.concat(chunks);
}

/** Writes `data` to `path` through `<path>.part` and a rename, creating the parent folders. */
export function writeAtomic(path: string, data: Uint8Array | string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(`${path}.part`, data);
  renameSync(`${path}.part`, path);
}

/** The sha256 of `data`, lowercase hex. */
export { sha256 };
