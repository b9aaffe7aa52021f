/**
 * Inputs of MCP extensions published as npm packages (schema/pins.json `extensions`, a project's
 * lock `extensions`): an extension's schema is pinned like a revision's, by package, version,
 * the registry's tarball integrity and the sha256 and size of each input file inside the package.
 *
 * ```json
 * "extensions": { "apps": {
 *   "identifier": "io.modelcontextprotocol/ui", "package": "@modelcontextprotocol/ext-apps",
 *   "version": "2.0.4", "integrity": "sha512-…",
 *   "files": { "schema.json": { "path": "dist/src/generated/schema.json", "sha256": "…", "size": 221278 },
 *              "spec.types.d.ts": { "path": "dist/src/spec.types.d.ts", "sha256": "…", "size": 29360 } } } }
 * ```
 *
 * Where the files are found, in order: the package installed in a `node_modules` folder of the
 * project (or above it) at the pinned version, then the cache (`<cache>/npm/<package>@<version>/<path>`)
 * that `mcpgen pull` and `mcpgen pin` fill from the npm registry's tarball. Every file is checked
 * against its pin (PinError naming the file and both hashes); a downloaded tarball is checked
 * against the registry's `integrity` first. Another version of a pinned extension's package
 * (`apps@2.0.0`, for `mcpgen diff`) is read the same way, unpinned, its tarball checked against
 * the integrity the registry states for that version.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseTarGzip } from 'nanotar';
import {
  type ExtensionPin,
  type PinnedFile,
  type Pins,
  PinError,
  type ResolvedFile,
  defaultCacheDir,
  fetchFile,
  sha256,
  writeAtomic,
} from './resolve.js';

/** The input files of an extension: its JSON Schema and the TypeScript declarations beside it. */
export const EXTENSION_FILES = ['schema.json', 'spec.types.d.ts'] as const;
export type ExtensionFile = (typeof EXTENSION_FILES)[number];

export type { ExtensionPin };

/** The inputs of one extension, read and verified. */
export interface ResolvedExtension {
  /** The extension's name in the pins (`apps`). */
  name: string;
  identifier: string;
  package: string;
  version: string;
  files: Record<ExtensionFile, ResolvedFile>;
  /** `node_modules`, `cache` or `registry`. */
  source: string;
  /** False for a version other than the pinned one (`apps@2.0.0`): checked against the registry's integrity only. */
  pinned: boolean;
}

/** The default npm registry: `$npm_config_registry` (as npm sets it for scripts), else the public registry. */
export function defaultRegistry(env: NodeJS.ProcessEnv = process.env): string {
  return (env.npm_config_registry || env.NPM_CONFIG_REGISTRY || 'https://registry.npmjs.org/').replace(/\/?$/, '/');
}

const NAME = /^(@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*$/;
const VERSION = /^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/;

/** Throws PinError unless `name` is an npm package name and `version` an exact semver version. */
export function checkPackage(name: string, version: string): void {
  if (!NAME.test(name)) throw new PinError(`${name}: not an npm package name`);
  if (!VERSION.test(version)) throw new PinError(`${name}@${version}: not an exact version (x.y.z)`);
}

/** The pinned extension `name`, or PinError listing the pinned ones. Own members only. */
export function extensionPin(pins: Pins, name: string): ExtensionPin {
  const all = pins.extensions ?? {};
  const pin = Object.hasOwn(all, name) ? all[name] : undefined;
  if (!pin)
    throw new PinError(
      `unknown extension "${name}"; pinned: ${Object.keys(all).join(', ') || 'none'} (pin one: mcpgen pin <name> --package <npm package> --version <x.y.z>)`,
    );
  return pin;
}

/** `<cache>/npm/<package>@<version>/<path>`: where `pull` and `pin` keep a package's file. */
export function extensionCachePath(cacheDir: string, pkg: string, version: string, path: string): string {
  return join(cacheDir, 'npm', `${pkg}@${version}`, path);
}

/** The package folders named `pkg` in the `node_modules` of `from` and of each folder above it. */
function installedPackages(pkg: string, from: string): string[] {
  const out: string[] = [];
  for (let d = resolve(from); ; d = dirname(d)) {
    const p = join(d, 'node_modules', pkg);
    if (existsSync(join(p, 'package.json'))) out.push(p);
    if (dirname(d) === d) return out;
  }
}

function versionOf(dir: string): string | undefined {
  try {
    const v = (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version?: unknown }).version;
    return typeof v === 'string' ? v : undefined;
  } catch {
    return undefined;
  }
}

function readChecked(path: string, what: string, pin: PinnedFile | undefined): ResolvedFile {
  if (!statSync(path).isFile()) throw new PinError(`${path}: not a file`);
  const buf = readFileSync(path);
  const hash = sha256(buf);
  if (pin && (hash !== pin.sha256 || buf.length !== pin.size))
    throw new PinError(
      `${path}: sha256 ${hash} (${buf.length} bytes) does not match the pin ${pin.sha256} (${pin.size} bytes) for ${what}; ` +
        'install the pinned version, or `mcpgen pull` it into the cache',
    );
  return { path, text: buf.toString('utf8'), sha256: hash, size: buf.length };
}

export interface ExtensionResolveOptions {
  /** Where `node_modules` folders are looked for (it and the folders above it). Default: the working folder. */
  projectDir?: string;
  cacheDir?: string;
  env?: NodeJS.ProcessEnv;
}

/**
 * The verified inputs of pinned extension `name` (see the module comment for where they are
 * looked for). Throws PinError naming the file and both hashes on a mismatch, or saying how to
 * get the files when neither place has them.
 */
export function resolveExtension(name: string, pins: Pins, opts: ExtensionResolveOptions = {}): ResolvedExtension {
  const pin = extensionPin(pins, name);
  const paths = pin.files;
  const places: Array<[string, (f: ExtensionFile) => string]> = [];
  for (const dir of installedPackages(pin.package, opts.projectDir ?? process.cwd())) {
    if (versionOf(dir) === pin.version) places.push(['node_modules', (f) => join(dir, paths[f].path)]);
  }
  const cache = opts.cacheDir ?? defaultCacheDir(opts.env);
  places.push(['cache', (f) => extensionCachePath(cache, pin.package, pin.version, paths[f].path)]);
  let problem: PinError | undefined;
  for (const [source, at] of places) {
    if (!EXTENSION_FILES.every((f) => existsSync(at(f)))) continue;
    try {
      const files = Object.fromEntries(
        EXTENSION_FILES.map((f) => [f, readChecked(at(f), `${pin.package}@${pin.version}/${paths[f].path}`, paths[f])]),
      ) as Record<ExtensionFile, ResolvedFile>;
      return {
        name,
        identifier: pin.identifier,
        package: pin.package,
        version: pin.version,
        files,
        source,
        pinned: true,
      };
    } catch (e) {
      if (!(e instanceof PinError)) throw e;
      problem ??= e;
    }
  }
  throw (
    problem ??
    new PinError(
      `no inputs for extension ${name} (${pin.package}@${pin.version}): \`mcpgen pull --ext ${name}\` downloads them into the cache (or install the package: npm install ${pin.package}@${pin.version})`,
    )
  );
}

/** The registry's facts of one version of a package: its tarball URL and integrity. */
interface VersionFacts {
  tarball: string;
  integrity: string;
}

async function versionFacts(
  pkg: string,
  version: string,
  registry: string,
  doFetch: typeof fetch,
): Promise<VersionFacts> {
  const url = `${registry}${pkg.replace('/', '%2F')}/${version}`;
  const buf = await fetchFile(url, `the registry entry of ${pkg}@${version}`, doFetch);
  let doc: { dist?: { tarball?: unknown; integrity?: unknown } };
  try {
    doc = JSON.parse(buf.toString('utf8')) as typeof doc;
  } catch {
    throw new PinError(`${url}: the registry's answer is not JSON`);
  }
  const tarball = doc.dist?.tarball;
  const integrity = doc.dist?.integrity;
  if (typeof tarball !== 'string' || !/^https?:\/\//.test(tarball) || typeof integrity !== 'string')
    throw new PinError(`${url}: no dist.tarball and dist.integrity for ${pkg}@${version}`);
  return { tarball, integrity };
}

/** Whether `data` has Subresource Integrity `integrity` (one or more `sha512-…`/`sha256-…` hashes: any match). */
export function integrityMatches(data: Uint8Array, integrity: string): boolean {
  return integrity
    .split(/\s+/)
    .filter(Boolean)
    .some((h) => {
      const m = /^(sha512|sha384|sha256)-(.+)$/.exec(h);
      return !!m && createHash(m[1]).update(data).digest('base64') === m[2];
    });
}

export interface FetchedPackage {
  /** Each input file's bytes, by its path inside the package. */
  files: Map<string, Uint8Array>;
  /** The integrity the tarball was checked against. */
  integrity: string;
  /** The tarball's URL. */
  url: string;
}

export interface PackageFetchOptions {
  registry?: string;
  fetch?: typeof fetch;
  /** The integrity the tarball must have (a pin's); absent: the one the registry states. */
  integrity?: string;
}

/**
 * Downloads `pkg@version`'s tarball from the registry, checks its integrity (the pin's when
 * given, else the registry's) and returns the files at `paths` (inside the package). Throws
 * PinError on any refusal: a network or HTTP failure, an integrity mismatch, a missing file.
 */
export async function fetchPackageFiles(
  pkg: string,
  version: string,
  paths: readonly string[],
  opts: PackageFetchOptions = {},
): Promise<FetchedPackage> {
  checkPackage(pkg, version);
  const registry = opts.registry ?? defaultRegistry();
  const doFetch = opts.fetch ?? fetch;
  const facts = await versionFacts(pkg, version, registry, doFetch);
  const integrity = opts.integrity ?? facts.integrity;
  const tgz = await fetchFile(facts.tarball, `${pkg}@${version}`, doFetch);
  if (!integrityMatches(tgz, integrity))
    throw new PinError(
      `${facts.tarball}: the tarball of ${pkg}@${version} does not have the integrity ${integrity.slice(0, 24)}…; nothing written`,
    );
  let entries: Array<{ name: string; data?: Uint8Array; type?: string }>;
  try {
    entries = await parseTarGzip(tgz);
  } catch (e) {
    throw new PinError(`${facts.tarball}: not a gzipped tar archive (${(e as Error).message})`);
  }
  const files = new Map<string, Uint8Array>();
  for (const path of paths) {
    // npm tarballs hold the package under one top folder, `package/` by convention
    const entry = entries.find(
      (x) => x.data && (x.type === 'file' || x.type === undefined) && x.name.replace(/^[^/]+\//, '') === path,
    );
    if (!entry?.data) throw new PinError(`${pkg}@${version}: the package has no ${path}`);
    files.set(path, entry.data);
  }
  return { files, integrity, url: facts.tarball };
}

export interface ExtensionPullOptions extends PackageFetchOptions {
  cacheDir?: string;
  log?: (line: string) => void;
}

/**
 * Downloads the pinned files of extensions `names` into the cache, each checked against its pin
 * before anything is written (a mismatch writes nothing and throws PinError). Files already
 * cached and valid are kept. Returns the paths written.
 */
export async function pullExtensions(names: string[], pins: Pins, opts: ExtensionPullOptions = {}): Promise<string[]> {
  const cacheDir = opts.cacheDir ?? defaultCacheDir();
  const verified: Array<{ dest: string; data: Uint8Array; what: string; hash: string }> = [];
  for (const name of names) {
    const pin = extensionPin(pins, name);
    const dest = (f: ExtensionFile) => extensionCachePath(cacheDir, pin.package, pin.version, pin.files[f].path);
    const cachedOk = EXTENSION_FILES.every(
      (f) => existsSync(dest(f)) && sha256(readFileSync(dest(f))) === pin.files[f].sha256,
    );
    if (cachedOk) continue;
    const got = await fetchPackageFiles(
      pin.package,
      pin.version,
      EXTENSION_FILES.map((f) => pin.files[f].path),
      { ...opts, integrity: pin.integrity },
    );
    for (const f of EXTENSION_FILES) {
      const p = pin.files[f];
      const data = got.files.get(p.path)!;
      const hash = sha256(data);
      if (hash !== p.sha256 || data.length !== p.size)
        throw new PinError(
          `${got.url}: ${p.path}: sha256 ${hash} (${data.length} bytes) does not match the pin ${p.sha256} (${p.size} bytes) of extension ${name}${pin.lock ? ` in ${pin.lock}` : ''}; nothing written`,
        );
      verified.push({ dest: dest(f), data, what: `${pin.package}@${pin.version}/${p.path}`, hash });
    }
  }
  for (const v of verified) {
    writeAtomic(v.dest, v.data);
    opts.log?.(`pulled ${v.what} (${v.data.length} bytes, sha256 ${v.hash.slice(0, 12)})`);
  }
  return verified.map((v) => v.dest);
}

/**
 * The inputs of another version of pinned extension `name`'s package (`apps@2.0.0`), unpinned:
 * from an installed package of that version, else the cache, else the registry (its tarball
 * checked against the integrity the registry states, the files then cached).
 */
export async function resolveExtensionVersion(
  name: string,
  version: string,
  pins: Pins,
  opts: ExtensionResolveOptions & PackageFetchOptions = {},
): Promise<ResolvedExtension> {
  const pin = extensionPin(pins, name);
  checkPackage(pin.package, version);
  const paths = Object.fromEntries(EXTENSION_FILES.map((f) => [f, pin.files[f].path])) as Record<ExtensionFile, string>;
  const cache = opts.cacheDir ?? defaultCacheDir(opts.env);
  const done = (source: string, at: (f: ExtensionFile) => string): ResolvedExtension => ({
    name,
    identifier: pin.identifier,
    package: pin.package,
    version,
    files: Object.fromEntries(EXTENSION_FILES.map((f) => [f, readChecked(at(f), paths[f], undefined)])) as Record<
      ExtensionFile,
      ResolvedFile
    >,
    source,
    pinned: false,
  });
  for (const dir of installedPackages(pin.package, opts.projectDir ?? process.cwd())) {
    if (versionOf(dir) === version && EXTENSION_FILES.every((f) => existsSync(join(dir, paths[f]))))
      return done('node_modules', (f) => join(dir, paths[f]));
  }
  const cached = (f: ExtensionFile) => extensionCachePath(cache, pin.package, version, paths[f]);
  if (EXTENSION_FILES.every((f) => existsSync(cached(f)))) return done('cache', cached);
  const got = await fetchPackageFiles(pin.package, version, Object.values(paths), opts);
  for (const f of EXTENSION_FILES) writeAtomic(cached(f), got.files.get(paths[f])!);
  return done('registry', cached);
}
