/**
 * What a new user does, in a temporary folder outside the repository: `npm pack` mcpgen (its
 * `prepack` builds both packages) and the runtime package (dist/runtime/) → `npm init -y` →
 * `npm install` both tarballs, typescript and @types/node (from the npm cache when it holds them)
 * → `mcpgen generate` 2025-11-25 and draft into src/mcp, as the project's mcpgen.config.json
 * says (no flags) → a server (one validated tool) and a client over stdio for each revision, and
 * over HTTP a draft client against a draft server (stateless HTTP) and a 2025-11-25 and a draft
 * client against the app's dual-era endpoint, compiled by `tsc --strict` with
 * `module: nodenext`, run with plain node. The same through `mcpgen pack` packages of both
 * revisions installed on one runtime is test/cli/pack/pack.test.ts. Proves: the tarballs hold compiled JavaScript and declarations only, one
 * `@mcpgen/runtime` is installed (mcpgen's dependency on it is the app's copy), generated code
 * resolves `@mcpgen/runtime/codegen/v1`, the CLI runs without tsx (not installed), and a tool
 * call a tool result with
 * `isError` (arguments the tool's input schema refuses) and a protocol error (an unknown tool:
 * -32602, `instanceof RpcError` of the app's one runtime) cross a real pipe with both revisions.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ROOT, SPEC_DIR, tempDir } from '../generator/support.js';
import { packedFiles } from './runtime-package.js';

const test = suite('package: install the packed packages in a new project, generate, compile, run');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `file args` in `cwd` (never a shell); resolves with its exit code and output. */
function run(file: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<Run> {
  return new Promise((done) => {
    execFile(file, args, { cwd, env, maxBuffer: 64 << 20, timeout: 300_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      done({ code, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}
const must = (r: Run, what: string) =>
  assert.is(r.code, 0, `${what} failed (exit ${r.code})\n${r.stdout}\n${r.stderr}`);

const ROOT_PKG = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  version: string;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};
const REVISIONS = [
  { rev: '2025-11-25', id: 'v2025', draft: false },
  { rev: 'draft', id: 'draft', draft: true },
] as const;

/** An environment without the repository's hints: no MCP_SPEC_DIR, no npm_* of the test's own npm run. */
function userEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^(npm_|MCP_SPEC_DIR$|NODE_OPTIONS$|TSX_)/.test(k)) env[k] = v;
  return env;
}

const serverSource = (
  rev: string,
  id: string,
  draft: boolean,
) => `import { Server, ${draft ? 'table, ' : ''}type Protocol } from './mcp/${rev}/index.js';
import { ServerFeatures } from '@mcpgen/runtime/features';
import { StdioServerTransport } from '@mcpgen/runtime/stdio';

const features = new ServerFeatures<Protocol>();
features.tool({
  name: 'add',
  inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
  handler: (args: { a: number; b: number }) => ({ content: [{ type: 'text', text: String(args.a + args.b) }] }),
});
const server = new Server({ serverInfo: { name: 'app-${id}', version: '1.0.0' }, capabilities: features.capabilities(), handlers: features.handlers(${draft ? '{ table }' : ''}) });
await server.connect(new StdioServerTransport());
`;

const clientSource = (rev: string, id: string) => `import { Client } from './mcp/${rev}/index.js';
import { RpcError } from '@mcpgen/runtime';
import { StdioClientTransport } from '@mcpgen/runtime/stdio';
import { fileURLToPath } from 'node:url';

const client = new Client({ clientInfo: { name: 'app-client-${id}', version: '1.0.0' } });
await client.connect(new StdioClientTransport({ command: process.execPath, args: [fileURLToPath(new URL('./server-${id}.js', import.meta.url))] }));
const sum = await client.callTool({ name: 'add', arguments: { a: 2, b: 40 } });
const first = sum.content[0];
const invalid = await client.callTool({ name: 'add', arguments: { a: 'x' } });
let refused = '';
try {
  await client.callTool({ name: 'no-such-tool', arguments: {} });
  refused = 'answered';
} catch (e) {
  refused = e instanceof RpcError ? \`RpcError \${e.code}\` : \`not an RpcError: \${String(e)}\`;
}
console.log(JSON.stringify({ protocolVersion: client.server?.protocolVersion ?? null, sum: first?.type === 'text' ? first.text : null, invalidIsError: invalid.isError === true, refused }));
await client.close();
`;

/**
 * `node dist/http.js`: one HTTP server of the app on 127.0.0.1 (port 0). `/draft` is a draft
 * server over stateless HTTP; `/mcp` the dual-era endpoint (modern side: another draft server,
 * legacy side: a 2025-11-25 server over Streamable HTTP). A draft client calls `/draft`; a
 * 2025-11-25 client and a draft client call `/mcp`. Each makes a valid call, one the tool's
 * input schema refuses and one for an unknown tool.
 */
const HTTP_SOURCE = `import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as hs from './mcp/2025-11-25/index.js';
import * as draft from './mcp/draft/index.js';
import { RpcError } from '@mcpgen/runtime';
import { ServerFeatures } from '@mcpgen/runtime/features';
import { HttpClientTransport, createStreamableHttpHandler } from '@mcpgen/runtime/http';
import { StatelessHttpClientTransport, createStatelessHttpHandler } from '@mcpgen/runtime/http/stateless';
import { createDualEraHttpHandler } from '@mcpgen/runtime/stateless';

const add = { name: 'add', inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] } } as const;
function draftServer(name: string): draft.Server {
  const features = new ServerFeatures<draft.Protocol>();
  features.tool<{ a: number; b: number }>({ ...add, handler: ({ a, b }) => \`\${name} \${a + b}\` });
  return new draft.Server({ serverInfo: { name, version: '1.0.0' }, capabilities: features.capabilities(), handlers: features.handlers({ table: draft.table }) });
}
const plainServer = draftServer('draft');
const plain = createStatelessHttpHandler({ tables: [draft.table] });
await plainServer.connect(plain.transport);
const modernServer = draftServer('modern');
const modern = createStatelessHttpHandler({ tables: [draft.table] });
await modernServer.connect(modern.transport);
const legacy = createStreamableHttpHandler({
  tables: [hs.table],
  onSession: async (transport) => {
    const features = new ServerFeatures<hs.Protocol>();
    features.tool<{ a: number; b: number }>({ ...add, handler: ({ a, b }) => \`legacy \${a + b}\` });
    await new hs.Server({ serverInfo: { name: 'legacy', version: '1.0.0' }, capabilities: features.capabilities(), handlers: features.handlers() }).connect(transport);
  },
});
const dual = createDualEraHttpHandler({ modern, legacy });
const http = createServer((req, res) => void (req.url === '/draft' ? plain(req, res) : dual(req, res)));
await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
const base = \`http://127.0.0.1:\${(http.address() as AddressInfo).port}\`;

type Caller = { callTool(p: { name: string; arguments?: Record<string, unknown> }): Promise<{ content: Array<{ type: string; text?: string }>; isError?: boolean }> };
async function exercise(client: Caller, protocolVersion: string) {
  const sum = await client.callTool({ name: 'add', arguments: { a: 2, b: 40 } });
  const invalid = await client.callTool({ name: 'add', arguments: { a: 'x' } });
  const refused = await client.callTool({ name: 'no-such-tool', arguments: {} }).then(
    () => 'answered',
    (e: unknown) => (e instanceof RpcError ? \`RpcError \${e.code}\` : \`not an RpcError: \${String(e)}\`),
  );
  return { protocolVersion, sum: sum.content.map((c) => c.text).join(''), invalidIsError: invalid.isError === true, refused };
}
const out: Record<string, unknown> = {};
const statelessClient = new draft.Client({ clientInfo: { name: 'app-draft-http', version: '1.0.0' } });
out.draft = await exercise(statelessClient, (await statelessClient.connect(new StatelessHttpClientTransport({ url: \`\${base}/draft\` }))).protocolVersion);
const oldClient = new hs.Client({ clientInfo: { name: 'app-2025-http', version: '1.0.0' } });
out.dualLegacy = await exercise(oldClient, (await oldClient.connect(new HttpClientTransport({ url: \`\${base}/mcp\` }))).protocolVersion);
const newClient = new draft.Client({ clientInfo: { name: 'app-draft-dual', version: '1.0.0' } });
out.dualModern = await exercise(newClient, (await newClient.connect(new StatelessHttpClientTransport({ url: \`\${base}/mcp\` }))).protocolVersion);
console.log(JSON.stringify(out));
await Promise.all([statelessClient.close(), oldClient.close(), newClient.close()]);
await dual.close();
await plain.close();
await Promise.all([plainServer.close(), modernServer.close()]);
http.closeAllConnections();
await new Promise<void>((r) => http.close(() => r()));
`;

const TSCONFIG = {
  compilerOptions: {
    strict: true,
    module: 'nodenext',
    moduleResolution: 'nodenext',
    target: 'es2022',
    types: ['node'],
    outDir: 'dist',
    rootDir: 'src',
  },
  include: ['src'],
};

let work: { dir: string; cleanup: () => void } | undefined;
let app = '';
let tarballs: { runtime: string; mcpgen: string } | undefined;

test('npm pack: both tarballs hold compiled JavaScript and declarations, no TypeScript sources', async () => {
  work = tempDir('mcpgen-install-');
  const packs = join(work.dir, 'tarballs');
  mkdirSync(packs);
  // the root's prepack builds dist/runtime and dist/mcpgen
  const root = await run('npm', ['pack', '--json', '--pack-destination', packs], ROOT, userEnv());
  must(root, 'npm pack (mcpgen)');
  const runtime = await run(
    'npm',
    ['pack', '--json', '--pack-destination', packs],
    join(ROOT, 'dist', 'runtime'),
    userEnv(),
  );
  must(runtime, 'npm pack (@mcpgen/runtime)');
  const listing = (r: Run) =>
    (
      JSON.parse(r.stdout.slice(r.stdout.indexOf('['))) as Array<{ filename: string; files: Array<{ path: string }> }>
    )[0];
  const m = listing(root);
  const rt = listing(runtime);
  tarballs = { mcpgen: join(packs, m.filename), runtime: join(packs, rt.filename) };
  const sources = (files: Array<{ path: string }>) =>
    files.map((f) => f.path).filter((p) => p.endsWith('.ts') && !p.endsWith('.d.ts'));
  assert.equal(sources(m.files), [], 'mcpgen ships TypeScript sources');
  assert.equal(sources(rt.files), [], '@mcpgen/runtime ships TypeScript sources');
  const mPaths = m.files.map((f) => f.path);
  for (const p of [
    'bin/mcpgen.js',
    'dist/mcpgen/cli/main.js',
    'dist/mcpgen/generator/emit/templates/client.hbs',
    'dist/mcpgen/generator/emit/go/templates/bindings/types.go.hbs',
    'dist/mcpgen/generator/emit/python/templates/sdk/models.hbs',
    'dist/mcpgen/schema/pins.json',
    'dist/mcpgen/generated/2025-11-25/index.js',
    'dist/mcpgen/generated/draft/validators.gen.js',
  ]) {
    assert.ok(mPaths.includes(p), `mcpgen lacks ${p}`);
  }
  assert.not.ok(
    mPaths.some((p) => p.startsWith('runtime/') || p.startsWith('dist/runtime/') || p.startsWith('test/')),
    'mcpgen ships the runtime or the tests',
  );
  // the manual ships with the package: each relative link of the packed README, and each link between
  // the packed pages of docs/, names a packed file (in node_modules/mcpgen and npm's file view)
  const links = (page: string) =>
    [...readFileSync(join(ROOT, page), 'utf8').matchAll(/\]\(([^)\s#]+)(?:#[^)]*)?\)/g)]
      .map((m) => m[1])
      .filter((href) => !/^[a-z]+:/.test(href))
      .map((href) => posix.normalize(posix.join(posix.dirname(page), href)));
  const pages = mPaths.filter((p) => p === 'README.md' || (p.startsWith('docs/') && p.endsWith('.md')));
  assert.ok(pages.length > 30, `the docs pages are not packed: ${pages.length}`);
  const readmeLinks = links('README.md');
  assert.ok(readmeLinks.filter((l) => l.startsWith('docs/')).length > 10, 'the README links into docs/');
  for (const page of pages)
    for (const target of links(page))
      if (page === 'README.md' || target.endsWith('.md'))
        assert.ok(mPaths.includes(target), `${page} links to ${target}, which is not in the package`);
  const rtPaths = rt.files.map((f) => f.path);
  for (const p of ['package.json', 'codegen/v1.js', 'codegen/v1.d.ts', 'transport/stdio.js', 'index.d.ts'])
    assert.ok(rtPaths.includes(p), `@mcpgen/runtime lacks ${p}`);
  // the runtime tarball the other package tests install (./runtime-package.ts) holds what npm packs
  assert.equal([...packedFiles(join(ROOT, 'dist', 'runtime')).keys()].sort(), [...rtPaths].sort());
});

test('a new project installs both tarballs: one @mcpgen/runtime, no tsx', async () => {
  assert.ok(work && tarballs, 'the pack test did not run');
  app = join(work.dir, 'app');
  mkdirSync(app);
  const env = userEnv();
  must(await run('npm', ['init', '-y'], app, env), 'npm init');
  must(await run('npm', ['pkg', 'set', 'type=module'], app, env), 'npm pkg set');
  // as README's quick start says: the runtime a dependency, mcpgen (a dev tool) a dev dependency
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const installs = readme.split('\n').filter((l) => /^npm install .*mcpgen(-runtime)?-\d/.test(l));
  assert.equal(
    installs.map((l) => l.replace(/\s+#.*/, '')),
    [
      `npm install $MCPGEN/dist/runtime/mcpgen-runtime-${ROOT_PKG.version}.tgz`,
      `npm install --save-dev $MCPGEN/mcpgen-${ROOT_PKG.version}.tgz typescript @types/node`,
    ],
    "README's quick start installs what this test installs",
  );
  const flags = ['--prefer-offline', '--no-audit', '--no-fund'];
  must(await run('npm', ['install', ...flags, tarballs.runtime], app, env), 'npm install (runtime)');
  const install = await run(
    'npm',
    [
      'install',
      '--save-dev',
      ...flags,
      tarballs.mcpgen,
      `typescript@${ROOT_PKG.dependencies.typescript}`,
      `@types/node@${ROOT_PKG.devDependencies['@types/node']}`,
    ],
    app,
    env,
  );
  must(install, 'npm install --save-dev');
  const manifest = JSON.parse(readFileSync(join(app, 'package.json'), 'utf8')) as {
    dependencies?: Record<string, string>;
    devDependencies?: Record<string, string>;
  };
  assert.equal(Object.keys(manifest.dependencies ?? {}), ['@mcpgen/runtime']);
  assert.equal(Object.keys(manifest.devDependencies ?? {}).sort(), ['@types/node', 'mcpgen', 'typescript']);
  const nm = join(app, 'node_modules');
  const runtimePkg = JSON.parse(readFileSync(join(nm, '@mcpgen', 'runtime', 'package.json'), 'utf8')) as {
    version: string;
    sideEffects: boolean;
    exports: Record<string, unknown>;
  };
  assert.is(runtimePkg.version, ROOT_PKG.version);
  assert.is(runtimePkg.sideEffects, false);
  const workspace = JSON.parse(readFileSync(join(ROOT, 'runtime', 'package.json'), 'utf8')) as {
    exports: Record<string, unknown>;
  };
  assert.equal(Object.keys(runtimePkg.exports), Object.keys(workspace.exports));
  assert.not.ok(
    existsSync(join(nm, 'mcpgen', 'node_modules', '@mcpgen', 'runtime')),
    'mcpgen got a second @mcpgen/runtime',
  );
  assert.not.ok(existsSync(join(nm, 'tsx')), 'tsx is installed: it must be a devDependency of mcpgen only');
  // the OpenTelemetry API is a peer: installed beside the runtime, not below it
  assert.ok(existsSync(join(nm, '@opentelemetry', 'api', 'package.json')), 'npm did not install the API peer');
  // an application on an older API 1.x (an SDK that asks for 1.9) shares its copy with the runtime:
  // a second copy below the runtime would ignore the SDK the application registers (no spans)
  must(
    await run('npm', ['install', ...flags, '@opentelemetry/api@1.9.0'], app, env),
    'npm install @opentelemetry/api@1.9.0',
  );
  const api = JSON.parse(readFileSync(join(nm, '@opentelemetry', 'api', 'package.json'), 'utf8')) as {
    version: string;
  };
  assert.is(api.version, '1.9.0');
  assert.not.ok(
    existsSync(join(nm, '@mcpgen', 'runtime', 'node_modules', '@opentelemetry', 'api')),
    "@mcpgen/runtime got an @opentelemetry/api of its own beside the application's",
  );
});

test('mcpgen generate into src/mcp through mcpgen.config.json; tsc --strict (nodenext) compiles clients and servers; plain node runs them over stdio and HTTP', async () => {
  assert.ok(app, 'the install test did not run');
  const env = userEnv();
  const config = { revisions: REVISIONS.map((r) => r.rev), out: 'src/mcp', inputs: { specDir: SPEC_DIR } };
  writeFileSync(join(app, 'mcpgen.config.json'), `${JSON.stringify(config, null, 2)}\n`);
  const gen = await run(
    process.execPath,
    [join(app, 'node_modules', 'mcpgen', 'bin', 'mcpgen.js'), 'generate'],
    app,
    env,
  );
  must(gen, 'mcpgen generate');
  assert.match(gen.stdout, 'generated 2 revision(s) into');
  for (const r of REVISIONS) {
    const client = readFileSync(join(app, 'src', 'mcp', r.rev, 'client.gen.ts'), 'utf8');
    assert.match(client, "from '@mcpgen/runtime/codegen/v1';");
    writeFileSync(join(app, 'src', `server-${r.id}.ts`), serverSource(r.rev, r.id, r.draft));
    writeFileSync(join(app, 'src', `client-${r.id}.ts`), clientSource(r.rev, r.id));
  }
  writeFileSync(join(app, 'src', 'http.ts'), HTTP_SOURCE);
  writeFileSync(join(app, 'tsconfig.json'), `${JSON.stringify(TSCONFIG, null, 2)}\n`);
  const tsc = await run(process.execPath, [join(app, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', '.'], app, env);
  must(tsc, 'tsc');
  // the validators are generated as JavaScript (with declarations): tsc does not copy them to outDir
  for (const r of REVISIONS) {
    const rel = join('mcp', r.rev, 'validators.gen.js');
    copyFileSync(join(app, 'src', rel), join(app, 'dist', rel));
  }
  assert.ok(readdirSync(join(app, 'dist')).includes('client-draft.js'));
  const seen: Record<string, unknown> = {};
  const runs = await Promise.all(
    [...REVISIONS.map((r) => `client-${r.id}.js`), 'http.js'].map((f) =>
      run(process.execPath, [join(app, 'dist', f)], app, env),
    ),
  );
  REVISIONS.forEach((r, i) => {
    must(runs[i], `client-${r.id}`);
    seen[r.rev] = JSON.parse(runs[i].stdout.trim()) as unknown;
  });
  const expected = (protocolVersion: string, sum = '42') => ({
    protocolVersion,
    sum,
    invalidIsError: true,
    refused: 'RpcError -32602',
  });
  const draftVersion = (
    JSON.parse(readFileSync(join(app, 'src', 'mcp', 'draft', 'package.json'), 'utf8')) as { protocolVersion: string }
  ).protocolVersion;
  assert.equal(seen, { '2025-11-25': expected('2025-11-25'), draft: expected(draftVersion) });
  const http = runs[REVISIONS.length];
  must(http, 'http');
  assert.equal(JSON.parse(http.stdout.trim()), {
    draft: expected(draftVersion, 'draft 42'),
    dualLegacy: expected('2025-11-25', 'legacy 42'),
    dualModern: expected(draftVersion, 'modern 42'),
  });
});

/**
 * A module hook (loaded with --import in every process) that reports on stderr each module
 * resolved from the typescript or tsx packages.
 */
const TRACE = `import { register } from 'node:module';
register('data:text/javascript,' + encodeURIComponent(\`export async function resolve(s, c, next) {
  const r = await next(s, c);
  if (/node_modules\\\\/(typescript|tsx)\\\\//.test(r.url)) process.stderr.write('LOADED ' + r.url + '\\\\n');
  return r;
}\`));
`;

test('the installed CLI: call → serve over stdio answers from the compiled revisions, loading neither typescript nor tsx; generate loads typescript', async () => {
  assert.ok(app, 'the install test did not run');
  const trace = join(work!.dir, 'trace.mjs');
  writeFileSync(trace, TRACE);
  const env = { ...userEnv(), NODE_OPTIONS: `--import=${trace}` };
  const bin = join(app, 'node_modules', 'mcpgen', 'bin', 'mcpgen.js');
  const call = await run(
    process.execPath,
    [
      bin,
      'call',
      '--stdio',
      `${process.execPath} ${bin} serve --stdio --rev 2025-11-25`,
      'tools/call',
      '{"name":"echo","arguments":{"text":"hi"}}',
    ],
    app,
    env,
  );
  must(call, 'mcpgen call → serve');
  assert.equal((JSON.parse(call.stdout) as { content: unknown }).content, [{ type: 'text', text: 'hi' }]);
  assert.not.match(call.stderr, 'LOADED ', 'call or serve loaded typescript or tsx');
  // control: the hook sees typescript where a command reads schema.ts
  const diff = await run(process.execPath, [bin, 'diff', '2025-06-18', '2025-11-25', '--spec-dir', SPEC_DIR], app, env);
  must(diff, 'mcpgen diff');
  assert.match(diff.stderr, /LOADED file:.*node_modules\/typescript\//);
  assert.not.match(diff.stderr, '/tsx/');
});

test('the installed CLI: mcpgen init writes a project whose tools are the versions this mcpgen is built with', async () => {
  assert.ok(app, 'the install test did not run');
  const bin = join(app, 'node_modules', 'mcpgen', 'bin', 'mcpgen.js');
  const dir = join(work!.dir, 'scaffold');
  must(
    await run(
      process.execPath,
      [bin, 'init', dir, '--rev', '2025-11-25', '--client', '--spec-dir', SPEC_DIR],
      app,
      userEnv(),
    ),
    'mcpgen init',
  );
  const made = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
    devDependencies: Record<string, string>;
  };
  const own = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
    devDependencies: Record<string, string>;
  };
  assert.is(made.devDependencies.typescript, own.dependencies.typescript);
  assert.is(made.devDependencies['@types/node'], own.devDependencies['@types/node']);
  assert.ok(existsSync(join(dir, 'src', 'mcp', '2025-11-25', 'index.ts')), 'init generated the revision');
  // the config's $schema names the installed package's file (relative to a project whose node_modules holds mcpgen)
  const config = JSON.parse(readFileSync(join(dir, 'mcpgen.config.json'), 'utf8')) as { $schema: string };
  const schema = join(app, config.$schema);
  assert.ok(existsSync(schema), `$schema ${config.$schema} is not in the installed package`);
  assert.equal(
    JSON.parse(readFileSync(schema, 'utf8')),
    JSON.parse(readFileSync(join(ROOT, 'schema', 'config.schema.json'), 'utf8')),
  );
});

test.after(() => work?.cleanup());

test.run();
