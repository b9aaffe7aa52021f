/**
 * `mcpgen pin <rev> [--commit <sha>] [--from DIR|URL] [--repository owner/name] [--config FILE]`:
 * adds or moves the pin of revision `<rev>` in the project's lock (mcpgen.lock.json, see
 * ../lock.ts) after fetching its schema.json and schema.ts and hashing them (sha256, size).
 *
 * - `--from URL` (http or https): a raw-file base laid out like the upstream repository
 *   (`<URL>/schema/<rev>/schema.json` and `schema.ts`), or a template with `{repository}`,
 *   `{commit}` and `{path}`. Default: the config's `inputs.baseUrl`, else
 *   `https://raw.githubusercontent.com/{repository}/{commit}/{path}`.
 * - `--from DIR`: a folder laid out like the upstream repository, or one holding schema.json
 *   and schema.ts itself.
 * - `--commit`: the upstream commit the files are from (7–40 lowercase hex digits); default:
 *   the commit of the revision's current pin (the lock's, else the one shipped with mcpgen).
 * - `--repository`: default the current pin's, else the shipped upstream repository.
 *
 * When the revision is already pinned at that repository and commit, the fetched files must
 * match that pin: upstream files at one commit do not change, so a difference is tampering or
 * a wrong source, refused with a PinError (exit 3) naming the file and both hashes, and nothing
 * is written. Otherwise (a new revision, or another commit) the pin is added or moved. The
 * files are written into the cache at `<cache>/<commit>/<path>` (so `generate` finds them),
 * then the lock is written. A file the cache holds already at that commit and path is never
 * replaced by different bytes (a wrong `--commit` with a source that does not name commits, a
 * mirror URL): PinError naming both hashes, nothing written. The project's config is not changed.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  INPUT_FILES,
  type PinnedFile,
  PinError,
  cachePath,
  defaultCacheDir,
  fetchFile,
  pinOrigin,
  sha256,
  upstreamUrl,
  writeAtomic,
} from '../../schema/resolve.js';
import { type Command, type Context, type Io, type ParsedFlags, parseCommand } from '../command.js';
import type { Project } from '../config.js';
import { isExtensionArgument, pinExtension } from '../extensions.js';
import { UsageError, checkRevisionId } from '../inputs.js';
import { shownPath } from '../json-file.js';
import { type LockedRevision, writeLock } from '../lock.js';

const COMMIT = /^[0-9a-f]{7,40}$/;
const REPOSITORY = /^[A-Za-z0-9][A-Za-z0-9_.-]*\/[A-Za-z0-9][A-Za-z0-9_.-]*$/;

interface Fetched {
  /** Where the bytes were read from (URL or file path), for messages. */
  from: string;
  buf: Buffer;
}

/** Reads the two input files of `rev` from folder `dir`: the upstream layout, else the folder itself. */
function readFromDir(dir: string, paths: Record<(typeof INPUT_FILES)[number], string>): Record<string, Fetched> {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new PinError(`--from ${dir}: no such folder`);
  const layouts = [INPUT_FILES.map((f) => join(dir, paths[f])), INPUT_FILES.map((f) => join(dir, f))];
  const found = layouts.find((l) => l.every((p) => existsSync(p)));
  if (!found) {
    throw new PinError(
      `--from ${dir}: holds neither ${INPUT_FILES.map((f) => paths[f]).join(' + ')} nor ${INPUT_FILES.join(' + ')}`,
    );
  }
  const out: Record<string, Fetched> = {};
  INPUT_FILES.forEach((f, i) => {
    if (!statSync(found[i]).isFile()) throw new PinError(`--from ${found[i]}: not a file`);
    out[f] = { from: found[i], buf: readFileSync(found[i]) };
  });
  return out;
}

export const pin: Command = {
  name: 'pin',
  summary: "adds or moves a revision's (or an extension's) pin in the project's lock",
  usage: [
    'pin <rev> [--commit <sha>] [--from DIR|URL] [--repository owner/name]',
    'pin <extension> [--version x.y.z] [--package <npm package> --identifier <id>] [--from DIR]',
  ],
  description: [
    "Adds or moves the pin of <rev> in the project's mcpgen.lock.json after fetching its schema.json",
    '+ schema.ts --from a folder (the upstream layout, or the two files) or an http(s) URL base',
    '(<URL>/schema/<rev>/schema.json, or a {repository}/{commit}/{path} template) and hashing them;',
    'stores them in the cache. Files that differ from the pin of the same commit are refused (exit 3)',
    'and nothing is written. An extension (a pinned name such as apps, or a new one given by',
    '--package) is pinned by its npm package: version, tarball integrity, sha256 per file; its files',
    'come from the registry or --from a folder holding the package.',
  ],
  flags: [
    {
      name: 'commit',
      value: '<sha>',
      default: "the commit of the revision's current pin",
      meaning: 'the upstream commit the files are from (7 to 40 lowercase hex digits)',
      form: '<rev>',
    },
    {
      name: 'from',
      value: 'DIR|URL',
      default: "the config's inputs.baseUrl, else raw.githubusercontent.com",
      meaning: 'where to read the files: a folder, or an http(s) URL base or template (an extension: a folder)',
    },
    {
      name: 'repository',
      value: 'owner/name',
      default: "the current pin's, else the shipped upstream repository",
      meaning: 'the upstream repository',
      form: '<rev>',
    },
    {
      name: 'version',
      value: 'x.y.z',
      default: "the current pin's",
      meaning: "the extension package's version",
      form: '<extension>',
    },
    {
      name: 'package',
      value: '<npm package>',
      default: "the current pin's",
      meaning: 'the npm package that publishes the extension (a new extension needs it)',
      form: '<extension>',
    },
    {
      name: 'identifier',
      value: '<id>',
      default: "the current pin's",
      meaning: 'the extension identifier, e.g. io.modelcontextprotocol/ui (a new extension needs it)',
      form: '<extension>',
    },
  ],
  config: ['inputs.lock', 'inputs.cacheDir', 'inputs.baseUrl', 'revisions', 'extensions'],
  examples: [
    'pin 2025-11-25 --commit 0123abc',
    'pin draft --commit 0123abc --from ../modelcontextprotocol',
    'pin apps --version 2.0.4',
    'pin apps --from node_modules/@modelcontextprotocol/ext-apps',
  ],
  exitCodes: [
    [0, 'the lock holds the pin'],
    [2, 'usage error: not one revision or extension, a bad --commit or --repository'],
    [3, 'the files could not be fetched, or differ from the pin of the same commit (nothing written)'],
  ],
  async run(args: string[], io: Io, ctx: Context): Promise<number> {
    const project = ctx.project();
    const first = args.find((a) => !a.startsWith('-'));
    // an extension: a pinned extension's name, or a new one given by its package
    if (
      args.some((a) => a === '--package' || a.startsWith('--package=')) ||
      (first && isExtensionArgument(first, project) && !first.includes('@'))
    )
      return pinExtension(parseCommand(pin, args, '<extension>'), io, project);
    return pinRevision(parseCommand(pin, args, '<rev>'), io, project);
  },
};

/** `mcpgen pin <rev>` (see the module comment). Exit 0 when the lock holds the pin. */
async function pinRevision({ values: v, positionals }: ParsedFlags, io: Io, project: Project): Promise<number> {
  if (positionals.length !== 1)
    throw new UsageError('expected one revision: mcpgen pin <rev> [--commit <sha>] [--from DIR|URL]');
  const rev = positionals[0];
  checkRevisionId(rev);
  const pins = project.pins;
  const current = Object.hasOwn(pins.revisions, rev) ? pins.revisions[rev] : undefined;
  const was = current ? pinOrigin(pins, rev) : undefined;
  const commit = (v.commit as string | undefined) ?? was?.commit;
  if (commit === undefined)
    throw new UsageError(`${rev} is not pinned yet: give the upstream commit its files are from (--commit <sha>)`);
  if (!COMMIT.test(commit)) throw new UsageError(`--commit ${commit}: expected 7 to 40 lowercase hex digits`);
  const repository = (v.repository as string | undefined) ?? was?.repository ?? pins.upstream.repository;
  if (!REPOSITORY.test(repository)) throw new UsageError(`--repository ${repository}: expected owner/name`);
  // the same repository and commit: the files must be the pinned ones
  const expected = current && was?.commit === commit && was.repository === repository ? current : undefined;

  const paths = {
    'schema.json': current?.files['schema.json'].path ?? `schema/${rev}/schema.json`,
    'schema.ts': current?.files['schema.ts'].path ?? `schema/${rev}/schema.ts`,
  };
  const source = (v.from as string | undefined) ?? project.baseUrl ?? pins.upstream.rawUrl;
  const isUrl = /^https?:\/\//i.test(source);
  if (!isUrl && /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(source))
    throw new UsageError(`--from ${source}: expected a folder or an http(s) URL`);
  let fetched: Record<string, Fetched>;
  if (isUrl) {
    fetched = {};
    for (const f of INPUT_FILES) {
      const url = upstreamUrl(source, { repository, commit }, paths[f]);
      fetched[f] = { from: url, buf: await fetchFile(url, paths[f]) };
    }
  } else {
    fetched = readFromDir(resolve(source), paths);
  }

  const files = {} as Record<(typeof INPUT_FILES)[number], PinnedFile>;
  for (const f of INPUT_FILES) {
    const { from, buf } = fetched[f];
    const hash = sha256(buf);
    const pin = expected?.files[f];
    if (pin && (pin.sha256 !== hash || pin.size !== buf.length)) {
      throw new PinError(
        `${from}: sha256 ${hash} (${buf.length} bytes) does not match the pin of ${rev} at ${repository}@${commit}: ` +
          `${pin.sha256} (${pin.size} bytes) for ${pin.path}${expected!.lock ? ` in ${expected!.lock}` : ' (shipped with mcpgen)'}; ` +
          'files at one commit do not change: check the source, or pin another --commit; nothing written',
      );
    }
    files[f] = { path: paths[f], sha256: hash, size: buf.length };
  }
  try {
    const parsed: unknown = JSON.parse(fetched['schema.json'].buf.toString('utf8'));
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not a JSON object');
  } catch (e) {
    throw new PinError(
      `${fetched['schema.json'].from}: not a JSON Schema document (${(e as Error).message}); nothing written`,
    );
  }

  const cacheDir = project.cacheDir ?? defaultCacheDir();
  // files at one commit do not change: a cached file of this commit that differs is never replaced
  // (a wrong --commit with a source that does not name commits, a mirror URL, would overwrite it)
  for (const f of INPUT_FILES) {
    const cached = cachePath(cacheDir, commit, paths[f]);
    if (!existsSync(cached)) continue;
    const held = readFileSync(cached);
    if (held.equals(fetched[f].buf)) continue;
    throw new PinError(
      `${fetched[f].from}: sha256 ${files[f].sha256} (${files[f].size} bytes) differs from ${paths[f]} at commit ${commit} ` +
        `in the cache, ${shownPath(cached)}: sha256 ${sha256(held)} (${held.length} bytes); files at one commit do not change: ` +
        `is --commit ${commit} the commit of ${v.from !== undefined ? `--from ${v.from as string}` : 'that source'}? ` +
        '(a URL or folder without the commit in it serves whatever it holds); nothing written',
    );
  }
  for (const f of INPUT_FILES) writeAtomic(cachePath(cacheDir, commit, paths[f]), fetched[f].buf);
  const entry: LockedRevision = { repository, commit, files };
  writeLock(project.lockFile, {
    lockVersion: 1,
    revisions: { ...(project.lock?.revisions ?? {}), [rev]: entry },
    extensions: project.lock?.extensions,
  });

  const what = !current
    ? 'added'
    : expected
      ? current.lock
        ? 'verified'
        : 'locked (the pin shipped with mcpgen)'
      : `moved from ${was!.repository}@${was!.commit}`;
  io.out(`${rev}: ${what}: ${repository}@${commit} in ${shownPath(project.lockFile)}`);
  for (const f of INPUT_FILES) io.out(`  ${paths[f]}  ${files[f].size} bytes  sha256 ${files[f].sha256}`);
  const listed = project.config.revisions;
  if (listed && !listed.includes(rev) && project.configFile)
    io.out(`note: ${rev} is not in "revisions" of ${shownPath(project.configFile)}: add it there to generate it`);
  return 0;
}
