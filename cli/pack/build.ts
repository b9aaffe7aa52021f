/**
 * `mcpgen pack --rev <id>|all|DIR [--out DIR] [--spec-dir DIR | --unpinned DIR]`: the installable
 * npm package of a revision, as a tarball in DIR (default: the current folder). The revisions are
 * resolved as `generate` resolves them (../inputs.ts). For each revision it prints a line per step
 * as the step ends (`<rev>: <step> <ms>ms (<what it made>)`: ingest, generate, entries, compile,
 * tarball), then the tarball's path and integrity.
 *
 * 1. generate the revision in memory with the runtime entry at `@mcpgen/runtime/codegen/v1`
 *    (`PACKAGE_RUNTIME_IMPORT`, the `runtimeImport` emit option), which writes the package's
 *    `package.json` too; every import of the generated modules must stay inside the package, be
 *    a `node:` built-in or name the runtime package (its peer dependency);
 * 2. write the entry modules of the revision's export table (`entries/…`, emit/package.ts
 *    `REVISION_EXPORTS`): named re-exports from the runtime package;
 * 3. compile the generated modules with the TypeScript compiler API (strict, NodeNext,
 *    declarations) against the runtime's types: the installed runtime package when one is
 *    installed beside mcpgen, else this checkout's runtime sources (type-checked, not emitted);
 *    `validators.gen.js` and its `.d.ts` ship as generated;
 * 4. write `<name>-<version>.tgz` the way npm lays it out (./tarball.ts), files in code-unit order.
 *
 * The package carries no runtime: an app installs the runtime package once, and every
 * revision's package in it uses that one (one `RpcError` class, one engine).
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, posix, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import type { Io } from '../command.js';
import { type Project, configuredRevisions } from '../config.js';
import { followedNote, splitWarnings } from '../generation.js';
import { UsageError, prepareOutDir, resolveInputs } from '../inputs.js';
import { generate } from '../../generator/generate.js';
import { ingestResolved } from '../../generator/ingest.js';
import type { ProtocolModel } from '../../generator/model.js';
import {
  PACKAGE_EXCLUDED,
  PACKAGE_RUNTIME_IMPORT,
  RUNTIME_PACKAGE,
  packageEntries,
  packageEntryModules,
} from '../../generator/emit/package.js';
import { byCodeUnit } from '../../generator/util.js';
import { PackError, tarball, tarballName } from './tarball.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** This checkout's runtime entry of generated code, the types `pack` compiles against when no runtime package is installed. */
const RUNTIME_SOURCE_ENTRY = fileURLToPath(new URL('../../runtime/codegen/v1.ts', import.meta.url));

/** A built package: its manifest and files (path inside the package → bytes). */
export interface BuiltPackage {
  name: string;
  version: string;
  files: Map<string, Buffer>;
}

/** A written tarball. */
export interface PackResult extends BuiltPackage {
  /** Absolute path of the tarball. */
  path: string;
  size: number;
  /** `sha512-<base64>`, as npm's lockfiles name it. */
  integrity: string;
}

/** `@scope/name` or `name` of a bare specifier (`ajv/dist/2020.js` → `ajv`). */
function packageOf(spec: string): string {
  const parts = spec.split('/');
  return spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

const importsOf = (text: string): string[] => ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName);

/**
 * Checks every import of `sources` (package path → text): relative ones resolve among
 * `sources`, bare ones are `node:` built-ins or packages of `peers`.
 */
function checkImports(sources: ReadonlyMap<string, string>, peers: ReadonlySet<string>): void {
  for (const [file, text] of sources) {
    for (const spec of importsOf(text)) {
      if (spec.startsWith('.')) {
        const target = posix.normalize(posix.join(posix.dirname(file), spec));
        if (!sources.has(target) && !sources.has(target.replace(/\.js$/, '.ts')))
          throw new PackError(`${file} imports ${spec}: not a module of the package`);
      } else if (!spec.startsWith('node:') && !peers.has(packageOf(spec))) {
        throw new PackError(
          `${file} imports ${spec}: ${packageOf(spec)} is not a dependency of the package (emit/package.ts)`,
        );
      }
    }
  }
}

/** The first ancestor of the project holding node_modules/<name>, as that node_modules (undefined: none). */
function findNodeModulesWith(name: string): string | undefined {
  for (let d = ROOT; ; d = dirname(d)) {
    if (existsSync(join(d, 'node_modules', name, 'package.json'))) return join(d, 'node_modules');
    if (dirname(d) === d) return undefined;
  }
}

function nodeModulesWith(name: string): string {
  const found = findNodeModulesWith(name);
  if (!found) throw new PackError(`pack needs ${name} installed beside mcpgen (not found above ${ROOT})`);
  return found;
}

/**
 * The node_modules holding an installed runtime package whose `codegen/v1` declarations
 * resolve (NodeNext, `types` condition); undefined when there is none, or it is not built.
 */
function installedRuntime(): string | undefined {
  const nodeModules = findNodeModulesWith(RUNTIME_PACKAGE);
  if (!nodeModules) return undefined;
  const options = { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext };
  const { resolvedModule } = ts.resolveModuleName(
    PACKAGE_RUNTIME_IMPORT,
    join(dirname(nodeModules), 'index.ts'),
    options,
    ts.sys,
    undefined,
    undefined,
    ts.ModuleKind.ESNext,
  );
  return resolvedModule && existsSync(resolvedModule.resolvedFileName) ? nodeModules : undefined;
}

const COMPILER_OPTIONS = {
  target: 'ES2022',
  module: 'NodeNext',
  moduleResolution: 'NodeNext',
  lib: ['ES2023', 'DOM'],
  types: ['node'],
  strict: true,
  declaration: true,
  skipLibCheck: true,
  isolatedModules: true,
  verbatimModuleSyntax: true,
  esModuleInterop: true,
  newLine: 'lf',
  noEmitOnError: true,
};

/**
 * Compiles `sources` (package path → text) in a temporary folder beside `manifest` (its
 * `"type": "module"` makes every module ESM); returns the emitted files of `sources` alone.
 * The runtime package resolves as installed beside mcpgen; when none is, its `codegen/v1`
 * entry maps to this checkout's runtime sources, which are type-checked but not emitted.
 */
function compile(sources: Map<string, string>, manifest: string): Map<string, string> {
  const tmp = mkdtempSync(join(tmpdir(), 'mcpgen-pack-'));
  try {
    const src = join(tmp, 'src');
    for (const [p, text] of [...sources, ['package.json', manifest] as const]) {
      mkdirSync(dirname(join(src, p)), { recursive: true });
      writeFileSync(join(src, p), text);
    }
    const installed = installedRuntime();
    symlinkSync(installed ?? nodeModulesWith('ajv'), join(tmp, 'node_modules'), 'dir');
    const paths = installed ? undefined : { [PACKAGE_RUNTIME_IMPORT]: [RUNTIME_SOURCE_ENTRY] };
    const { options, errors } = ts.convertCompilerOptionsFromJson(
      {
        ...COMPILER_OPTIONS,
        outDir: join(tmp, 'out'),
        paths,
        typeRoots: [join(nodeModulesWith('@types/node'), '@types')],
      },
      tmp,
    );
    if (errors.length) throw new PackError(ts.formatDiagnostics(errors, formatHost(tmp)));
    const roots = [...sources.keys()].filter((p) => p.endsWith('.ts') && !p.endsWith('.d.ts')).map((p) => join(src, p));
    const program = ts.createProgram({ rootNames: roots, options });
    const diagnostics = [...ts.getPreEmitDiagnostics(program)];
    const out = new Map<string, string>();
    if (!diagnostics.length) {
      for (const root of roots) {
        const file = program.getSourceFile(root);
        if (!file) throw new PackError(`${relative(src, root)}: not in the program`);
        const base = relative(src, root).split('\\').join('/').replace(/\.ts$/, '');
        const result = program.emit(file, (name, text) =>
          out.set(name.endsWith('.d.ts') ? `${base}.d.ts` : `${base}.js`, text),
        );
        diagnostics.push(...result.diagnostics);
      }
    }
    if (diagnostics.length)
      throw new PackError(`the package does not compile:\n${ts.formatDiagnostics(diagnostics, formatHost(src))}`);
    return out;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

const formatHost = (dir: string): ts.FormatDiagnosticsHost => ({
  getCanonicalFileName: (f) => f,
  getCurrentDirectory: () => dir,
  getNewLine: () => '\n',
});

/** The package's README: what it is, how to connect, and what each entry point gives. */
function readme(model: ProtocolModel, name: string, version: string): string {
  const entries = packageEntries(model).filter((e) => e.rows.length);
  return `# ${name}

Model Context Protocol ${model.revision} (protocol version ${model.protocolVersion}, ${model.lifecycle}
lifecycle), generated by mcpgen from the revision's schema: typed messages, ajv validators, method
maps, dispatch, and a typed \`Client\` and \`Server\`. Version ${version}.

It runs on the runtime package \`${RUNTIME_PACKAGE}\`, a peer dependency: install it beside this
package (\`npm install ${RUNTIME_PACKAGE} ${name}\`). One runtime serves every revision's package
in an app, so errors from any of them are \`instanceof RpcError\` of \`${name}/errors\`.

\`\`\`ts
import { type Protocol, Server } from '${name}';
import { ServerFeatures } from '${name}/features';
import { StdioServerTransport } from '${name}/stdio';

const features = new ServerFeatures<Protocol>();
features.tool<{ text: string }>({
  name: 'echo',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  handler: ({ text }) => text,
});
const server = new Server({ serverInfo: { name: 'example', version: '1.0.0' }, capabilities: features.capabilities(), handlers: features.handlers() });
await server.connect(new StdioServerTransport());
\`\`\`

Entry points:

- \`${name}\`: the revision's types, \`validators\`, \`table\`, \`Client\`, \`Server\`, dispatch;
${entries.map((e) => `- \`${posix.join(name, e.subpath)}\`: ${e.rows.map((r) => r.what).join('; ')}.`).join('\n')}
`;
}

/** A step of building a package: its name, what it made (`11 files`), its duration in ms. */
export type PackStep = (step: 'generate' | 'entries' | 'compile' | 'tarball', detail: string, ms: number) => void;

/** Runs `fn`, then reports it to `onStep` with the detail `detail` derives from its result. */
async function timed<T>(
  onStep: PackStep | undefined,
  step: Parameters<PackStep>[0],
  fn: () => T | Promise<T>,
  detail: (r: T) => string,
): Promise<T> {
  const t0 = performance.now();
  const r = await fn();
  onStep?.(step, detail(r), performance.now() - t0);
  return r;
}

/** Builds the package of `model` in memory; `onStep` hears of each step as it ends. */
export async function buildPackage(model: ProtocolModel, onStep?: PackStep): Promise<BuiltPackage> {
  const generated = await timed(
    onStep,
    'generate',
    () => generate(model, { runtimeImport: PACKAGE_RUNTIME_IMPORT }),
    (g) => `${g.size} files`,
  );
  const manifestText = generated.get('package.json');
  if (!manifestText) throw new PackError(`${model.revision}: the generator wrote no package.json`);
  const manifest = JSON.parse(manifestText) as {
    name: string;
    version: string;
    peerDependencies?: Record<string, string>;
    dependencies?: Record<string, string>;
  };
  // the revision's own modules (top level); bindings for other languages are not part of it
  const sources = new Map(
    [...generated].filter(([p]) => !p.includes('/') && /\.(ts|js)$/.test(p) && !PACKAGE_EXCLUDED.has(p)),
  );
  checkImports(
    sources,
    new Set([...Object.keys(manifest.peerDependencies ?? {}), ...Object.keys(manifest.dependencies ?? {})]),
  );
  const entries = await timed(
    onStep,
    'entries',
    () => packageEntryModules(model),
    (m) => `${m.size / 2} entry modules`,
  );
  const files = new Map<string, Buffer>();
  const compiled = await timed(
    onStep,
    'compile',
    () => compile(sources, manifestText),
    (c) => `${c.size} files`,
  );
  for (const [p, text] of compiled) files.set(p, Buffer.from(text));
  for (const [p, text] of sources) if (p.endsWith('.js') || p.endsWith('.d.ts')) files.set(p, Buffer.from(text));
  for (const [p, text] of entries) files.set(p, Buffer.from(text));
  files.set('package.json', Buffer.from(manifestText));
  files.set('README.md', Buffer.from(readme(model, manifest.name, manifest.version)));
  for (const e of packageEntries(model)) {
    for (const f of [`${e.module}.js`, `${e.module}.d.ts`])
      if (!files.has(f)) throw new PackError(`entry ${e.subpath}: ${f} was not built`);
  }
  return {
    name: manifest.name,
    version: manifest.version,
    files: new Map([...files].sort(([a], [b]) => byCodeUnit(a, b))),
  };
}

/** Builds the package of `model` and writes its tarball into `outDir`; `onStep` as for {@link buildPackage}. */
export async function packRevision(model: ProtocolModel, outDir: string, onStep?: PackStep): Promise<PackResult> {
  const built = await buildPackage(model, onStep);
  const tgz = await timed(
    onStep,
    'tarball',
    () => tarball(built.files),
    (t) => `${built.files.size} files, ${(t.length / 1024).toFixed(1)} kB`,
  );
  mkdirSync(outDir, { recursive: true });
  const path = resolve(outDir, tarballName(built.name, built.version));
  writeFileSync(path, tgz);
  return { ...built, path, size: tgz.length, integrity: `sha512-${createHash('sha512').update(tgz).digest('base64')}` };
}

/** `mcpgen pack` with its flags parsed (../commands/pack.ts). */
export async function packRevisions(
  flags: { rev?: string; out: string; 'spec-dir'?: string; unpinned?: string },
  io: Io,
  project?: Project,
): Promise<number> {
  const v = flags;
  const rev = (v.rev as string | undefined) ?? (v.unpinned || !project ? undefined : configuredRevisions(project));
  if (!rev && !v.unpinned)
    throw new UsageError(
      '--rev is required: mcpgen pack --rev <id>|all|DIR, or --unpinned DIR (or "revisions" in mcpgen.config.json)',
    );
  const inputs = resolveInputs({ ...(v as { 'spec-dir'?: string; unpinned?: string }), rev }, project);
  // before the work: an --out that cannot be written is said at once, not after compiling
  prepareOutDir(`--out ${v.out as string}`, v.out as string);
  for (const r of inputs) {
    const t0 = performance.now();
    const model = ingestResolved(r);
    io.out(
      `${model.revision}: ingest ${(performance.now() - t0).toFixed(0)}ms (${Object.keys(model.types).length} types) from ${r.source}${r.pinned ? '' : ' (unpinned)'}`,
    );
    // as generate says them: the places where schema.json lost what schema.ts says in one note
    const { followed, others } = splitWarnings(model);
    for (const w of others) io.err(`warning: ${model.revision}: ${w}`);
    const note = followedNote(
      [[model.revision, followed]],
      (rev) => `the ${rev}/model.json \`mcpgen generate\` writes`,
    );
    if (note) io.err(note);
    try {
      const p = await packRevision(model, resolve(v.out as string), (step, detail, ms) =>
        io.out(`${model.revision}: ${step} ${ms.toFixed(0)}ms (${detail})`),
      );
      io.out(
        `${model.revision}: ${p.path} (${p.name}@${p.version}, ${p.files.size} files, ${(p.size / 1024).toFixed(1)} kB, ${(performance.now() - t0).toFixed(0)}ms)`,
      );
      io.out(`  integrity ${p.integrity}`);
    } catch (e) {
      if (!(e instanceof PackError)) throw e;
      io.err(`mcpgen pack: ${model.revision}: ${e.message}`);
      return 1;
    }
  }
  return 0;
}
