/**
 * `mcpgen pack`, end to end, for a handshake revision (2025-11-25) and a stateless one (draft):
 * - two packs of 2025-11-25 (the second under another time zone, locale and working directory)
 *   write the same tarball, byte for byte;
 * - the tarballs have npm's layout (`package/…`, fixed mtime, mode 0644, owner 0, files in
 *   code-unit order) and no runtime copy: every relative import resolves inside the package,
 *   every bare one is `node:` or the runtime package, its one peer dependency
 *   (`^<mcpgen version>`); `exports` is the revision's rows of the export table, chosen by the
 *   revision's facts (2025-11-25: Streamable HTTP, legacy HTTP+SSE, tasks receiver; draft:
 *   stateless HTTP, dual-era, tasks extension, input-required, subscriptions, cache);
 * - installed with npm into a fresh project beside the runtime package (the real build's, ../../package/runtime-package.ts),
 *   programs written against both packages compile under `tsc --strict` (NodeNext; the
 *   packages' and the runtime's declarations checked too), as does each packed README's
 *   example, and every value of every entry point exists at run time; then, under plain node:
 *   a draft `Client` over stateless HTTP against `mcpgen serve --http --rev draft`; a 2025-11-25
 *   `Client` and a draft `Client` against the draft package's dual-era endpoint (its legacy side
 *   the 2025-11-25 package's Streamable HTTP handler); the 2025-11-25 task receiver and
 *   requestor over the memory transport; the draft input-required helpers and tasks extension
 *   over the memory transport; a client spawning a server over stdio, for each revision; and
 *   errors raised through both revisions are `instanceof` one `RpcError`. This is the
 *   acceptance test of the packed packages (test/package/install.test.ts is the one of code
 *   generated into the user's project).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { gunzipSync } from 'node:zlib';
import ts from 'typescript';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { emitPackage, packageEntries } from '../../../generator/emit/package.js';
import { ROOT, SPEC_DIR, cli, pinnedModel, tempDir } from '../../generator/support.js';
import { type Served, startHttpServeProcess } from '../../runtime/tasks/serve-process.js';
import { runtimeTarball } from '../../package/runtime-package.js';

const test = suite(
  'pack: the npm packages of 2025-11-25 and draft on one runtime package, installed, compiled and run',
);
const ROOT_PACKAGE = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  version: string;
  dependencies: Record<string, string>;
};
const HS = '2025-11-25';
const SL = 'draft';
const nameOf = (rev: string) => `@mcpgen/mcp-${rev}`;
const tarballOf = (rev: string) => `mcpgen-mcp-${rev}-${ROOT_PACKAGE.version}+${rev}.tgz`;
/** npm's fixed entry mtime, 1985-10-26T08:15:00Z. */
const NPM_MTIME = 499162500;

const work = tempDir('mcpgen-pack-test-');
const tgz = new Map<string, Buffer>();
let runtimeTgz = '';
let served: Served | undefined;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end (killed after `ms`). */
function run(cmd: string, args: string[], cwd: string, ms = 30_000): Promise<Run> {
  return new Promise((done, fail) => {
    const child = spawn(cmd, args, {
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, npm_config_update_notifier: 'false' },
    });
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

test.after(async () => {
  await served?.stop();
  work.cleanup();
});

test('pack writes <name>-<version>.tgz; a second pack elsewhere (other TZ, locale, cwd) is byte-identical; the runtime package builds', async () => {
  const a = join(work.dir, 'a');
  const b = join(work.dir, 'b');
  mkdirSync(b);
  const packs = Promise.all([
    cli(['pack', '--rev', HS, '--out', a], { MCP_SPEC_DIR: SPEC_DIR }),
    cli(
      ['pack', '--rev', HS],
      { MCP_SPEC_DIR: SPEC_DIR, TZ: 'Pacific/Chatham', LANG: 'tr_TR.UTF-8', LC_ALL: 'tr_TR.UTF-8' },
      b,
    ),
    cli(['pack', '--rev', SL, '--out', a], { MCP_SPEC_DIR: SPEC_DIR }),
  ]);
  // built (or taken from the cache) here while the packs run in their processes
  runtimeTgz = runtimeTarball();
  const [ra, rb, rd] = await packs;
  for (const r of [ra, rb, rd]) assert.is(r.code, 0, r.stderr);
  assert.match(ra.stdout, `${nameOf(HS)}@${ROOT_PACKAGE.version}+${HS}`);
  assert.match(ra.stdout, /integrity sha512-/);
  for (const rev of [HS, SL]) {
    assert.ok(existsSync(join(a, tarballOf(rev))), `${tarballOf(rev)} missing from ${a}`);
    tgz.set(rev, readFileSync(join(a, tarballOf(rev))));
  }
  assert.ok(tgz.get(HS)!.equals(readFileSync(join(b, tarballOf(HS)))), 'the two tarballs differ');
});

test('pack: --rev is required, an unknown revision is a usage error', async () => {
  const none = await cli(['pack'], { MCP_SPEC_DIR: SPEC_DIR });
  assert.is(none.code, 2, none.stderr);
  assert.match(none.stderr, '--rev');
  const unknown = await cli(['pack', '--rev', '1999-01-01', '--out', join(work.dir, 'none')], {
    MCP_SPEC_DIR: SPEC_DIR,
  });
  assert.is(unknown.code, 2, unknown.stderr);
  assert.not.ok(existsSync(join(work.dir, 'none')));
});

interface Manifest {
  name: string;
  version: string;
  type: string;
  exports: Record<string, { types: string; default: string } | string>;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  revision: string;
}

/** Subpaths each revision's package must export (besides `.`), and some it must not. */
const EXPECTED: Record<string, { has: string[]; lacks: string[] }> = {
  [HS]: {
    has: ['./errors', './features', './stdio', './memory', './http', './http/legacy-sse', './tasks'],
    lacks: ['./http/stateless', './dual-era', './input-required', './subscriptions', './cache'],
  },
  [SL]: {
    has: [
      './errors',
      './features',
      './stdio',
      './memory',
      './http/stateless',
      './dual-era',
      './tasks',
      './input-required',
      './subscriptions',
      './cache',
    ],
    lacks: ['./http', './http/legacy-sse'],
  },
};

for (const rev of [HS, SL]) {
  test(`${rev}'s tarball: npm layout, fixed metadata, sorted; no runtime copy; one peer dependency; its exports`, () => {
    const gz = tgz.get(rev);
    assert.ok(gz, 'the pack test did not run');
    const entries = untar(gz);
    const paths = entries.map((e) => e.path);
    assert.equal(
      paths,
      [...paths].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0)),
      'entries in code-unit order',
    );
    for (const e of entries) {
      assert.ok(e.path.startsWith('package/'), e.path);
      assert.equal([e.type, e.mode, e.uid, e.gid, e.mtime], ['0', 0o644, 0, 0, NPM_MTIME], e.path);
      assert.not.ok(e.data.toString('utf8').includes(ROOT.replace(/\/$/, '')), `${e.path} names the project folder`);
      assert.not.ok(e.path.startsWith('package/runtime/'), `${e.path}: a runtime copy`);
    }
    const files = new Map(entries.map((e) => [e.path.slice('package/'.length), e.data.toString('utf8')]));
    for (const gone of ['model.json', 'parity.gen.ts', 'parity.gen.js', 'index.ts'])
      assert.not.ok(files.has(gone), `${gone} is packed`);
    const pkg = JSON.parse(files.get('package.json')!) as Manifest;
    assert.is(pkg.name, nameOf(rev));
    assert.is(pkg.version, `${ROOT_PACKAGE.version}+${rev}`);
    assert.is(pkg.type, 'module');
    assert.is(pkg.revision, rev);
    assert.equal(pkg.peerDependencies, { '@mcpgen/runtime': `^${ROOT_PACKAGE.version}` });
    assert.is(pkg.dependencies, undefined);
    // the package.json the generator writes to generated/<rev>/ is the one packed
    assert.is(files.get('package.json'), emitPackage(pinnedModel(rev)).get('package.json'));
    const subpaths = Object.keys(pkg.exports).filter((k) => k !== './package.json');
    assert.equal(subpaths.filter((k) => k !== '.').sort(), [...EXPECTED[rev].has].sort());
    for (const sub of EXPECTED[rev].lacks) assert.not.ok(Object.hasOwn(pkg.exports, sub), `${rev} exports ${sub}`);
    for (const sub of subpaths) {
      const target = pkg.exports[sub];
      assert.ok(target && typeof target === 'object', `exports["${sub}"] missing`);
      for (const f of [target.types, target.default])
        assert.ok(files.has(posix.normalize(f)), `exports["${sub}"] → ${f} not packed`);
    }
    for (const [file, text] of files) {
      if (!/\.(js|d\.ts)$/.test(file)) continue;
      for (const { fileName: spec } of ts.preProcessFile(text, true, true).importedFiles) {
        if (spec.startsWith('.')) {
          const target = posix.normalize(posix.join(posix.dirname(file), spec));
          const found = file.endsWith('.d.ts') ? files.has(target.replace(/\.js$/, '.d.ts')) : files.has(target);
          assert.ok(found, `${file} imports ${spec}: not in the package`);
        } else if (!spec.startsWith('node:')) {
          assert.ok(
            spec === '@mcpgen/runtime' || spec.startsWith('@mcpgen/runtime/'),
            `${file} imports ${spec}: not the runtime package`,
          );
        }
      }
    }
    assert.match(files.get('client.gen.js')!, "from '@mcpgen/runtime/codegen/v1'");
  });
}

const app = join(work.dir, 'app');
const HSN = nameOf(HS);
const SLN = nameOf(SL);

/** `node stateless.js <url>`: the draft Client over stateless HTTP against `mcpgen serve --http --rev draft`. */
const STATELESS = `import { Client } from '${SLN}';
import { RpcError as DraftRpcError } from '${SLN}/errors';
import { StatelessHttpClientTransport } from '${SLN}/http/stateless';
import { RpcError } from '${HSN}/errors';

const client = new Client({ clientInfo: { name: 'packed-draft', version: '1.0.0' } });
const server = await client.connect(new StatelessHttpClientTransport({ url: process.argv[2] }));
const { tools } = await client.listTools({});
const result = await client.callTool({ name: 'echo', arguments: { text: 'hello statelessly' } });
const first = result.content[0];
const unknown = await client.callTool({ name: 'nope' }).then(() => undefined, (e: unknown) => e);
console.log(JSON.stringify({
  protocolVersion: server.protocolVersion,
  echo: tools.some((t) => t.name === 'echo'),
  text: first?.type === 'text' ? first.text : first?.type,
  unknownCode: unknown instanceof DraftRpcError ? unknown.code : String(unknown),
  sameRpcError: unknown instanceof RpcError,
}));
await client.close();
`;

/** `node dual-era.js`: the draft package's dual-era endpoint; its legacy side the 2025-11-25 package's Streamable HTTP handler. */
const DUAL_ERA = `import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as draft from '${SLN}';
import { createDualEraHttpHandler } from '${SLN}/dual-era';
import { ServerFeatures as DraftFeatures } from '${SLN}/features';
import { StatelessHttpClientTransport, createStatelessHttpHandler } from '${SLN}/http/stateless';
import * as hs from '${HSN}';
import { RpcError } from '${HSN}/errors';
import { ServerFeatures } from '${HSN}/features';
import { HttpClientTransport, createStreamableHttpHandler } from '${HSN}/http';
import { RpcError as RuntimeRpcError } from '@mcpgen/runtime/jsonrpc';

const add = { name: 'add', inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] } } as const;
const modernFeatures = new DraftFeatures<draft.Protocol>();
modernFeatures.tool<{ a: number; b: number }>({ ...add, handler: ({ a, b }) => \`modern \${a + b}\` });
const modern = new draft.Server({ serverInfo: { name: 'dual-modern', version: '1.0.0' }, capabilities: modernFeatures.capabilities(), handlers: modernFeatures.handlers({ table: draft.table }) });
const stateless = createStatelessHttpHandler({ tables: [draft.table] });
await modern.connect(stateless.transport);
const legacy = createStreamableHttpHandler({
  tables: [hs.table],
  onSession: async (transport) => {
    const features = new ServerFeatures<hs.Protocol>();
    features.tool<{ a: number; b: number }>({ ...add, handler: ({ a, b }) => \`legacy \${a + b}\` });
    await new hs.Server({ serverInfo: { name: 'dual-legacy', version: '1.0.0' }, capabilities: features.capabilities(), handlers: features.handlers() }).connect(transport);
  },
});
const endpoint = createDualEraHttpHandler({ modern: stateless, legacy });
const http = createServer((req, res) => void endpoint(req, res));
await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
const url = \`http://127.0.0.1:\${(http.address() as AddressInfo).port}/mcp\`;

const text = (r: { content: Array<{ type: string; text?: string }> }) => r.content.map((c) => c.text).join('');
const old = new hs.Client({ clientInfo: { name: 'packed-2025', version: '1.0.0' } });
const oldServer = await old.connect(new HttpClientTransport({ url }));
const oldTools = await old.listTools();
const oldSum = await old.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
const oldUnknown = await old.callTool({ name: 'nope' }).then(() => undefined, (e: unknown) => e);
const next = new draft.Client({ clientInfo: { name: 'packed-draft', version: '1.0.0' } });
const nextServer = await next.connect(new StatelessHttpClientTransport({ url }));
const nextSum = await next.callTool({ name: 'add', arguments: { a: 4, b: 5 } });
const nextUnknown = await next.callTool({ name: 'nope' }).then(() => undefined, (e: unknown) => e);
console.log(JSON.stringify({
  legacy: { protocolVersion: oldServer.protocolVersion, server: oldServer.serverInfo?.name, tools: oldTools.tools.map((t) => t.name), sum: text(oldSum) },
  modern: { protocolVersion: nextServer.protocolVersion, sum: text(nextSum) },
  errors: [oldUnknown, nextUnknown].map((e) => [e instanceof RpcError, e instanceof RuntimeRpcError, e instanceof RpcError ? e.code : String(e)]),
}));
await old.close();
await next.close();
await endpoint.close();
await modern.close();
http.closeAllConnections();
await new Promise<void>((r) => http.close(() => r()));
`;

/** `node tasks.js`: the 2025-11-25 task receiver (server) and requestor (client) over the memory transport. */
const TASKS = `import { Client, Server } from '${HSN}';
import { createMemoryPair } from '${HSN}/memory';
import { InMemoryTaskStore, attachTaskReceiver, callWithTask } from '${HSN}/tasks';

const server = new Server({
  serverInfo: { name: 'tasks', version: '1.0.0' },
  capabilities: { tools: {} },
  handlers: {
    'tools/list': () => ({ tools: [{ name: 'slow', inputSchema: { type: 'object' } }] }),
    'tools/call': async (params) => {
      await new Promise((r) => setTimeout(r, 30));
      return { content: [{ type: 'text', text: \`slow \${String(params.arguments?.n)}\` }] };
    },
  },
});
const store = new InMemoryTaskStore();
const receiver = attachTaskReceiver(server, { store, tools: { slow: 'optional' }, pollInterval: 10 });
const [clientSide, serverSide] = createMemoryPair();
await server.connect(serverSide);
const client = new Client({ clientInfo: { name: 'c', version: '1.0.0' } });
const info = await client.connect(clientSide);
const { tools } = await client.listTools();
const handle = await callWithTask(client, 'tools/call', { name: 'slow', arguments: { n: 7 } }, { ttl: 60_000 });
const created = handle.task.status;
const result = await handle.result();
const first = result.content[0];
const listed = await client.listTasks();
console.log(JSON.stringify({
  declared: Object.keys((info.capabilities as { tasks?: object }).tasks ?? {}).sort(),
  taskSupport: (tools[0]?.execution as { taskSupport?: string } | undefined)?.taskSupport,
  created,
  text: first?.type === 'text' ? first.text : first?.type,
  final: (await handle.status()).status,
  listed: listed.tasks.map((t) => [t.taskId === handle.taskId, t.status]),
  receiver: receiver.constructor.name,
}));
await client.close();
await server.close();
`;

/** `node draft-memory.js`: the draft package's input-required helpers (a sealed two-round tools/call) and tasks extension, over the memory transport. */
const DRAFT_MEMORY = `import { Client, Server } from '${SLN}';
import { RequestStateSealer, inputRequest, inputRequired, readInput } from '${SLN}/input-required';
import { ServerFeatures } from '${SLN}/features';
import { createMemoryPair } from '${SLN}/memory';
import { TASKS_EXTENSION, TasksExtension } from '${SLN}/tasks';
import { type CallToolResult, type Protocol, table } from '${SLN}';

const sealer = new RequestStateSealer({ ttlMs: 60_000 });
const server = new Server({
  serverInfo: { name: 'mrtr', version: '1.0.0' },
  capabilities: { tools: {} },
  handlers: {
    'tools/list': () => ({ resultType: 'complete', ttlMs: 0, cacheScope: 'private', tools: [{ name: 'deploy', inputSchema: { type: 'object' } }] }),
    'tools/call': (params) => {
      const { inputResponses, requestState } = readInput(params);
      if (!requestState) {
        const ask = inputRequest.elicit({ mode: 'form', message: 'Deploy?', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } });
        return inputRequired({ inputRequests: { approve: ask }, requestState: sealer.seal('tools/call', { step: 1 }) });
      }
      const state = sealer.verifyRequestState<{ step: number }>(requestState, 'tools/call');
      const answer = inputResponses.approve as { action?: string; content?: { ok?: boolean } } | undefined;
      return { resultType: 'complete', content: [{ type: 'text', text: \`step \${state.step}: \${answer?.action} \${String(answer?.content?.ok)}\` }] };
    },
  },
});
const [clientSide, serverSide] = createMemoryPair();
await server.connect(serverSide);
const asked: string[] = [];
const client = new Client({
  clientInfo: { name: 'c', version: '1.0.0' },
  capabilities: { elicitation: { form: {} } },
  handlers: {
    'elicitation/create': (p) => {
      asked.push(p.message);
      return { action: 'accept', content: { ok: true } };
    },
  },
});
await client.connect(clientSide);
const result = await client.callTool({ name: 'deploy' });
const first = result.content[0];
const mrtr = { asked, text: first?.type === 'text' ? first.text : first?.type };
await client.close();
await server.close();

// the tasks extension: declared in the server's capabilities; a request that does not opt in runs inline
const tasks = new TasksExtension({ table, tools: { render: 'optional' } });
const features = new ServerFeatures<Protocol>();
features.tool<{ n: number }>({ name: 'render', inputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] }, handler: async (a, ctx) => (await tasks.run(ctx, (task) => \`rendered \${a.n} (task \${String(task.taskId)})\`)) as CallToolResult });
const tasksServer = new Server({
  serverInfo: { name: 'tasks', version: '1.0.0' },
  capabilities: tasks.capabilities(features.capabilities()),
  handlers: tasks.handlers(features.handlers({ table })),
  extensionMethods: tasks.methods,
});
const [c2, s2] = createMemoryPair();
await tasksServer.connect(s2);
const tasksClient = new Client({ clientInfo: { name: 'c', version: '1.0.0' } });
const described = await tasksClient.connect(c2);
const rendered = await tasksClient.callTool({ name: 'render', arguments: { n: 3 } });
const r0 = rendered.content[0];
console.log(JSON.stringify({
  mrtr,
  extension: Object.keys((described.capabilities as { extensions?: object }).extensions ?? {}).includes(TASKS_EXTENSION),
  methods: tasks.methods,
  inline: r0?.type === 'text' ? r0.text : r0?.type,
}));
await tasksClient.close();
tasks.close();
await tasksServer.close();
`;

/** `node stdio-client.js`: spawns `node stdio-server.js` (the 2025-11-25 package) over stdio. */
const STDIO_SERVER = `import { Server, type Tool } from '${HSN}';
import { ErrorCode, RpcError } from '${HSN}/errors';
import { StdioServerTransport } from '${HSN}/stdio';

const echo: Tool = { name: 'echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } };
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

const STDIO_CLIENT = `import { fileURLToPath } from 'node:url';
import { Client, type CallToolResult, protocolVersion, validators } from '${HSN}';
import { StdioClientTransport } from '${HSN}/stdio';

const client = new Client({ clientInfo: { name: 'packed-client', version: '1.0.0' } });
const server = await client.connect(
  new StdioClientTransport({ command: process.execPath, args: [fileURLToPath(new URL('./stdio-server.js', import.meta.url))] }),
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

/** `node stdio-client-draft.js`: the draft package's client spawns its server over stdio; its errors are the 2025-11-25 package's RpcError too. */
const STDIO_SERVER_DRAFT = `import { Server, table, type Protocol } from '${SLN}';
import { ServerFeatures } from '${SLN}/features';
import { StdioServerTransport } from '${SLN}/stdio';

const features = new ServerFeatures<Protocol>();
features.tool<{ text: string }>({ name: 'echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] }, handler: ({ text }) => \`echo: \${text}\` });
await new Server({ serverInfo: { name: 'packed-draft-server', version: '1.0.0' }, capabilities: features.capabilities(), handlers: features.handlers({ table }) }).connect(new StdioServerTransport());
`;

const STDIO_CLIENT_DRAFT = `import { fileURLToPath } from 'node:url';
import { Client, protocolVersion } from '${SLN}';
import { StdioClientTransport } from '${SLN}/stdio';
import { RpcError } from '${HSN}/errors';

const client = new Client({ clientInfo: { name: 'packed-draft-client', version: '1.0.0' } });
const server = await client.connect(new StdioClientTransport({ command: process.execPath, args: [fileURLToPath(new URL('./stdio-server-draft.js', import.meta.url))] }));
const result = await client.callTool({ name: 'echo', arguments: { text: 'draft over stdio' } });
const first = result.content[0];
const invalid = await client.callTool({ name: 'echo', arguments: { text: 7 } });
const unknown = await client.callTool({ name: 'nope' }).then(() => 'resolved', (e: unknown) => (e instanceof RpcError ? e.code : String(e)));
console.log(JSON.stringify({
  server: server.serverInfo?.name,
  protocolVersion: server.protocolVersion === protocolVersion,
  text: first?.type === 'text' ? first.text : first?.type,
  invalidIsError: invalid.isError === true,
  unknown,
}));
await client.close();
`;

/** `node entries.js`: every value name of the export table's rows is defined at every entry point of both packages. */
const ENTRIES = `import { readFileSync } from 'node:fs';

const expected = JSON.parse(readFileSync(new URL('./expected-values.json', import.meta.url), 'utf8')) as Record<string, string[]>;
const missing: string[] = [];
for (const [specifier, names] of Object.entries(expected)) {
  const mod = (await import(specifier)) as Record<string, unknown>;
  for (const n of names) if (mod[n] === undefined) missing.push(\`\${specifier}: \${n}\`);
}
console.log(JSON.stringify({ checked: Object.keys(expected).length, missing }));
`;

/** Specifier → value names the export table gives it, for every entry point of both packages. */
function expectedValues(): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const rev of [HS, SL]) {
    for (const e of packageEntries(pinnedModel(rev)))
      if (e.rows.length) out[posix.join(nameOf(rev), e.subpath)] = [...new Set(e.rows.flatMap((r) => r.values))];
  }
  return out;
}

test('installed beside the runtime package into a fresh project: the programs and both README examples compile under tsc --strict (NodeNext)', async () => {
  assert.ok(tgz.size === 2 && runtimeTgz, 'the pack test did not run');
  mkdirSync(app);
  writeFileSync(
    join(app, 'package.json'),
    `${JSON.stringify({ name: 'packed-app', private: true, type: 'module' }, null, 2)}\n`,
  );
  const npm = await run(
    'npm',
    [
      'install',
      '--no-audit',
      '--no-fund',
      '--prefer-offline',
      runtimeTgz,
      ...[HS, SL].map((r) => join(work.dir, 'a', tarballOf(r))),
    ],
    app,
    60_000,
  );
  assert.is(npm.code, 0, `npm install failed:\n${npm.stdout}\n${npm.stderr}`);
  for (const rev of [HS, SL]) {
    const installed = JSON.parse(readFileSync(join(app, 'node_modules', nameOf(rev), 'package.json'), 'utf8')) as {
      version: string;
    };
    assert.is(installed.version, `${ROOT_PACKAGE.version}+${rev}`);
    assert.not.ok(
      existsSync(join(app, 'node_modules', nameOf(rev), 'node_modules')),
      `${rev} got a nested node_modules`,
    );
  }
  const programs: Record<string, string> = {
    'stateless.ts': STATELESS,
    'dual-era.ts': DUAL_ERA,
    'tasks.ts': TASKS,
    'draft-memory.ts': DRAFT_MEMORY,
    'stdio-server.ts': STDIO_SERVER,
    'stdio-client.ts': STDIO_CLIENT,
    'stdio-server-draft.ts': STDIO_SERVER_DRAFT,
    'stdio-client-draft.ts': STDIO_CLIENT_DRAFT,
    'entries.ts': ENTRIES,
  };
  for (const rev of [HS, SL]) {
    const readme =
      untar(tgz.get(rev)!)
        .find((e) => e.path === 'package/README.md')
        ?.data.toString('utf8') ?? '';
    const example = /```ts\n([\s\S]*?)```/.exec(readme);
    assert.ok(example, `${rev}: README.md has no ts example`);
    programs[`readme-${rev}.ts`] = example[1];
  }
  for (const [file, text] of Object.entries(programs)) writeFileSync(join(app, file), text);
  writeFileSync(join(app, 'expected-values.json'), JSON.stringify(expectedValues()));
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
      files: Object.keys(programs),
    }),
  );
  const tsc = await run(
    process.execPath,
    [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', app],
    app,
    90_000,
  );
  assert.is(tsc.code, 0, `tsc failed:\n${tsc.stdout}\n${tsc.stderr}`);
  for (const f of Object.keys(programs))
    assert.ok(existsSync(join(app, f.replace(/\.ts$/, '.js'))), `${f} not emitted`);
});

/** Runs `node <file> <args>` in the app; its one line of stdout, parsed. */
async function runApp(file: string, ...args: string[]): Promise<unknown> {
  assert.ok(existsSync(join(app, file)), 'the compile test did not run');
  const r = await run(process.execPath, [file, ...args], app, 20_000);
  assert.is(r.code, 0, `${file} failed:\n${r.stdout}\n${r.stderr}`);
  return JSON.parse(r.stdout.trim());
}

test('every value the export table names is there at run time, at every entry point of both packages', async () => {
  const r = (await runApp('entries.js')) as { checked: number; missing: string[] };
  assert.equal(r.missing, []);
  assert.is(r.checked, EXPECTED[HS].has.length + EXPECTED[SL].has.length);
});

test('draft package: Client over stateless HTTP against mcpgen serve --http --rev draft (tools/list, tools/call; its error is the one RpcError)', async () => {
  served = await startHttpServeProcess(['--rev', SL]);
  assert.equal(await runApp('stateless.js', served.url), {
    protocolVersion: pinnedModel(SL).protocolVersion,
    echo: true,
    text: 'hello statelessly',
    unknownCode: -32602,
    sameRpcError: true,
  });
});

test("2025-11-25 Client and draft Client against the draft package's dual-era endpoint; errors of both are instanceof one RpcError", async () => {
  assert.equal(await runApp('dual-era.js'), {
    legacy: { protocolVersion: HS, server: 'dual-legacy', tools: ['add'], sum: 'legacy 5' },
    modern: { protocolVersion: pinnedModel(SL).protocolVersion, sum: 'modern 9' },
    errors: [
      [true, true, -32602],
      [true, true, -32602],
    ],
  });
});

test('2025-11-25 package: the task receiver and requestor (tools/call as a task, tasks/result, tasks/get, tasks/list)', async () => {
  assert.equal(await runApp('tasks.js'), {
    declared: ['cancel', 'list', 'requests'],
    taskSupport: 'optional',
    created: 'working',
    text: 'slow 7',
    final: 'completed',
    listed: [[true, 'completed']],
    receiver: 'TaskReceiver',
  });
});

test('draft package: input-required rounds (elicitation, sealed requestState) and the tasks extension (declared; inline without opt-in)', async () => {
  assert.equal(await runApp('draft-memory.js'), {
    mrtr: { asked: ['Deploy?'], text: 'step 1: accept true' },
    extension: true,
    methods: ['tasks/get', 'tasks/update', 'tasks/cancel'],
    inline: 'rendered 3 (task undefined)',
  });
});

test('2025-11-25 package over stdio: the compiled client spawns the compiled server (tools/list, tools/call, unknown tool)', async () => {
  assert.equal(await runApp('stdio-client.js'), {
    server: 'packed-server',
    protocolVersion: true,
    tools: ['echo'],
    text: 'echo: hello over stdio',
    valid: true,
    unknown: -32602,
  });
});

test("draft package over stdio: the compiled client spawns the compiled server; an unknown tool is the 2025-11-25 package's RpcError (one runtime)", async () => {
  assert.equal(await runApp('stdio-client-draft.js'), {
    server: 'packed-draft-server',
    protocolVersion: true,
    text: 'echo: draft over stdio',
    invalidIsError: true,
    unknown: -32602,
  });
});

test.run();
