/**
 * `mcpgen pack --rev <id>|all|DIR [--out DIR] [--spec-dir DIR | --unpinned DIR]`: the installable
 * npm package of a revision, as a tarball in DIR (default: the current folder). The revisions are
 * resolved as `generate` resolves them (./inputs.ts). For each revision it prints a line per step
 * as the step ends (`<rev>: <step> <ms>ms (<what it made>)`: ingest, generate, runtime, compile,
 * tarball), then the tarball's path and integrity.
 *
 * 1. generate the revision in memory with the runtime entry at `./runtime/codegen/v1.js`
 *    (the `runtimeImport` emit option), which writes the package's `package.json` too;
 * 2. copy the runtime modules reached from the generated code and from the package's entry
 *    points (`exports`) under `runtime/`; a bare import there must be one of the package's
 *    dependencies (or a `node:` built-in);
 * 3. compile everything with the TypeScript compiler API (strict, NodeNext, declarations);
 *    `validators.gen.js` and its `.d.ts` ship as generated, and so do runtime modules written as
 *    JavaScript with declarations (`runtime/protocol/meta-schema.gen.js`);
 * 4. write `<name>-<version>.tgz` the way npm lays it out (`package/…`), deterministically:
 *    files in code-unit order, fixed mtime (npm's 1985-10-26T08:15:00Z), mode 0644, owner 0.
 *
 * The package needs nothing of mcpgen: its only dependencies are the ones the runtime modules
 * import (see `emit/package.ts`).
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, posix, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import ts from 'typescript';
import { CommandUsageError, type Io } from './commands/serve.js';
import { resolveInputs } from './inputs.js';
import { generate } from '../generator/generate.js';
import { ingestResolved } from '../generator/ingest.js';
import type { ProtocolModel } from '../generator/model.js';
import { PACKAGE_ENTRIES, PACKAGE_EXCLUDED, PACKAGE_RUNTIME_IMPORT } from '../generator/emit/package.js';
import { byCodeUnit } from '../generator/util.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const RUNTIME = join(ROOT, 'runtime');

/** The package could not be built (a compile error, an undeclared dependency). */
export class PackError extends Error {}

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
 * Adds to `sources` (package path → text) every runtime module reached from `sources` and from
 * the runtime entry points, following relative imports; checks bare imports against `deps`.
 */
function addRuntimeClosure(sources: Map<string, string>, deps: ReadonlySet<string>): void {
  const queue = [...sources.keys(), ...PACKAGE_ENTRIES.filter((e) => e.module.startsWith('runtime/')).map((e) => `${e.module}.ts`)];
  const seen = new Set<string>();
  while (queue.length) {
    const file = queue.shift()!;
    if (seen.has(file)) continue;
    seen.add(file);
    let text = sources.get(file);
    if (text === undefined) {
      const disk = join(RUNTIME, file.slice('runtime/'.length));
      const js = disk.replace(/\.ts$/, '.js');
      if (file.startsWith('runtime/') && !existsSync(disk) && existsSync(js) && existsSync(js.replace(/\.js$/, '.d.ts'))) {
        // a module generated as JavaScript with its declarations (protocol/meta-schema.gen.js): shipped as it is
        text = readFileSync(js, 'utf8');
        sources.set(file.replace(/\.ts$/, '.js'), text);
        sources.set(file.replace(/\.ts$/, '.d.ts'), readFileSync(js.replace(/\.js$/, '.d.ts'), 'utf8'));
      } else {
        if (!file.startsWith('runtime/') || !existsSync(disk)) throw new PackError(`${file}: no such runtime module (${disk})`);
        text = readFileSync(disk, 'utf8');
        sources.set(file, text);
      }
    }
    for (const spec of importsOf(text)) {
      if (spec.startsWith('.')) {
        const target = posix.normalize(posix.join(posix.dirname(file), spec)).replace(/\.js$/, '.ts');
        if (target.startsWith('../')) throw new PackError(`${file} imports ${spec}, outside the package`);
        if (sources.has(target.replace(/\.ts$/, '.js'))) continue; // validators.gen.js
        queue.push(target);
      } else if (!spec.startsWith('node:') && !deps.has(packageOf(spec))) {
        throw new PackError(`${file} imports ${spec}: ${packageOf(spec)} is not a dependency of the package (emit/package.ts)`);
      }
    }
  }
}

/** The first ancestor of the project holding node_modules/<name>, as that node_modules. */
function nodeModulesWith(name: string): string {
  for (let d = ROOT; ; d = dirname(d)) {
    if (existsSync(join(d, 'node_modules', name, 'package.json'))) return join(d, 'node_modules');
    if (dirname(d) === d) throw new PackError(`pack needs ${name} installed beside mcpgen (not found above ${ROOT})`);
  }
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
 * `"type": "module"` makes every module ESM); returns the emitted files.
 */
function compile(sources: Map<string, string>, manifest: string): Map<string, string> {
  const tmp = mkdtempSync(join(tmpdir(), 'mcpgen-pack-'));
  try {
    const src = join(tmp, 'src');
    for (const [p, text] of [...sources, ['package.json', manifest] as const]) {
      mkdirSync(dirname(join(src, p)), { recursive: true });
      writeFileSync(join(src, p), text);
    }
    symlinkSync(nodeModulesWith('ajv'), join(tmp, 'node_modules'), 'dir');
    const { options, errors } = ts.convertCompilerOptionsFromJson(
      { ...COMPILER_OPTIONS, rootDir: src, outDir: join(tmp, 'out'), typeRoots: [join(nodeModulesWith('@types/node'), '@types')] },
      tmp,
    );
    if (errors.length) throw new PackError(ts.formatDiagnostics(errors, formatHost(tmp)));
    const roots = [...sources.keys()].filter((p) => p.endsWith('.ts') && !p.endsWith('.d.ts')).map((p) => join(src, p));
    const program = ts.createProgram({ rootNames: roots, options });
    const out = new Map<string, string>();
    const result = program.emit(undefined, (file, text) => out.set(relative(join(tmp, 'out'), file).split('\\').join('/'), text));
    const diagnostics = [...ts.getPreEmitDiagnostics(program), ...result.diagnostics];
    if (diagnostics.length) throw new PackError(`the package does not compile:\n${ts.formatDiagnostics(diagnostics, formatHost(src))}`);
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

/** The package's README: what it is and how to connect. */
function readme(model: ProtocolModel, name: string, version: string): string {
  return `# ${name}

Model Context Protocol ${model.revision} (protocol version ${model.protocolVersion}), generated by
mcpgen from the revision's schema: typed messages, ajv validators, method maps, dispatch, and a
typed \`Client\` and \`Server\` over a small runtime. Version ${version}.

\`\`\`ts
import { Server } from '${name}';
import { StdioServerTransport } from '${name}/transport/stdio';

const server = new Server({
  serverInfo: { name: 'example', version: '1.0.0' },
  capabilities: { tools: {} },
  handlers: {
    'tools/list': () => ({ tools: [{ name: 'echo', inputSchema: { type: 'object' } }] }),
    'tools/call': (params) => ({ content: [{ type: 'text', text: JSON.stringify(params.arguments) }] }),
  },
});
await server.connect(new StdioServerTransport());
\`\`\`

Entry points: ${PACKAGE_ENTRIES.map((e) => `\`${posix.join(name, e.subpath)}\``).join(', ')}.
`;
}

/** A step of building a package: its name, what it made (`11 files`), its duration in ms. */
export type PackStep = (step: 'generate' | 'runtime' | 'compile' | 'tarball', detail: string, ms: number) => void;

/** Runs `fn`, then reports it to `onStep` with the detail `detail` derives from its result. */
async function timed<T>(onStep: PackStep | undefined, step: Parameters<PackStep>[0], fn: () => T | Promise<T>, detail: (r: T) => string): Promise<T> {
  const t0 = performance.now();
  const r = await fn();
  onStep?.(step, detail(r), performance.now() - t0);
  return r;
}

/** Builds the package of `model` in memory; `onStep` hears of each step as it ends. */
export async function buildPackage(model: ProtocolModel, onStep?: PackStep): Promise<BuiltPackage> {
  const generated = await timed(onStep, 'generate', () => generate(model, { runtimeImport: PACKAGE_RUNTIME_IMPORT }), (g) => `${g.size} files`);
  const manifestText = generated.get('package.json');
  if (!manifestText) throw new PackError(`${model.revision}: the generator wrote no package.json`);
  const manifest = JSON.parse(manifestText) as { name: string; version: string; dependencies?: Record<string, string> };
  // the revision's own modules (top level); bindings for other languages are not part of it
  const sources = new Map([...generated].filter(([p]) => !p.includes('/') && /\.(ts|js)$/.test(p) && !PACKAGE_EXCLUDED.has(p)));
  const own = sources.size;
  await timed(onStep, 'runtime', () => addRuntimeClosure(sources, new Set(Object.keys(manifest.dependencies ?? {}))), () => `${sources.size - own} runtime modules`);
  const files = new Map<string, Buffer>();
  const compiled = await timed(onStep, 'compile', () => compile(sources, manifestText), (c) => `${c.size} files`);
  for (const [p, text] of compiled) files.set(p, Buffer.from(text));
  for (const [p, text] of sources) if (p.endsWith('.js') || p.endsWith('.d.ts')) files.set(p, Buffer.from(text));
  files.set('package.json', Buffer.from(manifestText));
  files.set('README.md', Buffer.from(readme(model, manifest.name, manifest.version)));
  for (const e of PACKAGE_ENTRIES) {
    for (const f of [`${e.module}.js`, `${e.module}.d.ts`]) if (!files.has(f)) throw new PackError(`entry ${e.subpath}: ${f} was not built`);
  }
  return { name: manifest.name, version: manifest.version, files: new Map([...files].sort(([a], [b]) => byCodeUnit(a, b))) };
}

/** npm's fixed mtime for tarball entries: 1985-10-26T08:15:00Z. */
const MTIME = Date.UTC(1985, 9, 26, 8, 15, 0) / 1000;

function octal(n: number, width: number): string {
  return `${n.toString(8).padStart(width - 1, '0')}\0`;
}

/** One ustar header for a regular file. */
function tarHeader(path: string, size: number): Buffer {
  const h = Buffer.alloc(512);
  let name = path;
  let prefix = '';
  if (Buffer.byteLength(name) > 100) {
    const cut = path.lastIndexOf('/', 155);
    if (cut <= 0 || Buffer.byteLength(path.slice(cut + 1)) > 100) throw new PackError(`${path}: path too long for a tar header`);
    prefix = path.slice(0, cut);
    name = path.slice(cut + 1);
  }
  h.write(name, 0, 100);
  h.write(octal(0o644, 8), 100);
  h.write(octal(0, 8), 108);
  h.write(octal(0, 8), 116);
  h.write(octal(size, 12), 124);
  h.write(octal(MTIME, 12), 136);
  h.write('        ', 148);
  h.write('0', 156);
  h.write('ustar\0', 257);
  h.write('00', 263);
  h.write(prefix, 345, 155);
  let sum = 0;
  for (const b of h) sum += b;
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
  return h;
}

/** A gzipped tar of `files` under `package/`, in the given order. */
export function tarball(files: Map<string, Buffer>): Buffer {
  const parts: Buffer[] = [];
  for (const [p, data] of files) {
    parts.push(tarHeader(`package/${p}`, data.length), data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  parts.push(Buffer.alloc(1024));
  return gzipSync(Buffer.concat(parts), { level: 9 });
}

/** `@mcpgen/mcp-2025-11-25`, `0.1.0+2025-11-25` → `mcpgen-mcp-2025-11-25-0.1.0+2025-11-25.tgz` (npm's name). */
export function tarballName(name: string, version: string): string {
  return `${name.replace(/^@/, '').replace('/', '-')}-${version}.tgz`;
}

/** Builds the package of `model` and writes its tarball into `outDir`; `onStep` as for {@link buildPackage}. */
export async function packRevision(model: ProtocolModel, outDir: string, onStep?: PackStep): Promise<PackResult> {
  const built = await buildPackage(model, onStep);
  const tgz = await timed(onStep, 'tarball', () => tarball(built.files), (t) => `${built.files.size} files, ${(t.length / 1024).toFixed(1)} kB`);
  mkdirSync(outDir, { recursive: true });
  const path = resolve(outDir, tarballName(built.name, built.version));
  writeFileSync(path, tgz);
  return { ...built, path, size: tgz.length, integrity: `sha512-${createHash('sha512').update(tgz).digest('base64')}` };
}

function parse(args: string[], options: NonNullable<ParseArgsConfig['options']>) {
  try {
    return parseArgs({ args, options, allowPositionals: false, strict: true });
  } catch (e) {
    throw new CommandUsageError((e as Error).message);
  }
}

export async function cmdPack(args: string[], io: Io): Promise<number> {
  const { values: v } = parse(args, {
    rev: { type: 'string' },
    out: { type: 'string', default: '.' },
    'spec-dir': { type: 'string' },
    unpinned: { type: 'string' },
  });
  if (!v.rev && !v.unpinned) throw new CommandUsageError('--rev is required: mcpgen pack --rev <id>|all|DIR, or --unpinned DIR');
  const inputs = resolveInputs(v as { rev?: string; 'spec-dir'?: string; unpinned?: string });
  for (const r of inputs) {
    const t0 = performance.now();
    const model = ingestResolved(r);
    io.out(`${model.revision}: ingest ${(performance.now() - t0).toFixed(0)}ms (${Object.keys(model.types).length} types) from ${r.source}${r.pinned ? '' : ' (unpinned)'}`);
    for (const w of model.warnings) io.err(`warning: ${model.revision}: ${w}`);
    try {
      const p = await packRevision(model, resolve(v.out as string), (step, detail, ms) => io.out(`${model.revision}: ${step} ${ms.toFixed(0)}ms (${detail})`));
      io.out(`${model.revision}: ${p.path} (${p.name}@${p.version}, ${p.files.size} files, ${(p.size / 1024).toFixed(1)} kB, ${(performance.now() - t0).toFixed(0)}ms)`);
      io.out(`  integrity ${p.integrity}`);
    } catch (e) {
      if (!(e instanceof PackError)) throw e;
      io.err(`mcpgen pack: ${model.revision}: ${e.message}`);
      return 1;
    }
  }
  return 0;
}
