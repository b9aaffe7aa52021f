/**
 * The extension side of the project commands (../schema/extensions.ts for the inputs):
 *
 * - `generate` / `check` `--ext <names>|all` (else the config's `extensions`): each extension is
 *   emitted beside every revision, under `<out>/<rev>/<name>/`;
 * - `pull --ext <names>|all` (and the config's `extensions`): the pinned files from the npm
 *   registry's tarball into the cache, the tarball checked against the pin's integrity and each
 *   file against its sha256;
 * - `pin <name> [--version x.y.z] [--package <npm package> --identifier <id>] [--from DIR]`:
 *   adds or moves an extension's pin in the project's lock (a new name needs `--package` and
 *   `--identifier`); the files come from the registry (integrity checked) or from `--from DIR`, a
 *   folder holding the package (its node_modules folder);
 * - `diff <name>[@<version>] <name>[@<version>]`: the two models compared as revisions are
 *   (../generator/diff.ts), the parties named as the extension names them.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  EXTENSION_FILES,
  type ExtensionFile,
  type ExtensionPin,
  type ResolvedExtension,
  checkPackage,
  defaultRegistry,
  extensionCachePath,
  extensionPin,
  fetchPackageFiles,
  pullExtensions,
  resolveExtension,
  resolveExtensionVersion,
} from '../schema/extensions.js';
import { type PinnedFile, PinError, defaultCacheDir, sha256, writeAtomic } from '../schema/resolve.js';
import type { ExtensionModel } from '../generator/extension/model.js';
import type { Project } from './config.js';
import { configError } from './config.js';
import type { Io, ParsedFlags } from './command.js';
import { UsageError } from './inputs.js';
import { shownPath } from './json-file.js';
import { writeLock } from './lock.js';
import { didYouMean } from './nearest.js';

const NAME = /^[a-z][a-z0-9-]*$/;

/** The pinned extension names of the project (shipped and locked). */
export const pinnedExtensions = (project: Project): string[] => Object.keys(project.pins.extensions ?? {});

/**
 * The extensions a command works on: `--ext a,b` or `all`, else the config's `extensions`; each
 * checked to be pinned (a usage error, or a config error naming the field).
 */
export function extensionNames(flag: string | undefined, project: Project): string[] {
  const pinned = pinnedExtensions(project);
  if (flag !== undefined) {
    const names = flag === 'all' ? pinned : flag.split(',').map((x) => x.trim());
    for (const n of names)
      if (!pinned.includes(n))
        throw new UsageError(
          `--ext: unknown extension "${n}"${didYouMean(n, pinned)} (pinned: ${pinned.join(', ') || 'none'})`,
        );
    return names;
  }
  const listed = project.config.extensions ?? [];
  listed.forEach((n, i) => {
    if (!pinned.includes(n))
      throw configError(project, `extensions[${i}]`, `"${n}" is not pinned (pinned: ${pinned.join(', ') || 'none'})`);
  });
  return listed;
}

/** The models of extensions `names` (inputs verified against their pins). */
export async function extensionModels(names: readonly string[], project: Project): Promise<ExtensionModel[]> {
  if (!names.length) return [];
  const { ingestExtension } = await import('../generator/extension/ingest.js');
  return names.map((n) =>
    ingestExtension(resolveExtension(n, project.pins, { projectDir: project.root, cacheDir: project.cacheDir })),
  );
}

/** `pull --ext`: the pinned files of `names` into the cache. Returns the number of files written. */
export async function pullExtensionInputs(names: readonly string[], project: Project, io: Io): Promise<number> {
  if (!names.length) return 0;
  const written = await pullExtensions([...names], project.pins, { cacheDir: project.cacheDir, log: io.out });
  io.out(`pulled ${written.length} extension file(s); ${names.length} extension(s) verified`);
  return written.length;
}

/** Whether a diff argument names an extension: `name@version`, or a pinned extension's name. */
export function isExtensionArgument(arg: string, project: Project): boolean {
  const at = arg.lastIndexOf('@');
  const name = at > 0 ? arg.slice(0, at) : arg;
  return NAME.test(name) && pinnedExtensions(project).includes(name);
}

/** The inputs a diff argument names: the pinned extension, or another version of its package. */
export async function extensionArgument(arg: string, project: Project): Promise<ResolvedExtension> {
  const at = arg.lastIndexOf('@');
  if (at <= 0) return resolveExtension(arg, project.pins, { projectDir: project.root, cacheDir: project.cacheDir });
  const name = arg.slice(0, at);
  const version = arg.slice(at + 1);
  const pin = extensionPin(project.pins, name);
  if (version === pin.version)
    return resolveExtension(name, project.pins, { projectDir: project.root, cacheDir: project.cacheDir });
  return resolveExtensionVersion(name, version, project.pins, {
    projectDir: project.root,
    cacheDir: project.cacheDir,
  });
}

/** `diff` of two extension arguments: the report as markdown or JSON, and whether a change breaks a party. */
export async function diffExtensions(
  args: [string, string],
  project: Project,
): Promise<{ markdown: string; json: string; breaking: boolean }> {
  const { ingestExtension } = await import('../generator/extension/ingest.js');
  const { asRevisionModel } = await import('../generator/extension/model.js');
  const { diffModels, hasBreaking, renderJson, renderMarkdown } = await import('../generator/diff.js');
  const [a, b] = (await Promise.all(args.map((x) => extensionArgument(x, project)))).map(ingestExtension);
  if (a.extension.identifier !== b.extension.identifier)
    throw new UsageError(`${args[0]} and ${args[1]} are different extensions`);
  const report = diffModels(asRevisionModel(a), asRevisionModel(b));
  const { parties } = b.extension;
  return {
    markdown: renderMarkdown(report, {
      title: `MCP extension diff (${b.extension.identifier}, ${b.extension.package})`,
      parties,
    }),
    json: renderJson(report),
    breaking: hasBreaking(report),
  };
}

/** `mcpgen pin <name>` for an extension (see the module comment). Exit 0 when the lock holds the pin. */
export async function pinExtension({ values: v, positionals }: ParsedFlags, io: Io, project: Project): Promise<number> {
  if (positionals.length !== 1)
    throw new UsageError('expected one extension: mcpgen pin <name> [--version x.y.z] [--package <npm package>]');
  const name = positionals[0];
  if (!NAME.test(name)) throw new UsageError(`invalid extension name "${name}": lowercase letters, digits and '-'`);
  const all = project.pins.extensions ?? {};
  const current: ExtensionPin | undefined = Object.hasOwn(all, name) ? all[name] : undefined;
  const pkg = (v.package as string | undefined) ?? current?.package;
  const identifier = (v.identifier as string | undefined) ?? current?.identifier;
  const version = (v.version as string | undefined) ?? current?.version;
  if (!pkg || !identifier || !version)
    throw new UsageError(
      `${name} is not a pinned extension: give its --package, --identifier and --version (e.g. --package @modelcontextprotocol/ext-apps --identifier io.modelcontextprotocol/ui --version 2.0.4)`,
    );
  try {
    checkPackage(pkg, version);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const paths = Object.fromEntries(
    EXTENSION_FILES.map((f) => [
      f,
      current?.files[f].path ?? (f === 'schema.json' ? 'dist/src/generated/schema.json' : 'dist/src/spec.types.d.ts'),
    ]),
  ) as Record<ExtensionFile, string>;
  const same = current && current.package === pkg && current.version === version ? current : undefined;
  let bytes: Record<ExtensionFile, Uint8Array>;
  let integrity: string | undefined;
  let from: string;
  if (v.from !== undefined) {
    const dir = resolve(v.from as string);
    if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new PinError(`--from ${dir}: no such folder`);
    const manifest = join(dir, 'package.json');
    const got = existsSync(manifest)
      ? (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string; version?: string })
      : {};
    if (got.name !== pkg || got.version !== version)
      throw new PinError(
        `--from ${dir}: holds ${got.name ?? '(no package.json)'}@${got.version ?? '?'}, not ${pkg}@${version}`,
      );
    bytes = Object.fromEntries(
      EXTENSION_FILES.map((f) => {
        const p = join(dir, paths[f]);
        if (!existsSync(p)) throw new PinError(`--from ${dir}: the package has no ${paths[f]}`);
        return [f, readFileSync(p)];
      }),
    ) as unknown as Record<ExtensionFile, Uint8Array>;
    integrity = same?.integrity;
    from = dir;
  } else {
    const got = await fetchPackageFiles(pkg, version, Object.values(paths), {
      registry: defaultRegistry(),
      integrity: same?.integrity,
    });
    bytes = Object.fromEntries(EXTENSION_FILES.map((f) => [f, got.files.get(paths[f])!])) as Record<
      ExtensionFile,
      Uint8Array
    >;
    integrity = got.integrity;
    from = got.url;
  }
  const files = {} as Record<ExtensionFile, PinnedFile>;
  for (const f of EXTENSION_FILES) {
    const hash = sha256(bytes[f]);
    const pin = same?.files[f];
    if (pin && (pin.sha256 !== hash || pin.size !== bytes[f].length))
      throw new PinError(
        `${from}: ${paths[f]}: sha256 ${hash} (${bytes[f].length} bytes) does not match the pin of ${name} at ${pkg}@${version}: ` +
          `${pin.sha256} (${pin.size} bytes)${same!.lock ? ` in ${same!.lock}` : ' (shipped with mcpgen)'}; a published version does not change: check the source; nothing written`,
      );
    files[f] = { path: paths[f], sha256: hash, size: bytes[f].length };
  }
  const cacheDir = project.cacheDir ?? defaultCacheDir();
  for (const f of EXTENSION_FILES) writeAtomic(extensionCachePath(cacheDir, pkg, version, paths[f]), bytes[f]);
  const entry: Omit<ExtensionPin, 'lock'> = {
    identifier,
    package: pkg,
    version,
    ...(integrity ? { integrity } : {}),
    files,
  };
  writeLock(project.lockFile, {
    lockVersion: 1,
    revisions: project.lock?.revisions ?? {},
    extensions: { ...(project.lock?.extensions ?? {}), [name]: entry },
  });
  const what = !current
    ? 'added'
    : same
      ? current.lock
        ? 'verified'
        : 'locked (the pin shipped with mcpgen)'
      : `moved from ${current.package}@${current.version}`;
  io.out(`${name}: ${what}: ${pkg}@${version} (${identifier}) in ${shownPath(project.lockFile)}`);
  for (const f of EXTENSION_FILES) io.out(`  ${paths[f]}  ${files[f].size} bytes  sha256 ${files[f].sha256}`);
  const listed = project.config.extensions;
  if (project.configFile && !(listed ?? []).includes(name))
    io.out(`note: ${name} is not in "extensions" of ${shownPath(project.configFile)}: add it there to generate it`);
  return 0;
}
