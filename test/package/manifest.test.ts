/**
 * The two manifests agree with the code: runtime/package.json (the `@mcpgen/runtime` workspace)
 * maps every subpath to a source that exists, one per runtime layer; its dependencies are
 * exactly the packages runtime/ imports, at mcpgen's pinned versions; mcpgen depends on the
 * runtime of its own version, keeps tsx out of its dependencies, and ships only bin/ and the
 * compiled tree. The published runtime manifest (scripts/build.ts) maps each subpath to its
 * compiled module and declarations. Every row of the per-revision export table
 * (generator/emit/package.ts `REVISION_EXPORTS`) names a runtime subpath that exists and only
 * names it exports: each value at run time, each value and type in the module's declarations.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import { join, relative, sep } from 'node:path';
import ts from 'typescript';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { REVISION_EXPORTS } from '../../generator/emit/package.js';
import { runtimeManifest } from '../../scripts/build.js';
import { ROOT } from '../generator/support.js';

interface Manifest {
  name: string;
  version: string;
  private?: boolean;
  sideEffects?: boolean;
  exports: Record<string, unknown>;
  dependencies: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  files?: string[];
  workspaces?: string[];
  engines?: { node?: string };
}
const read = (p: string) => JSON.parse(readFileSync(join(ROOT, p), 'utf8')) as Manifest;
const runtime = read('runtime/package.json');
const root = read('package.json');

function sources(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((n) => {
      const p = join(dir, n);
      return statSync(p).isDirectory() ? sources(p) : n.endsWith('.ts') ? [p] : [];
    });
}

/** `ajv/dist/2020.js` → `ajv`, `@scope/x/y` → `@scope/x`. */
const packageOf = (spec: string) =>
  spec
    .split('/')
    .slice(0, spec.startsWith('@') ? 2 : 1)
    .join('/');

/** The files an `exports` target names, through condition maps (null: not exported under that condition). */
const targetFiles = (target: unknown): string[] =>
  typeof target === 'string'
    ? [target]
    : target && typeof target === 'object'
      ? Object.values(target).flatMap(targetFiles)
      : [];

/** What Node resolves for a source `exports` target: its `default` condition. */
const nodeTarget = (target: unknown): unknown =>
  target && typeof target === 'object' ? (target as Record<string, unknown>).default : target;

test('runtime/package.json: every subpath maps to an existing source; each layer has its subpath', () => {
  assert.is(runtime.name, '@mcpgen/runtime');
  assert.is(runtime.sideEffects, false);
  for (const [subpath, target] of Object.entries(runtime.exports)) {
    const files = targetFiles(target);
    assert.ok(files.length > 0, subpath);
    for (const f of files) assert.ok(existsSync(join(ROOT, 'runtime', f)), `${subpath} → ${f}: no such file`);
  }
  for (const layer of [
    'jsonrpc',
    'codec',
    'protocol',
    'engine',
    'session',
    'features',
    'tasks',
    'stateless',
    'auth',
    'stores',
  ]) {
    assert.is(nodeTarget(runtime.exports[`./${layer}`]), `./${layer}/index.ts`, layer);
  }
  assert.is(runtime.exports['./codegen/v1'], './codegen/v1.ts');
  assert.is(nodeTarget(runtime.exports['./stdio']), './transport/stdio.ts');
  assert.is(nodeTarget(runtime.exports['./http']), './transport/http/session/index.ts');
});

test('runtime/package.json: browsers and workers get the fetch forms, no node-only subpath', () => {
  const web = ['browser', 'worker', 'workerd'];
  const at = (subpath: string) => runtime.exports[subpath] as Record<string, string | null>;
  for (const condition of [...web, 'deno']) {
    assert.is(at('.')[condition], './web.ts', condition);
    assert.is(at('./http')[condition], './transport/http/session/web.ts', condition);
    assert.is(at('./http/stateless')[condition], './transport/http/stateless/web.ts', condition);
    assert.is(at('./auth')[condition], './auth/web.ts', condition);
  }
  for (const condition of web) {
    assert.is(at('./stdio')[condition], null, condition);
    assert.is(at('./http/legacy-sse')[condition], null, condition);
    assert.is(at('./auth/loopback')[condition], null, condition);
  }
  // conditions before `default`, which comes last (Node takes the first that matches)
  for (const [subpath, target] of Object.entries(runtime.exports)) {
    if (typeof target === 'object' && target) assert.is(Object.keys(target).at(-1), 'default', subpath);
  }
});

test('runtime dependencies: exactly what runtime/ imports, at the versions mcpgen pins; an optional peer only below stores/redis; @opentelemetry/api a peer', () => {
  const imported = new Map<string, string[]>();
  for (const file of sources(join(ROOT, 'runtime'))) {
    for (const { fileName } of ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles) {
      if (fileName.startsWith('.') || fileName.startsWith('node:') || builtinModules.includes(fileName)) continue;
      const name = packageOf(fileName);
      imported.set(name, [...(imported.get(name) ?? []), relative(join(ROOT, 'runtime'), file).split(sep).join('/')]);
    }
  }
  const optional = Object.entries(runtime.peerDependenciesMeta ?? {})
    .filter(([, m]) => m.optional)
    .map(([name]) => name);
  assert.equal(optional, ['ioredis']);
  // the OpenTelemetry API is the application's: an SDK registers its globals through the API copy
  // it resolves, and API 1.x ignores globals an older minor registered, so a copy of the runtime's
  // own beside the application's would trace nothing (test/package/install.test.ts installs 1.9)
  const peers = ['@opentelemetry/api'];
  assert.is(runtime.peerDependencies?.['@opentelemetry/api'], '^1.9.0');
  assert.not.ok(runtime.peerDependenciesMeta?.['@opentelemetry/api']?.optional, 'the API is imported by the engine');
  assert.ok(root.devDependencies?.['@opentelemetry/api']?.startsWith('1.'), 'mcpgen develops against an API 1.x');
  assert.equal([...Object.keys(runtime.dependencies), ...optional, ...peers].sort(), [...imported.keys()].sort());
  for (const [name, version] of Object.entries(runtime.dependencies)) {
    const pinned = root.dependencies[name] ?? root.devDependencies?.[name];
    assert.is(version, pinned, `${name}: the runtime pins ${version}, mcpgen ${pinned}`);
  }
  for (const name of optional) {
    // an app that never imports @mcpgen/runtime/stores/redis never needs it
    for (const file of imported.get(name)!)
      assert.ok(file.startsWith('stores/redis/'), `${file} imports the optional peer ${name}`);
    assert.is(runtime.peerDependencies?.[name], `^${root.dependencies[name] ?? root.devDependencies?.[name]}`);
  }
});

/** npm's semver (what npm reads `engines` with). */
const semver = createRequire(import.meta.url)('semver') as {
  satisfies(version: string, range: string): boolean;
  minVersion(range: string): { version: string } | null;
};

interface Locked {
  version?: string;
  engines?: { node?: string } | string[];
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

test("engines: every package installed with the runtime or mcpgen admits the first release of each Node line mcpgen's engines name (npm's semver)", () => {
  const range = root.engines?.node ?? '';
  assert.is(runtime.engines?.node, range, 'the runtime names the Node lines mcpgen names');
  const firsts = range.split('||').map((r) => semver.minVersion(r.trim())!.version);
  assert.equal(firsts, ['20.6.0', '22.0.0', '24.0.0']);
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, Locked>;
  };
  // a dependency of the package at `from` (a package-lock key): nested first, then up the tree
  const resolve = (from: string, name: string): string | undefined => {
    for (let at = from; ; at = at.slice(0, Math.max(0, at.lastIndexOf('/node_modules/')))) {
      const key = `${at ? `${at}/` : ''}node_modules/${name}`;
      if (lock.packages[key]) return key;
      if (!at) return undefined;
    }
  };
  const wrong: string[] = [];
  const seen = new Set<string>();
  const queue = [...Object.keys(runtime.dependencies), ...Object.keys(root.dependencies)]
    .filter((n) => n !== runtime.name)
    .map((n) => resolve('', n));
  for (let key = queue.shift(); key !== undefined || queue.length; key = queue.shift()) {
    if (key === undefined || seen.has(key)) continue;
    seen.add(key);
    const p = lock.packages[key]!;
    const node = Array.isArray(p.engines) ? undefined : p.engines?.node;
    const refused = node === undefined ? [] : firsts.filter((v) => !semver.satisfies(v, node));
    if (refused.length)
      wrong.push(
        `${key.slice(key.lastIndexOf('node_modules/') + 13)} ${p.version}: engines.node ${node} refuses ${refused.join(', ')}`,
      );
    for (const d of Object.keys({ ...p.dependencies, ...p.optionalDependencies })) queue.push(resolve(key, d));
  }
  assert.ok(seen.size > 10, `walked ${seen.size} packages`);
  assert.equal(wrong, []);
});

test('mcpgen: depends on the runtime of its own version; tsx only for development; ships bin/, dist/mcpgen/ and the manual', () => {
  assert.is(runtime.version, root.version);
  assert.is(root.dependencies['@mcpgen/runtime'], root.version);
  assert.equal(root.workspaces, ['runtime']);
  assert.not.ok('tsx' in root.dependencies, 'tsx is a run-time dependency');
  assert.ok(root.devDependencies && 'tsx' in root.devDependencies, 'tsx is not a devDependency');
  // the manual ships too (Markdown only), so the packed README's links name files of the package
  assert.equal(root.files, [
    'bin/',
    'dist/mcpgen/',
    'README.md',
    'CHANGELOG.md',
    'docs/**/*.md',
    'TIER.md',
    'VERSIONING.md',
    'DEPENDENCY_POLICY.md',
    'ROADMAP.md',
    'SECURITY.md',
    'CONTRIBUTING.md',
  ]);
});

test('the published runtime manifest maps every subpath to compiled JavaScript and declarations', () => {
  const published = runtimeManifest(runtime as unknown as Record<string, unknown>) as unknown as Manifest & {
    types: string;
  };
  assert.is(published.private, undefined);
  assert.is(published.types, './index.d.ts');
  assert.equal(Object.keys(published.exports), Object.keys(runtime.exports));
  assert.equal((published.exports['./http/stateless'] as Record<string, unknown>).default, {
    types: './transport/http/stateless/index.d.ts',
    default: './transport/http/stateless/index.js',
  });
  assert.equal((published.exports['./http/stateless'] as Record<string, unknown>).browser, {
    types: './transport/http/stateless/web.d.ts',
    default: './transport/http/stateless/web.js',
  });
  assert.is((published.exports['./stdio'] as Record<string, unknown>).browser, null);
  assert.equal(published.exports['./codegen/v1'], { types: './codegen/v1.d.ts', default: './codegen/v1.js' });
  assert.is(published.exports['./package.json'], './package.json');
  assert.equal(published.dependencies, runtime.dependencies);
});

test("REVISION_EXPORTS: each row's runtime subpath is in runtime/package.json and exports every value and type the row lists", async () => {
  const entries = new Map<string, string>();
  for (const row of REVISION_EXPORTS) {
    assert.ok(Object.hasOwn(runtime.exports, row.from), `${row.subpath}: @mcpgen/runtime has no subpath ${row.from}`);
    entries.set(row.from, join(ROOT, 'runtime', nodeTarget(runtime.exports[row.from]) as string));
  }
  const program = ts.createProgram([...entries.values()], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    skipLibCheck: true,
    noEmit: true,
    types: [],
  });
  const checker = program.getTypeChecker();
  const exported = new Map<string, Set<string>>();
  for (const [from, file] of entries) {
    const source = program.getSourceFile(file);
    const symbol = source && checker.getSymbolAtLocation(source);
    assert.ok(symbol, `${file} is not a module`);
    exported.set(from, new Set(checker.getExportsOfModule(symbol).map((s) => s.name)));
  }
  const missing: string[] = [];
  for (const row of REVISION_EXPORTS) {
    const names = exported.get(row.from)!;
    const mod = (await import(`@mcpgen/runtime${row.from.slice(1)}`)) as Record<string, unknown>;
    for (const v of row.values) {
      if (mod[v] === undefined)
        missing.push(`${row.subpath} value ${v}: not at run time in @mcpgen/runtime${row.from.slice(1)}`);
      if (!names.has(v)) missing.push(`${row.subpath} value ${v}: not declared by @mcpgen/runtime${row.from.slice(1)}`);
    }
    for (const t of row.types)
      if (!names.has(t)) missing.push(`${row.subpath} type ${t}: not exported by @mcpgen/runtime${row.from.slice(1)}`);
  }
  assert.equal(missing, []);
  assert.ok(
    REVISION_EXPORTS.length >= 10 && exported.size >= 8,
    `${REVISION_EXPORTS.length} rows over ${exported.size} subpaths`,
  );
});

test.run();
