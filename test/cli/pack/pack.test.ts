/**
 * `mcpgen pack --rev 2025-11-25`, end to end:
 * - two packs (the second under another time zone, locale and working directory) write the
 *   same tarball, byte for byte;
 * - the tarball has npm's layout (`package/…`, fixed mtime, mode 0644, owner 0, files in
 *   code-unit order); every `exports` target is in it; every relative import of every .js and
 *   .d.ts resolves inside it and every bare one is `node:` or a declared dependency, pinned as
 *   in mcpgen's package.json; nothing names the project's folders;
 * - installed with npm into a fresh project, a client and a server written against the
 *   package compile under `tsc --strict` (NodeNext; skipLibCheck off, so the package's
 *   declarations are checked too, TypeScript's own lib files skipped), as does the example of
 *   the packed README; then they run: the client spawns `node server.js` over the package's
 *   stdio transport, lists the tools and calls one; a second program connects the package's
 *   `Client` and `Server` over its memory transport with tools from `./features`.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { gunzipSync } from 'node:zlib';
import ts from 'typescript';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { emitPackage } from '../../../generator/emit/package.js';
import { ROOT, SPEC_DIR, cli, pinnedModel, tempDir } from '../../generator/support.js';

const test = suite('pack: the npm package of 2025-11-25, installed, compiled and run');
const REV = '2025-11-25';
const NAME = `@mcpgen/mcp-${REV}`;
const ROOT_PACKAGE = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string; dependencies: Record<string, string> };
const TARBALL = `mcpgen-mcp-${REV}-${ROOT_PACKAGE.version}+${REV}.tgz`;
/** npm's fixed entry mtime, 1985-10-26T08:15:00Z. */
const NPM_MTIME = 499162500;

const work = tempDir('mcpgen-pack-test-');
let tgz: Buffer | undefined;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end (killed after `ms`). */
function run(cmd: string, args: string[], cwd: string, ms = 30_000): Promise<Run> {
  return new Promise((done, fail) => {
    const child = spawn(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, npm_config_update_notifier: 'false' } });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), ms);
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.on('error', fail);
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
  });
}

interface TarEntry {
  path: string;
  mode: number;
  uid: number;
  gid: number;
  mtime: number;
  type: string;
  data: Buffer;
}

/** The entries of a gzipped ustar archive, in archive order. */
function untar(gz: Buffer): TarEntry[] {
  const tar = gunzipSync(gz);
  const out: TarEntry[] = [];
  const str = (o: number, n: number) => tar.toString('utf8', o, o + n).replace(/\0.*$/s, '');
  const num = (o: number, n: number) => parseInt(str(o, n).trim() || '0', 8);
  for (let off = 0; off + 512 <= tar.length; ) {
    if (tar.subarray(off, off + 512).every((b) => b === 0)) break;
    const prefix = str(off + 345, 155);
    const size = num(off + 124, 12);
    out.push({
      path: prefix ? `${prefix}/${str(off, 100)}` : str(off, 100),
      mode: num(off + 100, 8),
      uid: num(off + 108, 8),
      gid: num(off + 116, 8),
      mtime: num(off + 136, 12),
      type: str(off + 156, 1),
      data: tar.subarray(off + 512, off + 512 + size),
    });
    off += 512 + Math.ceil(size / 512) * 512;
  }
  return out;
}

test.after(() => work.cleanup());

test('pack writes <name>-<version>.tgz; a second pack elsewhere (other TZ, locale, cwd) is byte-identical', async () => {
  const a = join(work.dir, 'a');
  const b = join(work.dir, 'b');
  mkdirSync(b);
  const [ra, rb] = await Promise.all([
    cli(['pack', '--rev', REV, '--out', a], { MCP_SPEC_DIR: SPEC_DIR }),
    cli(['pack', '--rev', REV], { MCP_SPEC_DIR: SPEC_DIR, TZ: 'Pacific/Chatham', LANG: 'tr_TR.UTF-8', LC_ALL: 'tr_TR.UTF-8' }, b),
  ]);
  assert.is(ra.code, 0, ra.stderr);
  assert.is(rb.code, 0, rb.stderr);
  assert.match(ra.stdout, `${NAME}@${ROOT_PACKAGE.version}+${REV}`);
  assert.match(ra.stdout, /integrity sha512-/);
  assert.ok(existsSync(join(a, TARBALL)), `${TARBALL} missing from ${a}: ${ra.stdout}`);
  tgz = readFileSync(join(a, TARBALL));
  assert.ok(tgz.equals(readFileSync(join(b, TARBALL))), 'the two tarballs differ');
});

test('pack: --rev is required, an unknown revision is an input error', async () => {
  const none = await cli(['pack'], { MCP_SPEC_DIR: SPEC_DIR });
  assert.is(none.code, 2, none.stderr);
  assert.match(none.stderr, '--rev');
  const unknown = await cli(['pack', '--rev', '1999-01-01', '--out', join(work.dir, 'none')], { MCP_SPEC_DIR: SPEC_DIR });
  assert.is(unknown.code, 3, unknown.stderr);
  assert.not.ok(existsSync(join(work.dir, 'none')));
});

test('the tarball: npm layout, fixed metadata, sorted; exports, imports and dependencies close over it', () => {
  assert.ok(tgz, 'the pack test did not run');
  const entries = untar(tgz);
  const paths = entries.map((e) => e.path);
  assert.equal(paths, [...paths].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0)), 'entries in code-unit order');
  for (const e of entries) {
    assert.ok(e.path.startsWith('package/'), e.path);
    assert.equal([e.type, e.mode, e.uid, e.gid, e.mtime], ['0', 0o644, 0, 0, NPM_MTIME], e.path);
    assert.not.ok(e.data.toString('utf8').includes(ROOT.replace(/\/$/, '')), `${e.path} names the project folder`);
  }
  const files = new Map(entries.map((e) => [e.path.slice('package/'.length), e.data.toString('utf8')]));
  for (const gone of ['model.json', 'parity.gen.ts', 'parity.gen.js', 'index.ts']) assert.not.ok(files.has(gone), `${gone} is packed`);
  const pkg = JSON.parse(files.get('package.json')!) as {
    name: string;
    version: string;
    type: string;
    exports: Record<string, { types: string; default: string } | string>;
    dependencies: Record<string, string>;
    revision: string;
  };
  assert.is(pkg.name, NAME);
  assert.is(pkg.version, `${ROOT_PACKAGE.version}+${REV}`);
  assert.is(pkg.type, 'module');
  assert.is(pkg.revision, REV);
  // the package.json the generator writes to generated/<rev>/ is the one packed
  assert.is(files.get('package.json'), emitPackage(pinnedModel(REV)).get('package.json'));
  for (const sub of ['.', './transport/stdio', './transport/memory', './transport/http-client', './transport/http-server', './features', './errors']) {
    const target = pkg.exports[sub];
    assert.ok(target && typeof target === 'object', `exports["${sub}"] missing`);
    for (const f of [target.types, target.default]) assert.ok(files.has(posix.normalize(f)), `exports["${sub}"] → ${f} not packed`);
  }
  const used = new Set<string>();
  for (const [file, text] of files) {
    if (!/\.(js|d\.ts)$/.test(file)) continue;
    for (const { fileName: spec } of ts.preProcessFile(text, true, true).importedFiles) {
      if (spec.startsWith('.')) {
        const target = posix.normalize(posix.join(posix.dirname(file), spec));
        const found = file.endsWith('.d.ts') ? files.has(target.replace(/\.js$/, '.d.ts')) : files.has(target);
        assert.ok(found, `${file} imports ${spec}: not in the package`);
      } else if (!spec.startsWith('node:')) {
        const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0];
        assert.ok(Object.hasOwn(pkg.dependencies, name), `${file} imports ${spec}: ${name} is not a dependency`);
        used.add(name);
      }
    }
  }
  assert.equal(Object.keys(pkg.dependencies).sort(), [...used].sort(), 'every dependency is imported');
  for (const [name, version] of Object.entries(pkg.dependencies)) assert.is(version, ROOT_PACKAGE.dependencies[name], `${name} pinned as in mcpgen`);
});

const SERVER = `import { Server, type Tool } from '${NAME}';
import { ErrorCode, RpcError } from '${NAME}/errors';
import { StdioServerTransport } from '${NAME}/transport/stdio';

const echo: Tool = {
  name: 'echo',
  description: 'Echoes its text',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
};

const server = new Server({
  serverInfo: { name: 'packed-server', version: '1.0.0' },
  capabilities: { tools: {} },
  handlers: {
    'tools/list': () => ({ tools: [echo] }),
    'tools/call': (params) => {
      if (params.name !== 'echo') throw new RpcError(ErrorCode.InvalidParams, \`Unknown tool: \${params.name}\`);
      return { content: [{ type: 'text', text: \`echo: \${String(params.arguments?.text)}\` }] };
    },
  },
});
await server.connect(new StdioServerTransport());
`;

const CLIENT = `import { fileURLToPath } from 'node:url';
import { Client, type CallToolResult, protocolVersion, validators } from '${NAME}';
import { StdioClientTransport } from '${NAME}/transport/stdio';

const client = new Client({ clientInfo: { name: 'packed-client', version: '1.0.0' } });
const server = await client.connect(
  new StdioClientTransport({ command: process.execPath, args: [fileURLToPath(new URL('./server.js', import.meta.url))] }),
);
const { tools } = await client.listTools();
const result: CallToolResult = await client.callTool({ name: 'echo', arguments: { text: 'hello over stdio' } });
const first = result.content[0];
const unknown = await client.callTool({ name: 'nope' }).then(() => 'resolved', (e: unknown) => (e as { code?: number }).code);
console.log(JSON.stringify({
  server: server.serverInfo?.name,
  protocolVersion: server.protocolVersion === protocolVersion,
  tools: tools.map((t) => t.name),
  text: first.type === 'text' ? first.text : first.type,
  valid: validators.CallToolResult(result),
  unknown,
}));
await client.close();

/** Never called: the package's types are real, not any. */
export function typed(c: Client): void {
  // @ts-expect-error name is required
  void c.callTool({ arguments: {} });
  // @ts-expect-error no such method in 2025-11-25
  void c.callTools();
}
`;

const MEMORY = `import { Client, Server } from '${NAME}';
import { ServerFeatures } from '${NAME}/features';
import { createMemoryPair } from '${NAME}/transport/memory';

const features = new ServerFeatures();
features.tool<{ a: number; b: number }>({
  name: 'add',
  inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
  handler: ({ a, b }) => String(a + b),
});
const server = new Server({ serverInfo: { name: 'memory', version: '1.0.0' }, capabilities: features.capabilities(), handlers: features.handlers() });
const [clientSide, serverSide] = createMemoryPair();
await server.connect(serverSide);
const client = new Client({ clientInfo: { name: 'c', version: '1.0.0' } });
await client.connect(clientSide);
const sum = await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
const bad = await client.callTool({ name: 'add', arguments: { a: 'two' } });
console.log(JSON.stringify({ sum: sum.content, badIsError: bad.isError === true }));
await client.close();
await server.close();
`;

test('installed into a fresh project: a client, a server and the README example compile under tsc --strict (NodeNext)', async () => {
  assert.ok(tgz, 'the pack test did not run');
  const app = join(work.dir, 'app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), `${JSON.stringify({ name: 'packed-app', private: true, type: 'module' }, null, 2)}\n`);
  const npm = await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', join(work.dir, 'a', TARBALL)], app, 45_000);
  assert.is(npm.code, 0, `npm install failed:\n${npm.stdout}\n${npm.stderr}`);
  const installed = JSON.parse(readFileSync(join(app, 'node_modules', NAME, 'package.json'), 'utf8')) as { version: string };
  assert.is(installed.version, `${ROOT_PACKAGE.version}+${REV}`);
  writeFileSync(
    join(app, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        skipLibCheck: false,
        skipDefaultLibCheck: true,
        types: ['node'],
        typeRoots: [join(ROOT, 'node_modules', '@types')],
      },
      files: ['server.ts', 'client.ts', 'memory.ts', 'readme.ts'],
    }),
  );
  // the README's example, as packed
  const readme = untar(tgz).find((e) => e.path === 'package/README.md')?.data.toString('utf8') ?? '';
  const example = /```ts\n([\s\S]*?)```/.exec(readme);
  assert.ok(example, 'README.md has no ts example');
  writeFileSync(join(app, 'readme.ts'), example[1]);
  writeFileSync(join(app, 'server.ts'), SERVER);
  writeFileSync(join(app, 'client.ts'), CLIENT);
  writeFileSync(join(app, 'memory.ts'), MEMORY);
  const tsc = await run(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', app], app, 60_000);
  assert.is(tsc.code, 0, `tsc failed:\n${tsc.stdout}\n${tsc.stderr}`);
  for (const f of ['server.js', 'client.js', 'memory.js']) assert.ok(existsSync(join(app, f)), `${f} not emitted`);
});

test('the compiled client spawns the compiled server over stdio: tools/list, tools/call, unknown tool', async () => {
  const app = join(work.dir, 'app');
  assert.ok(existsSync(join(app, 'client.js')), 'the compile test did not run');
  const r = await run(process.execPath, ['client.js'], app, 20_000);
  assert.is(r.code, 0, `client failed:\n${r.stdout}\n${r.stderr}`);
  assert.equal(JSON.parse(r.stdout.trim()), {
    server: 'packed-server',
    protocolVersion: true,
    tools: ['echo'],
    text: 'echo: hello over stdio',
    valid: true,
    unknown: -32602,
  });
});

test('./features and ./transport/memory from the package: a tool with an input schema (ajv installed as a dependency)', async () => {
  const app = join(work.dir, 'app');
  assert.ok(existsSync(join(app, 'memory.js')), 'the compile test did not run');
  const r = await run(process.execPath, ['memory.js'], app, 20_000);
  assert.is(r.code, 0, `memory program failed:\n${r.stdout}\n${r.stderr}`);
  assert.equal(JSON.parse(r.stdout.trim()), { sum: [{ type: 'text', text: '5' }], badIsError: true });
});

test.run();
