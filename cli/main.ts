/**
 * mcpgen CLI. Exit codes: 0 success; 1 the command ran and found a failure (a check or diff
 * that fails); 2 usage error (unknown command or flag, a flag without its value or with a bad
 * one, an unknown revision, a bad config: the command line and the config alike); 3 input error
 * (missing or mismatched schema inputs, unreadable schema: the message names the file and
 * field) or a refusal of the system (an output folder that cannot be written); 4 `call`: the tool
 * reported an error (a `tools/call` result with `isError: true`, printed like any result).
 */
import {
  closeSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import type { ParseArgsConfig } from 'node:util';
import { type ResolvedRevision, PinError, pull, resolvePinned, resolveUnpinned } from '../schema/resolve.js';
import {
  OutputError,
  UsageError,
  checkBaseUrl,
  checkPinned,
  isFolderArgument,
  parseFlags,
  prepareOutDir,
  removeMadeDirs,
  resolveInputs,
} from './inputs.js';
import { diffModels, firstLineDiff, hasBreaking, renderJson, renderMarkdown } from '../generator/diff.js';
/** The emitters load json-schema-to-typescript, ajv and handlebars: only commands that generate pay for them. */
const loadGenerate = () => import('../generator/generate.js');
import { TARGET_IDS, withdrawnTarget } from '../generator/emit/bindings/index.js';
// (loaded with the bindings' emitters above anyway)
import { GENERATED_MARK, MCPGEN_VERSION } from '../generator/emit/common.js';
import { IngestError } from '../generator/ingest-error.js';
import type { ProtocolModel } from '../generator/model.js';
import { CommandUsageError, cmdCall, cmdServe } from './commands/serve.js';
import {
  diffExtensions,
  extensionModels,
  extensionNames,
  isExtensionArgument,
  pullExtensionInputs,
} from './commands/extensions.js';
import { ServiceUnavailableError } from './commands/serve-http.js';
import { shownPath } from './json-file.js';
import {
  ConfigError,
  type Project,
  configEmitOptions,
  configuredRevisions,
  configuredTargets,
  loadProject,
  takeConfigFlag,
} from './config.js';

export const EXIT = { ok: 0, failed: 1, usage: 2, input: 3 } as const;

export { resolveInputs };

const HELP = `mcpgen — schema-first code generator for the Model Context Protocol

Usage:
  mcpgen pin <rev> [--commit <sha>] [--from DIR|URL] [--repository owner/name]
  mcpgen pin <extension> [--version x.y.z] [--package <npm package> --identifier <id>] [--from DIR]
  mcpgen generate [--rev <id>|all] [--out DIR] [--spec-dir DIR | --unpinned DIR] [--target <langs>|all]
                  [--runtime-import <specifier>] [--validators compact|ajv] [--ext <extensions>|all]
  mcpgen list [--spec-dir DIR]
  mcpgen pull [--rev <id>|all] [--base-url URL-with-{path}] [--ext <extensions>|all]
  mcpgen diff <revA> <revB> [--format md|json] [--fail-on breaking] [--spec-dir DIR]
  mcpgen diff <extension>[@<version>] <extension>[@<version>] [--format md|json] [--fail-on breaking]
  mcpgen check [--out DIR] [--rev <id>|all] [--spec-dir DIR | --unpinned DIR] [--target <langs>|all]
               [--runtime-import <specifier>] [--validators compact|ajv] [--ext <extensions>|all]
  mcpgen serve --stdio [--rev <id>] [--modern-only] [--request-state-secret-file PATH]
  mcpgen serve --http <port> [--host 127.0.0.1] [--reply auto|json|sse] [--rev <id>] [--modern-only]
                [--session-idle-ms MS] [--max-sessions N] [--redis redis://HOST:PORT]
                [--request-state-secret-file PATH] [--cors-origin ORIGIN]...
                [--allowed-host NAME[:PORT]]... [--public-url URL]
                [--auth <issuer-url> [--auth-jwks URL] [--auth-scope "a b"]]
  mcpgen serve --lang python|go (--stdio | --http <port> [--host 127.0.0.1]) [--rev <id>]
  mcpgen call --stdio "<command>" <method> [params-json] [--progress] [--rev <id>] [--timeout MS]
  mcpgen call --url <url> <method> [params-json] [--progress] [--rev <id>] [--timeout MS]
                [--auth [--auth-client-id ID] [--auth-scope "a b"]]
  mcpgen tools --stdio "<command>"|--url <url> --out <file> [--check] [--rev <id>] [--timeout MS]
  mcpgen pack --rev <id>|all|DIR [--out DIR] [--spec-dir DIR | --unpinned DIR]
  mcpgen init <dir> [--rev <id>] [--stdio | --http] [--client] [--runtime <npm spec>] [--mcpgen <npm spec>]
              [--spec-dir DIR]
  mcpgen --help | -h        mcpgen --version | -v

generate   Writes generated/<rev>/ for each revision: model.json, types.gen.ts, validators.gen.js
           (+ .d.ts), protocol.gen.ts, dispatch.gen.ts, client.gen.ts, server.gen.ts, index.ts,
           package.json; with --target, bindings/<lang>/ for python, go, rust, java, csharp,
           kotlin, and the SDKs python-sdk, go-sdk (or all; cpp and swift are withdrawn).
           Each revision's folder is wiped and rewritten
           (refused while it holds a file mcpgen did not write); output is byte-identical for
           identical inputs, whatever the folders of mcpgen, the inputs and the output (no
           machine path in any file). Generated code imports the runtime from
           --runtime-import (default @mcpgen/runtime/codegen/v1: install @mcpgen/runtime).
           --validators compact (default: schema data compiled by the runtime on first use)
           or ajv (ajv standalone code: faster per validation, several times the bytes); a
           revision whose schemas use a keyword compact validators lack gets ajv (a warning
           names it).
list       Pinned revisions and where their inputs were found (exit 3: none found, or a mismatch).
pull       Downloads the pinned inputs (each at its pin's commit) into the user cache and
           verifies their sha256 and size.
pin        Adds or moves the pin of <rev> in the project's mcpgen.lock.json after fetching its
           schema.json + schema.ts --from a folder (the upstream layout, or the two files) or an
           http(s) URL base (<URL>/schema/<rev>/schema.json, or a {repository}/{commit}/{path}
           template; default: the config's inputs.baseUrl, else raw.githubusercontent.com) and
           hashing them; stores them in the cache. Files that differ from the pin of the same
           commit are refused (exit 3) and nothing is written.
diff       Semantic diff of two revisions' models: requests and notifications per direction,
           params and result fields, capabilities, types, error codes, lifecycle; each change
           flagged breaking or not for clients and for servers. A revision is a pinned id or a
           folder holding schema.json + schema.ts (a path: contains a slash or is a directory).
           --fail-on breaking exits 1 when any change is breaking.
Extensions MCP extensions published as npm packages (apps: MCP Apps, io.modelcontextprotocol/ui,
           @modelcontextprotocol/ext-apps) are pinned like revisions (package, version, tarball
           integrity, sha256 per file; shipped pins, or the lock's). --ext (or the config's
           "extensions") generates each beside every revision into <out>/<rev>/<name>/ (types,
           validators, the channel's method maps and table, the MCP types it rides on); inputs come
           from the installed package at the pinned version, else the cache that pull --ext fills
           from the npm registry. diff apps@2.0.0 apps@2.0.4 compares two versions of its package
           (another version is fetched from the registry, its tarball checked against the
           registry's integrity), the parties named view and host.
check      Regenerates into a temporary folder and compares it with DIR (default generated):
           exits 1 listing the files added, removed or changed (with their first differing lines).
serve      The reference MCP server (test tools, resources, prompts; task tools slow_compute,
           failing_job, confirm_job, batch_job where the revision has tasks) on the generated
           Server of a revision (default 2025-11-25), over stdin/stdout: only protocol messages
           on stdout. --http serves Streamable HTTP at http://<host>:<port>/mcp (one session per
           client, Host/Origin checks on) and prints its URL and the HTTP+SSE one to stderr.
           --lang python runs the Python reference server (python/reference, a checkout only)
           with the same fixtures, in the environment python/venv.sh builds; --lang go the Go
           one (go/reference, a checkout only: 2025-11-25, 2026-07-28, draft), built with the
           Go toolchain go/toolchain.sh finds.
           A stateless revision (draft, 2026-07-28) is served dual-era: modern requests
           statelessly, clients that send initialize on a 2025-11-25 server (--modern-only: the
           stateless revision alone). Its multi round-trip requestState is sealed with the
           secret in --request-state-secret-file or $MCPGEN_REQUEST_STATE_SECRET (>= 32 bytes),
           else a random one per process: processes serving one endpoint must share it.
           Sessions idle for --session-idle-ms (default 1800000;
           0: never) end (their id then gets 404); at --max-sessions (default 10000) a new
           session evicts the least recently used idle one, or gets 503 when none is idle.
           --cors-origin (repeatable) lets a browser app on that origin call the endpoint:
           CORS preflight, Access-Control-Allow-Origin, the MCP headers exposed.
           --auth <issuer-url> protects /mcp: bearer tokens of that issuer for this URL, checked
           against its JWKS (--auth-jwks, else its metadata's jwks_uri) with --auth-scope's scopes;
           protected resource metadata at /.well-known/oauth-protected-resource/mcp (no HTTP+SSE).
           Behind a load balancer: --allowed-host (repeatable) accepts the Host values it
           forwards; --public-url names the URL clients use (the resource --auth tokens name).
           GET /healthz (live) and /readyz (503 while Redis does not answer or after SIGTERM).
call       Spawns <command> (or connects to --url), initializes, sends one request, prints the
           result JSON on stdout; with a stateless --rev it probes with server/discover and falls
           back to initialize (2025-11-25) when the server is not modern;
           --progress prints progress to stderr, and log messages (notifications/message) print
           there too (over --url from the request's stream and from the standalone GET stream,
           which is opened before the request). A failed request prints the error, exits 1;
           a tools/call result with isError: true (the tool reported an error) is printed, exits 4.
           --auth authorizes with OAuth 2.1 when the server asks (401): discovery, dynamic
           registration (or --auth-client-id), PKCE; the authorization URL is printed to stderr
           and the browser's redirect is received on 127.0.0.1.
tools      Connects like call (--stdio "<command>" or --url, --rev), reads every page of tools/list
           and writes --out <file>: a TypeScript module of the tools (sorted, schemas as const)
           whose typedTools(client).callTool(name, args) is typed per tool (arguments from
           inputSchema, structuredContent from outputSchema, through json-schema-to-ts).
           --check writes nothing: exits 1 naming the tools added, removed or changed when the
           file differs from a fresh snapshot (0 when equal).
pack       Builds the npm package of a revision (@mcpgen/mcp-<rev>, version <mcpgen version>+<rev>):
           its generated code compiled to JavaScript with declarations, on the runtime package
           @mcpgen/runtime (a peer dependency, ^<mcpgen version>; no runtime copy), entry points .
           and the revision's rows of the export table (./errors, ./features, ./stdio, ./memory;
           handshake: ./http, ./http/legacy-sse, ./tasks; stateless: ./http/stateless, ./dual-era,
           ./tasks, ./input-required, ./subscriptions, ./cache); writes <name>-<version>.tgz into
           --out (default: .). Prints a line per revision and step (ingest, generate, entries,
           compile, tarball) as it ends.
init       Writes a quickstart project into <dir> (new or empty): package.json, mcpgen.config.json
           and mcpgen.lock.json (the revision, default 2025-11-25, out src/mcp), tsconfig.json,
           the generated code in src/mcp/<rev>/, src/server.ts (one typed tool, greet, over
           stdio or with --http Streamable HTTP on $PORT) and its test, with --client
           src/client.ts and its test, a README. --runtime and --mcpgen are the dependency specs
           package.json gets (default ^<version>; file:<tarball> before the packages are on npm).

Project: generate, list, pull, pin, diff, check and pack read mcpgen.config.json in the working
folder (or --config FILE: revisions, out, targets, runtimeImport, inputs.{specDir, cacheDir,
lock, baseUrl}; flags win over it) and the lock of pins mcpgen.lock.json beside it (revisions
pinned there replace the pins shipped with mcpgen). A bad config or lock exits 2 naming the
file and the field.

Inputs: --spec-dir DIR (alone), else the config's inputs.specDir or $MCP_SPEC_DIR, then the cache
(inputs.cacheDir, $MCPGEN_CACHE or ~/.cache/mcpgen): a spec folder without the pinned files gives
way to the cache.
--unpinned DIR generates (or packs) from any folder holding schema.json and schema.ts (revision
id: the folder's name, or --rev); so does --rev DIR when DIR is a path (has a slash) or a folder
that is not a pinned id. generate --target prints a line per language as it ends. A stage of
generate that takes over 10 s ($MCPGEN_PROGRESS_MS, in ms) is reported on stderr
(\`progress: <rev>: <stage> took <ms>ms\`), and each later stage of that revision as it begins.
A schema.json that is not valid JSON Schema 2020-12 is an input error naming the file and the
JSON pointer of the keyword.

Exit codes: 0 ok · 1 a check failed · 2 usage error (a bad or unknown flag or value, an unknown
revision, a bad config or lock: alike on the command line and in the config) · 3 input error
(missing or mismatched inputs) or an --out that cannot be written · 4 call: the tool reported an error (a tools/call result with isError: true)
`;

export interface Io {
  out: (line: string) => void;
  err: (line: string) => void;
}
const stdio: Io = { out: (l) => process.stdout.write(`${l}\n`), err: (l) => process.stderr.write(`${l}\n`) };

/** Parses a project command's flags (`--config` was taken before: see takeConfigFlag). */
function parse(args: string[], options: NonNullable<ParseArgsConfig['options']>, positionals = false) {
  const parsed = parseFlags(args, options, ['--config']);
  if (!positionals && parsed.positionals.length)
    throw new UsageError(`unexpected arguments: ${parsed.positionals.join(' ')}`);
  return parsed;
}

/** `--target python,go` or `all` → binding language ids; unknown and withdrawn ones are a usage error. */
function parseTargets(target: string | undefined): string[] {
  const targets =
    target === undefined ? [] : target === 'all' ? [...TARGET_IDS] : target.split(',').map((x) => x.trim());
  const withdrawn = targets.map(withdrawnTarget).filter((why) => why !== undefined);
  if (withdrawn.length) throw new UsageError(`--target: ${withdrawn.join('; ')}`);
  const unknown = targets.filter((t) => !(TARGET_IDS as readonly string[]).includes(t));
  if (unknown.length)
    throw new UsageError(
      `--target: unknown language ${unknown.join(', ')} (languages: ${TARGET_IDS.join(', ')}, or all)`,
    );
  return targets;
}

/**
 * Refuses an output folder that exists and is not a folder: OutputError (exit 3) naming `label`
 * (the setting it came from) and the path, as {@link prepareOutDir} does for the folders it creates.
 */
function checkOutDir(label: string, out: string): void {
  // the folder itself, or the nearest part of its path that exists (`<file>/sub` cannot be made)
  let p = out;
  while (!existsSync(p) && dirname(p) !== p) p = dirname(p);
  if (existsSync(p) && !statSync(p).isDirectory()) throw new OutputError(`${label}: ${p} exists and is not a folder`);
}

/** Ingests resolved inputs into a model (loads the TypeScript compiler on first use). */
export async function modelOf(r: ResolvedRevision): Promise<ProtocolModel> {
  return (await import('../generator/ingest.js')).ingestResolved(r);
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
function isGeneratedFolder(dir: string): boolean {
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
function checkWipe(label: string, dir: string, inputs: ResolvedRevision[]): void {
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
function isLink(path: string): boolean {
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

/**
 * Entries below generated revision folder `dir` that mcpgen did not write, as paths relative to
 * it (sorted, `/`-separated): every file it writes is a regular file that starts with its
 * `@generated by mcpgen` line (after the comment mark of its language), except model.json and
 * package.json at the top. A symbolic link is listed, never followed.
 */
function foreignFiles(dir: string, rel: string[] = [], found: string[] = []): string[] {
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
      (isBuildOutput(parts) || (parts.length === 1 && GENERATED_JSON.has(name)) || isGeneratedFile(full))
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
function generationOptions(args: string[], project: Project) {
  const { values: v } = parse(args, {
    rev: { type: 'string' },
    out: { type: 'string' },
    'spec-dir': { type: 'string' },
    unpinned: { type: 'string' },
    target: { type: 'string' },
    'runtime-import': { type: 'string' },
    validators: { type: 'string' },
    ext: { type: 'string' },
  });
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
const PROGRESS_MS = 10_000;

/** $MCPGEN_PROGRESS_MS as a number of ms (a non-negative integer), else {@link PROGRESS_MS}. */
function progressMs(): number {
  const v = process.env.MCPGEN_PROGRESS_MS;
  return v !== undefined && /^[0-9]+$/.test(v) ? Number(v) : PROGRESS_MS;
}

async function cmdGenerate(args: string[], io: Io, ctx: Context): Promise<number> {
  const t0 = performance.now();
  const project = ctx.project();
  const { targets, out, outLabel, emit, inputs, extensions: names } = generationOptions(args, project);
  const extensions = await extensionModels(names, project);
  for (const e of extensions) for (const w of e.warnings) io.err(`warning: ${e.revision}: ${w}`);
  for (const r of inputs) checkWipe(outLabel, join(out, r.revision), inputs);
  const created = prepareOutDir(outLabel, out);
  try {
    return await generateInto(out, outLabel, inputs, { targets, emit, extensions }, io, t0);
  } catch (e) {
    // a run that failed before writing leaves no empty folder behind
    removeMadeDirs(out, created);
    throw e;
  }
}

async function generateInto(
  out: string,
  outLabel: string,
  inputs: ResolvedRevision[],
  {
    targets,
    emit,
    extensions,
  }: Pick<ReturnType<typeof generationOptions>, 'targets' | 'emit'> & {
    extensions?: Awaited<ReturnType<typeof extensionModels>>;
  },
  io: Io,
  t0: number,
): Promise<number> {
  // a long stage (a schema of thousands of definitions) is said on stderr as it ends, and once a
  // revision has taken that long, each next stage as it begins; stdout stays as it is
  const slow = progressMs();
  for (const r of inputs) {
    const t1 = performance.now();
    const model = await modelOf(r);
    const ingest = performance.now() - t1;
    const steps: string[] = [`ingest ${ingest.toFixed(0)}ms`];
    if (ingest >= slow) io.err(`progress: ${model.revision}: ingest took ${ingest.toFixed(0)}ms`);
    // said first: they may explain why generate refuses the revision (mixed inputs)
    for (const w of model.warnings) io.err(`warning: ${model.revision}: ${w}`);
    const { generate } = await loadGenerate();
    const files = await generate(model, {
      ...emit,
      targets,
      extensions,
      onStepStart: (s) => {
        const so = performance.now() - t1;
        if (so >= slow) io.err(`progress: ${model.revision}: ${s} (${so.toFixed(0)}ms in)`);
      },
      onStep: (s, ms) => {
        steps.push(`${s} ${ms.toFixed(0)}ms`);
        if (ms >= slow) io.err(`progress: ${model.revision}: ${s} took ${ms.toFixed(0)}ms`);
      },
      // the bindings step takes seconds per language: say each as it ends
      onTarget: (lang, n, ms) =>
        io.out(`${model.revision}: bindings ${lang} ${ms.toFixed(0)}ms (${n} ${n === 1 ? 'file' : 'files'})`),
      onWarning: (w) => io.err(`warning: ${model.revision}: ${w}`),
    });
    // looked at again just before the wipe: a file put there while earlier revisions were made is kept
    checkWipe(outLabel, join(out, model.revision), inputs);
    writeTree(join(out, model.revision), files);
    io.out(
      `${model.revision}: ${files.size} files (${steps.join(', ')}) from ${r.source}${r.pinned ? '' : ' (unpinned)'}`,
    );
  }
  io.out(`generated ${inputs.length} revision(s) into ${out} in ${(performance.now() - t0).toFixed(0)}ms`);
  return EXIT.ok;
}

/**
 * `mcpgen list`: each pinned revision with where its inputs were found (`--spec-dir`,
 * `MCP_SPEC_DIR`, `cache`), or `missing` / `mismatch` and why. Exits 3 when the found inputs of
 * some revision do not match their pins, or when no revision has inputs at all.
 */
function cmdList(args: string[], io: Io, ctx: Context): number {
  const { values: v } = parse(args, { 'spec-dir': { type: 'string' } });
  const project = ctx.project();
  const pins = project.pins;
  io.out(`upstream ${pins.upstream.repository} @ ${pins.upstream.commit}`);
  let found = 0;
  let mismatched = 0;
  for (const rev of Object.keys(pins.revisions)) {
    try {
      const r = resolvePinned(
        rev,
        { specDir: v['spec-dir'] as string | undefined, projectSpecDir: project.specDir, cacheDir: project.cacheDir },
        pins,
      );
      io.out(
        `${rev}\t${r.source}\t${dirname(r.files['schema.json'].path)}${pins.revisions[rev].lock ? `\t(${pins.revisions[rev].lock} @ ${r.commit})` : ''}`,
      );
      found++;
    } catch (e) {
      const message = (e as Error).message;
      const mismatch = / does not match the pin /.test(message);
      if (mismatch) mismatched++;
      io.out(`${rev}\t${mismatch ? 'mismatch' : 'missing'}\t${message}`);
    }
  }
  if (mismatched) {
    io.err(`mcpgen list: ${mismatched} revision(s) have inputs that do not match their pins`);
    return EXIT.input;
  }
  if (!found) {
    io.err(
      "mcpgen list: no revision has inputs: set MCP_SPEC_DIR, --spec-dir or the config's inputs.specDir to a folder shaped like the upstream repository, or run `mcpgen pull`",
    );
    return EXIT.input;
  }
  return EXIT.ok;
}

async function cmdPull(args: string[], io: Io, ctx: Context): Promise<number> {
  const { values: v } = parse(args, {
    rev: { type: 'string' },
    'base-url': { type: 'string' },
    ext: { type: 'string' },
  });
  const project = ctx.project();
  const pins = project.pins;
  const exts = extensionNames(v.ext as string | undefined, project);
  // `pull --ext x` alone pulls the extension only
  if (v.ext !== undefined && v.rev === undefined) {
    await pullExtensionInputs(exts, project, io);
    return EXIT.ok;
  }
  const rev = (v.rev as string | undefined) ?? configuredRevisions(project);
  const revs = !rev || rev === 'all' ? Object.keys(pins.revisions) : rev.split(',');
  checkPinned('--rev', revs, pins);
  const baseUrl = checkBaseUrl('--base-url', v['base-url'] as string | undefined) ?? project.baseUrl;
  const written = await pull(revs, { baseUrl, cacheDir: project.cacheDir, log: io.out }, pins);
  io.out(`pulled ${written.length} file(s); ${revs.length} revision(s) verified`);
  await pullExtensionInputs(exts, project, io);
  return EXIT.ok;
}

/** A pinned revision id, or a folder holding schema.json + schema.ts. */
function revisionInput(arg: string, which: string, specDir: string | undefined, project: Project): ResolvedRevision {
  // a pinned id wins over a folder of that name in the working directory (write ./<id> for the folder)
  if (isFolderArgument(arg, project.pins)) return resolveUnpinned(arg, undefined, 'folder');
  if (arg === 'all' || arg.includes(',')) throw new UsageError(`diff compares two revisions, not "${arg}"`);
  return resolveInputs({ rev: arg, 'spec-dir': specDir }, { ...project, what: which })[0];
}

async function cmdDiff(args: string[], io: Io, ctx: Context): Promise<number> {
  const { values: v, positionals } = parse(
    args,
    {
      format: { type: 'string', default: 'md' },
      'fail-on': { type: 'string' },
      'spec-dir': { type: 'string' },
    },
    true,
  );
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

/** Files below `dir`, relative, sorted; empty when `dir` does not exist. */
function listTree(dir: string): string[] {
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

async function cmdCheck(args: string[], io: Io, ctx: Context): Promise<number> {
  const project = ctx.project();
  const { targets, out, outArg, outLabel, emit, inputs, extensions: names } = generationOptions(args, project);
  const extensions = await extensionModels(names, project);
  const tmp = mkdtempSync(join(tmpdir(), 'mcpgen-check-'));
  let differ = 0;
  let same = 0;
  /** Files that differ only in their line endings (CRLF where mcpgen writes LF). */
  let lineEndings = 0;
  /** Why `generate` would refuse to write a revision folder (its own words), per folder. */
  const refusals: string[] = [];
  try {
    for (const r of inputs) {
      const model = await modelOf(r);
      const { generate } = await loadGenerate();
      writeTree(join(tmp, model.revision), await generate(model, { ...emit, targets, extensions }));
      const fresh = join(tmp, model.revision);
      const current = join(out, model.revision);
      const freshFiles = listTree(fresh);
      const currentFiles = listTree(current);
      const shown = (f: string) => join(outArg, model.revision, f);
      // the advice must be what generate does: ask its own check whether it would write here
      let foreign: ReadonlySet<string> = new Set();
      try {
        checkWipe(outLabel, current, inputs);
      } catch (e) {
        if (!(e instanceof UsageError || e instanceof OutputError)) throw e;
        refusals.push(e.message);
        if (existsSync(current) && statSync(current).isDirectory())
          foreign = new Set(isGeneratedFolder(current) ? foreignFiles(current) : currentFiles.map(slashed));
      }
      for (const f of [...new Set([...freshFiles, ...currentFiles])].sort()) {
        if (!currentFiles.includes(f)) {
          io.out(`added    ${shown(f)} (generated, missing from ${outArg})`);
          differ++;
        } else if (!freshFiles.includes(f)) {
          io.out(
            foreign.has(slashed(f))
              ? `foreign  ${shown(f)} (not written by mcpgen: generate refuses to replace the folder while it holds it)`
              : `removed  ${shown(f)} (in ${outArg}, no longer generated)`,
          );
          differ++;
        } else {
          const was = readFileSync(join(current, f), 'utf8');
          const now = readFileSync(join(fresh, f), 'utf8');
          if (was === now) {
            same++;
            continue;
          }
          differ++;
          if (was.includes('\r\n') && was.replace(/\r\n/g, '\n') === now) {
            io.out(`changed  ${shown(f)}: line endings only (CRLF; mcpgen writes LF)`);
            lineEndings++;
            continue;
          }
          io.out(`changed  ${shown(f)}`);
          io.out(`--- ${shown(f)}`);
          io.out('+++ (regenerated)');
          for (const l of firstLineDiff(was, now)) io.out(l);
        }
      }
    }
    // revision folders mcpgen wrote that no revision of this check covers: left over, or checked elsewhere
    const covered = new Set(inputs.map((r) => r.revision));
    for (const name of existsSync(out) && statSync(out).isDirectory() ? readdirSync(out).sort() : []) {
      const dir = join(out, name);
      if (covered.has(name) || isLink(dir) || !statSync(dir).isDirectory() || !isGeneratedFolder(dir)) continue;
      io.out(
        `stale    ${join(outArg, name)}/ (a revision folder mcpgen wrote, not among the revisions checked: delete it if it is no longer used, or check it with --rev)`,
      );
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  if (differ) {
    if (lineEndings)
      io.out(
        `${lineEndings} file(s) differ only in line endings: mcpgen writes LF, and a checkout converted them to CRLF (git's core.autocrlf); keep them LF with this line in .gitattributes: ${slashed(outArg)}/** text eol=lf`,
      );
    const advice = refusals.length
      ? `generate would refuse to write them: ${refusals.join('; ')}`
      : 'run mcpgen generate';
    io.out(`check failed: ${differ} file(s) differ from a fresh generation of ${inputs.length} revision(s); ${advice}`);
    return EXIT.failed;
  }
  io.out(`check ok: ${same} file(s) of ${inputs.length} revision(s) match a fresh generation`);
  return EXIT.ok;
}

/** A relative path with `/` separators (as foreignFiles and .gitattributes write them). */
const slashed = (p: string): string => p.split(sep).join('/');

/** What a command may ask of its invocation: the project (config and lock), loaded on first use. */
export interface Context {
  project: () => Project;
}

/** The commands that read the project: they take `--config FILE`. */
const PROJECT_COMMANDS = new Set(['generate', 'list', 'pull', 'pin', 'diff', 'check', 'pack']);

export const COMMANDS: Record<string, (args: string[], io: Io, ctx: Context) => number | Promise<number>> = {
  generate: cmdGenerate,
  list: cmdList,
  pull: cmdPull,
  pin: async (args, io, ctx) => {
    const project = ctx.project();
    const first = args.find((a) => !a.startsWith('-'));
    // an extension: a pinned extension's name, or a new one given by its package
    if (
      args.some((a) => a === '--package' || a.startsWith('--package=')) ||
      (first && isExtensionArgument(first, project) && !first.includes('@'))
    )
      return (await import('./commands/extensions.js')).cmdPinExtension(args, io, project);
    return (await import('./commands/pin.js')).cmdPin(args, io, project);
  },
  diff: cmdDiff,
  check: cmdCheck,
  serve: cmdServe,
  call: cmdCall,
  tools: async (args, io) => (await import('./commands/tools.js')).cmdTools(args, io),
  pack: async (args, io, ctx) => (await import('./pack.js')).cmdPack(args, io, ctx.project()),
  init: async (args, io) => (await import('./commands/init.js')).cmdInit(args, io, main),
};

export async function main(argv: string[], io: Io = stdio): Promise<number> {
  const [cmd, ...rest] = argv;
  if (!cmd) {
    // no command is a usage error: the usage goes where errors go, so that `mcpgen > file` shows it
    io.err(HELP);
    return EXIT.usage;
  }
  if (cmd === '--help' || cmd === '-h' || cmd === 'help') {
    io.out(HELP);
    return EXIT.ok;
  }
  if (cmd === '--version' || cmd === '-v') {
    io.out(`mcpgen ${MCPGEN_VERSION}`);
    return EXIT.ok;
  }
  const run = COMMANDS[cmd];
  try {
    if (!run) throw new UsageError(`unknown command "${cmd}" (commands: ${Object.keys(COMMANDS).join(', ')})`);
    const { args, config } = PROJECT_COMMANDS.has(cmd) ? takeConfigFlag(rest) : { args: rest, config: undefined };
    let project: Project | undefined;
    return await run(args, io, {
      project: () => (project ??= loadProject(config, undefined, { lockMayBeAbsent: cmd === 'pin' })),
    });
  } catch (e) {
    if (e instanceof ConfigError) {
      io.err(`mcpgen ${cmd}: ${e.message}`);
      return EXIT.usage;
    }
    if (e instanceof UsageError || e instanceof CommandUsageError) {
      io.err(`mcpgen ${cmd ?? ''}: ${e.message}\n(see mcpgen --help)`);
      return EXIT.usage;
    }
    if (
      e instanceof PinError ||
      e instanceof IngestError ||
      e instanceof ServiceUnavailableError ||
      e instanceof OutputError
    ) {
      io.err(`mcpgen ${cmd}: ${e.message}`);
      return EXIT.input;
    }
    // a file-system or network refusal (EISDIR, ENOTDIR, EEXIST, EADDRINUSE, EACCES…): say it, no stack
    if (
      e instanceof Error &&
      typeof (e as NodeJS.ErrnoException).code === 'string' &&
      /^E[A-Z]+$/.test((e as NodeJS.ErrnoException).code!)
    ) {
      io.err(`mcpgen ${cmd}: ${e.message}`);
      return EXIT.input;
    }
    throw e;
  }
}
