/**
 * The runtime package (`@mcpgen/runtime`) the packed revision packages peer-depend on, as a
 * tarball an app installs with npm: this checkout's `runtime/` compiled to ESM JavaScript with
 * declarations, an `exports` map with the runtime package's subpaths, its dependencies pinned
 * as in mcpgen's package.json.
 *
 * This is the one place the tests get the runtime package from: once the repository builds the
 * runtime package itself, {@link buildRuntimePackage} becomes its `npm pack`.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import ts from 'typescript';
import { tarball, tarballName } from '../../../cli/pack.js';
import { ROOT } from '../../generator/support.js';

/** Each subpath of the runtime package and the runtime modules (under runtime/, no extension) it re-exports. */
export const RUNTIME_SUBPATHS: Readonly<Record<string, readonly string[]>> = {
  '.': ['index'],
  './codegen/v1': ['codegen/v1'],
  './jsonrpc': ['jsonrpc/errors', 'jsonrpc/message', 'jsonrpc/transport'],
  './protocol': ['protocol/table', 'protocol/dispatch', 'protocol/formats', 'protocol/versions'],
  './engine': ['engine/peer'],
  './session': ['session/client', 'session/server'],
  './features': ['features/server-features', 'features/pagination'],
  './tasks': ['tasks/receiver', 'tasks/requestor', 'tasks/store', 'tasks/extension'],
  './stateless': ['stateless/mrtr', 'stateless/subscriptions', 'stateless/cache', 'stateless/dual-era'],
  './stdio': ['transport/stdio'],
  './memory': ['transport/memory'],
  './http': ['transport/http/session/server', 'transport/http/session/client', 'transport/http/io/node'],
  './http/stateless': ['transport/http/stateless/server', 'transport/http/stateless/client', 'transport/http/stateless/headers'],
  './http/legacy-sse': ['transport/http/legacy-sse/legacy-sse', 'transport/http/legacy-sse/fallback'],
};

const ROOT_PACKAGE = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string; dependencies: Record<string, string> };
/** The runtime's own dependencies (what its modules import besides node: built-ins). */
const RUNTIME_DEPENDENCIES = ['ajv', 'ajv-formats', 'uri-template-matcher'];

/** Builds `@mcpgen/runtime@<mcpgen version>` into `dir`; resolves with the tarball's path. Throws on a compile error. */
export function buildRuntimePackage(dir: string): string {
  const tmp = mkdtempSync(join(tmpdir(), 'mcpgen-runtime-pkg-'));
  try {
    const src = join(tmp, 'src');
    cpSync(join(ROOT, 'runtime'), join(src, 'runtime'), { recursive: true, filter: (p) => !p.endsWith('.md') });
    const exports: Record<string, unknown> = {};
    for (const [subpath, modules] of Object.entries(RUNTIME_SUBPATHS)) {
      let module = `runtime/${modules[0]}`;
      if (modules.length > 1) {
        module = `entries/${subpath.slice(2)}`;
        const file = join(src, `${module}.ts`);
        mkdirSync(dirname(file), { recursive: true });
        writeFileSync(file, modules.map((m) => `export * from '${relative(dirname(file), join(src, 'runtime', m)).split('\\').join('/')}.js';\n`).join(''));
      }
      exports[subpath] = { types: `./${module}.d.ts`, default: `./${module}.js` };
    }
    writeFileSync(join(src, 'package.json'), '{ "type": "module" }\n');
    symlinkSync(join(ROOT, 'node_modules'), join(tmp, 'node_modules'), 'dir');
    const roots = ts.sys.readDirectory(src, ['.ts'], ['**/*.d.ts'], ['**/*']);
    const program = ts.createProgram({
      rootNames: roots,
      options: {
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.NodeNext,
        moduleResolution: ts.ModuleResolutionKind.NodeNext,
        lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
        types: ['node'],
        strict: true,
        declaration: true,
        skipLibCheck: true,
        isolatedModules: true,
        verbatimModuleSyntax: true,
        rootDir: src,
        outDir: join(tmp, 'out'),
        newLine: ts.NewLineKind.LineFeed,
      },
    });
    const files = new Map<string, Buffer>();
    const result = program.emit(undefined, (file, text) => files.set(relative(join(tmp, 'out'), file).split('\\').join('/'), Buffer.from(text)));
    const diagnostics = [...ts.getPreEmitDiagnostics(program), ...result.diagnostics];
    if (diagnostics.length) {
      throw new Error(ts.formatDiagnostics(diagnostics, { getCanonicalFileName: (f) => f, getCurrentDirectory: () => src, getNewLine: () => '\n' }));
    }
    const manifest = {
      name: '@mcpgen/runtime',
      version: ROOT_PACKAGE.version,
      type: 'module',
      sideEffects: false,
      exports,
      dependencies: Object.fromEntries(RUNTIME_DEPENDENCIES.map((d) => [d, ROOT_PACKAGE.dependencies[d]])),
    };
    files.set('package.json', Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`));
    const sorted = new Map([...files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    mkdirSync(dir, { recursive: true });
    const path = join(dir, tarballName(manifest.name, manifest.version));
    writeFileSync(path, tarball(sorted));
    return path;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
