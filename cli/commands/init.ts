/**
 * `mcpgen init <dir>`: a quickstart project that runs as written. It writes
 *
 * - `package.json` (ES modules; scripts generate, check, build, start, test; the runtime as a
 *   dependency, mcpgen, TypeScript and @types/node as dev dependencies),
 * - `mcpgen.config.json` (the revision, `out: src/mcp`) and `mcpgen.lock.json` (the revision's pin),
 * - `tsconfig.json` (nodenext, strict, and strictNullChecks named: the generated types need it),
 * - `src/mcp/<rev>/`: the generated code (what `mcpgen generate` writes for the config),
 * - `src/server.ts`: a server with one typed tool (`greet`), over stdio (default) or Streamable
 *   HTTP (`--http`: sessions for a handshake revision, the stateless endpoint for 2026-07-28 and
 *   the draft), and `src/server.test.ts`, its test (node:test, a generated Client over a memory pair),
 * - with `--client`: `src/client.ts` (connects to the server, lists its tools, calls `greet`) and
 *   `src/client.test.ts`,
 * - `README.md`: ten lines saying how to install, build, test and run it.
 *
 *   mcpgen init <dir> [--rev <id>] [--stdio | --http] [--client]
 *                     [--runtime <npm spec>] [--mcpgen <npm spec>] [--spec-dir DIR]
 *
 * `--runtime` and `--mcpgen` are the dependency specs written into package.json (default
 * `^<this mcpgen's version>`; a `file:` path to a tarball before the packages are on the npm
 * registry; it must name a file or folder that exists, read from the project's folder as npm
 * reads it). `<dir>` must not exist or be empty. `--http` needs a revision with Streamable HTTP
 * (2024-11-05 has HTTP+SSE only: refused). Usage errors exit 2, an input error (no inputs for the
 * revision) or an output error (a folder that cannot be made or written, named with the cause) 3,
 * as for `generate`.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MCPGEN_VERSION } from '../../generator/emit/common.js';
import type { ProtocolModel } from '../../generator/model.js';
import { HTTP_FACTS } from '../../generator/overrides.js';
import { type ResolvedRevision, loadPins } from '../../schema/resolve.js';
import { type Command, parseCommand } from '../command.js';
import { didYouMean, revisionListProblem } from '../nearest.js';
import { modelOf } from '../generation.js';
import { OutputError, UsageError, prepareOutDir, removeMadeDirs, resolveInputs, writeCause } from '../inputs.js';
import { writeLock } from '../lock.js';

export const init: Command = {
  name: 'init',
  summary: 'writes a quickstart project: a server with one typed tool, its test, the generated code',
  usage: [
    'init <dir> [--rev <id>] [--stdio | --http] [--client] [--runtime <npm spec>] [--mcpgen <npm spec>]',
    '     [--spec-dir DIR]',
  ],
  description: [
    'Writes a quickstart project into <dir> (new or empty): package.json, mcpgen.config.json and',
    'mcpgen.lock.json (the revision, default 2025-11-25, out src/mcp), tsconfig.json, the generated code',
    'in src/mcp/<rev>/, src/server.ts (one typed tool, greet, over stdio or with --http Streamable HTTP',
    'on $PORT) and its test, with --client src/client.ts and its test, a README. --runtime and --mcpgen',
    'are the dependency specs package.json gets (default ^<version>; file:<tarball> before the packages',
    'are on npm).',
  ],
  flags: [
    { name: 'rev', value: '<id>', default: '2025-11-25', meaning: 'the spec revision' },
    { name: 'stdio', meaning: 'the server speaks stdio (the default)' },
    { name: 'http', meaning: 'the server speaks Streamable HTTP on $PORT (default 3000)' },
    { name: 'client', meaning: 'add a client (src/client.ts) and its test' },
    {
      name: 'runtime',
      value: '<npm spec>',
      default: '^<version>',
      meaning: 'the spec of @mcpgen/runtime in package.json',
    },
    { name: 'mcpgen', value: '<npm spec>', default: '^<version>', meaning: 'the spec of mcpgen in package.json' },
    {
      name: 'spec-dir',
      value: 'DIR',
      default: '$MCP_SPEC_DIR, then the cache',
      meaning: 'where the revision inputs are',
    },
  ],
  config: [],
  examples: ['init my-server', 'init my-server --http --client', 'init my-server --rev 2026-07-28'],
  exitCodes: [
    [0, 'the project was written and its code generated'],
    [
      2,
      'usage error: a bad flag, an unknown revision or a list of them, a folder that exists and is not empty, --http for a revision without Streamable HTTP',
    ],
    [3, 'input or output error: no inputs for the revision; a folder that cannot be made or written into'],
  ],
  run: (args, io, ctx) => cmdInit(args, io, ctx.cli),
};

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The versions of TypeScript and @types/node this mcpgen is built and tested with. */
function toolVersions(): { typescript: string; types: string } {
  const file = join(ROOT, 'package.json');
  const pkg = JSON.parse(readFileSync(file, 'utf8')) as {
    dependencies?: Record<string, string>;
    devDependencies?: Record<string, string>;
  };
  // in the checkout both are in the root manifest; the built package's keeps typescript (a
  // dependency) and, of its devDependencies, @types/node (scripts/build.ts)
  const typescript = pkg.dependencies?.typescript ?? pkg.devDependencies?.typescript;
  const types = pkg.devDependencies?.['@types/node'] ?? pkg.dependencies?.['@types/node'];
  if (!typescript || !types)
    throw new Error(`${file}: no version of ${typescript ? '@types/node' : 'typescript'} for the new project`);
  return { typescript, types };
}

/** What `init` makes. */
export interface InitOptions {
  rev: string;
  /**
   * Whether the revision is stateless (no `initialize`: each request carries its version and
   * capabilities): its ProtocolModel's lifecycle, see {@link revisionLifecycle}.
   */
  stateless: boolean;
  transport: 'stdio' | 'http';
  client: boolean;
  runtimeSpec: string;
  mcpgenSpec: string;
}

/**
 * The lifecycle of a revision as the generator decides it: its ProtocolModel's `lifecycle`
 * (`handshake` when the schema has an `initialize` request, else `stateless`), whatever the
 * revision is named. Throws IngestError on inputs that do not ingest.
 */
export async function revisionLifecycle(r: ResolvedRevision): Promise<ProtocolModel['lifecycle']> {
  return (await modelOf(r)).lifecycle;
}

/** An npm package name from a folder name: lower case, `[a-z0-9._-]`, not starting with `.` or `_`. */
export function packageName(dir: string): string {
  const name = basename(resolve(dir))
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[._-]+/, '');
  return name || 'mcp-server';
}

/** The project's files but the generated code and the lock: path → text. */
// size: the text of each file of the quickstart project, one after another
export function projectFiles(dir: string, o: InitOptions): Map<string, string> {
  const name = packageName(dir);
  const tools = toolVersions();
  const mcp = `./mcp/${o.rev}/index.js`;
  const stateless = o.stateless;
  const files = new Map<string, string>();
  const tests = ['dist/server.test.js', ...(o.client ? ['dist/client.test.js'] : [])];
  files.set(
    'package.json',
    `${JSON.stringify(
      {
        name,
        version: '0.1.0',
        private: true,
        type: 'module',
        engines: { node: '^20.6.0 || ^22.0.0 || >=24.0.0' },
        scripts: {
          generate: 'mcpgen generate',
          check: 'mcpgen check',
          build: 'tsc -p .',
          start: 'node dist/server.js',
          ...(o.client ? { client: 'node dist/client.js' } : {}),
          test: `tsc -p . && node --test ${tests.join(' ')}`,
        },
        dependencies: { '@mcpgen/runtime': o.runtimeSpec },
        devDependencies: { '@types/node': tools.types, mcpgen: o.mcpgenSpec, typescript: tools.typescript },
      },
      null,
      2,
    )}\n`,
  );
  files.set(
    'mcpgen.config.json',
    `${JSON.stringify(
      { $schema: './node_modules/mcpgen/dist/mcpgen/schema/config.schema.json', revisions: [o.rev], out: 'src/mcp' },
      null,
      2,
    )}\n`,
  );
  files.set(
    'tsconfig.json',
    `${JSON.stringify(
      {
        compilerOptions: {
          module: 'nodenext',
          target: 'es2022',
          strict: true,
          // (named besides strict: the generated types need it, TS2589 without it)
          strictNullChecks: true,
          types: ['node'],
          allowJs: true,
          skipLibCheck: true,
          rootDir: 'src',
          outDir: 'dist',
        },
        include: ['src'],
      },
      null,
      2,
    )}\n`,
  );
  files.set('.gitignore', 'node_modules/\ndist/\n');

  const serverImports = [`import { Server, table, type Protocol } from '${mcp}';`];
  serverImports.push(`import { ServerFeatures } from '@mcpgen/runtime/features';`);
  let serve: string;
  if (o.transport === 'stdio') {
    serverImports.push(`import { StdioServerTransport } from '@mcpgen/runtime/stdio';`);
    serve = `/** Serves over stdin/stdout: log to stderr, stdout carries only messages. */
export async function main(): Promise<void> {
  await createServer().connect(new StdioServerTransport());
}`;
  } else if (!stateless) {
    serverImports.unshift(`import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';`);
    serverImports.push(`import { createStreamableHttpHandler } from '@mcpgen/runtime/http';`);
    serve = `/** Serves Streamable HTTP at http://127.0.0.1:$PORT/mcp (default 3000; 0: any free port): a Server per session. */
export async function main(): Promise<void> {
  const http = createHttpServer(
    createStreamableHttpHandler({ tables: [table], onSession: (transport) => createServer().connect(transport) }),
  );
  listen(http);
}

${listenFunction(name)}`;
  } else {
    serverImports.unshift(`import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';`);
    serverImports.push(`import { createStatelessHttpHandler } from '@mcpgen/runtime/http/stateless';`);
    serve = `/** Serves stateless Streamable HTTP at http://127.0.0.1:$PORT/mcp (default 3000; 0: any free port): one Server for every request. */
export async function main(): Promise<void> {
  const features = tools();
  const handler = createStatelessHttpHandler({ tables: [table], toolSchema: (name) => features.inputSchema(name) });
  await createServer(features).connect(handler.transport);
  const http = createHttpServer(handler);
  listen(http);
}

${listenFunction(name)}`;
  }
  files.set(
    'src/server.ts',
    `// ${name}: an MCP server (${o.rev}) with one typed tool, over ${o.transport === 'stdio' ? 'stdio' : 'Streamable HTTP'}.
import { pathToFileURL } from 'node:url';
${serverImports.join('\n')}

/** The server's tools. Add yours here: arguments are typed from inputSchema. */
export function tools(): ServerFeatures<Protocol> {
  const features = new ServerFeatures<Protocol>();
  features.tool({
    name: 'greet',
    description: 'Says hello to someone',
    inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    handler: ({ name }) => ({ content: [{ type: 'text', text: \`Hello, \${name}!\` }] }),
  });
  return features;
}

/** A Server answering with {@link tools}. */
export function createServer(features = tools()): Server {
  return new Server({
    serverInfo: { name: '${name}', version: '0.1.0' },
    capabilities: features.capabilities(),
    handlers: features.handlers({ table }),
  });
}

${serve}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
`,
  );
  files.set(
    'src/server.test.ts',
    `import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createMemoryPair } from '@mcpgen/runtime/memory';
import { Client } from '${mcp}';
import { createServer } from './server.js';

test('greet answers with a greeting; arguments its schema refuses are a tool error', async () => {
  const [clientSide, serverSide] = createMemoryPair();
  await createServer().connect(serverSide);
  const client = new Client({ clientInfo: { name: 'test', version: '0.1.0' } });
  await client.connect(clientSide);
  const { tools } = await client.listTools({});
  assert.deepEqual(tools.map((t) => t.name), ['greet']);
  const result = await client.callTool({ name: 'greet', arguments: { name: 'Ada' } });
  assert.deepEqual(result.content, [{ type: 'text', text: 'Hello, Ada!' }]);
  const refused = await client.callTool({ name: 'greet', arguments: { name: 42 } });
  assert.equal(refused.isError, true);
  await client.close();
});
`,
  );

  if (o.client) {
    const transportImport =
      o.transport === 'stdio'
        ? `import { StdioClientTransport } from '@mcpgen/runtime/stdio';`
        : stateless
          ? `import { StatelessHttpClientTransport } from '@mcpgen/runtime/http/stateless';`
          : `import { HttpClientTransport } from '@mcpgen/runtime/http';`;
    const transport =
      o.transport === 'stdio'
        ? `new StdioClientTransport({ command: process.execPath, args: [fileURLToPath(new URL('./server.js', import.meta.url))] })`
        : stateless
          ? 'new StatelessHttpClientTransport({ url: target })'
          : 'new HttpClientTransport({ url: target })';
    files.set(
      'src/client.ts',
      `// ${name}: an MCP client (${o.rev}) that lists the server's tools and calls greet.
import { fileURLToPath, pathToFileURL } from 'node:url';
${transportImport}
import { Client } from '${mcp}';

/** Connects${o.transport === 'stdio' ? ' to the server (started as a child process)' : ' to the server at `target`'}, lists its tools and calls greet when it has it; returns what it printed. */
export async function run(${o.transport === 'stdio' ? '' : 'target: string'}): Promise<string[]> {
  const lines: string[] = [];
  const client = new Client({ clientInfo: { name: '${name}-client', version: '0.1.0' } });
  const server = await client.connect(${transport});
  try {
    // a client asks only for what the server declared
    if (!server.capabilities.tools) return [\`\${server.serverInfo?.name ?? 'the server'} has no tools\`];
    const { tools } = await client.listTools({});
    lines.push(\`tools: \${tools.map((t) => t.name).join(', ')}\`);
    if (tools.some((t) => t.name === 'greet')) {
      const result = await client.callTool({ name: 'greet', arguments: { name: 'Ada' } });
      for (const c of result.content) if (c.type === 'text') lines.push(c.text);
    }
  } finally {
    await client.close();
  }
  return lines;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
${o.transport === 'stdio' ? '' : `  // the URL given, else the server's own default: $PORT (3000 when unset) on this machine\n  const target = process.argv[2] ?? \`http://127.0.0.1:\${process.env.PORT || 3000}/mcp\`;\n`}  try {
    for (const line of await run(${o.transport === 'stdio' ? '' : 'target'})) console.log(line);
  } catch (e) {
    // one line, not a stack: most often the server is not running
    const why = (e instanceof Error ? e.message : String(e)).split('\\n')[0];
    console.error(${o.transport === 'stdio' ? `\`${name}-client: the server did not answer: \${why}\`` : `\`${name}-client: no answer from \${target}: \${why} (is the server running? npm start)\``});
    process.exitCode = 1;
  }
}
`,
    );
    const start =
      o.transport === 'stdio'
        ? ''
        : `import { once } from 'node:events';
import { spawn } from 'node:child_process';
`;
    const body =
      o.transport === 'stdio'
        ? `  assert.deepEqual(await run(), ['tools: greet', 'Hello, Ada!']);`
        : `  // the server as a process on a free port; its first line names its URL
  const server = spawn(process.execPath, [fileURLToPath(new URL('./server.js', import.meta.url))], {
    env: { ...process.env, PORT: '0' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const [chunk] = (await once(server.stdout!, 'data')) as [Buffer];
    const url = /listening on (\\S+)/.exec(chunk.toString())?.[1];
    assert.ok(url, chunk.toString());
    assert.deepEqual(await run(url), ['tools: greet', 'Hello, Ada!']);
  } finally {
    server.kill();
  }`;
    files.set(
      'src/client.test.ts',
      `import assert from 'node:assert/strict';
${start}import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { run } from './client.js';

test('the client lists the server\\'s tools and calls greet${o.transport === 'stdio' ? ' over stdio' : ' over HTTP'}', async () => {
${body}
});
`,
    );
  }

  const runLine =
    o.transport === 'stdio'
      ? o.client
        ? 'npm run client          # starts the server over stdio, lists its tools, calls greet'
        : 'npm start               # the server on stdin/stdout'
      : o.client
        ? `${runCommand(o)}   # the server on http://127.0.0.1:3000/mcp, the client, then stops the server`
        : 'npm start               # the server on http://127.0.0.1:3000/mcp';
  files.set(
    'README.md',
    `# ${name}

An MCP server (revision ${o.rev}, ${o.transport === 'stdio' ? 'stdio' : 'Streamable HTTP'}) with one typed tool, \`greet\`, in src/server.ts${o.client ? '; a client in src/client.ts' : ''}.

\`\`\`sh
npm install
npm test                # compiles, then runs the tests in src/*.test.ts
${runLine}
\`\`\`

${o.transport === 'stdio' ? '' : `The server listens on $PORT (default 3000)${o.client ? '; the client calls http://127.0.0.1:$PORT/mcp, or the URL it is given: `npm run client -- <url>`' : ''}. `}src/mcp/${o.rev}/ is generated: \`npm run generate\` remakes it, \`npm run check\` says whether it is current.
`,
  );
  return files;
}

/**
 * The generated HTTP server's `listen`: 127.0.0.1 on $PORT (default 3000; 0: any free port),
 * printing its URL. A PORT that is not a port, or a port in use, is one line on stderr naming the
 * port and PORT, and exit 3 (as `mcpgen serve`), not an unhandled 'error' event's stack.
 */
function listenFunction(name: string): string {
  return `/** Listens on 127.0.0.1:$PORT (default 3000; 0: any free port) and prints the URL; a busy or invalid port: one line on stderr, exit 3. */
function listen(http: HttpServer): void {
  const raw = process.env.PORT ?? '';
  const port = raw === '' ? 3000 : /^[0-9]+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(port <= 65535)) {
    console.error(\`${name}: PORT=\${process.env.PORT} is not a port number (0-65535; 0: any free port)\`);
    process.exitCode = 3;
    return;
  }
  http.on('error', (e: NodeJS.ErrnoException) => {
    const why = e.code === 'EADDRINUSE' ? \`port \${port} is in use\` : e.message;
    console.error(\`${name}: cannot listen on 127.0.0.1:\${port}: \${why} (set PORT to a free port; PORT=0: any)\`);
    process.exitCode = 3;
  });
  http.listen(port, '127.0.0.1', () => {
    const address = http.address();
    console.log(\`listening on http://127.0.0.1:\${typeof address === 'object' && address ? address.port : ''}/mcp\`);
  });
}`;
}

/**
 * What runs the project once it is installed and tested: the client (it starts a stdio server
 * itself), or the HTTP server in the background, the client against it, then the server stopped
 * (node itself, not `npm start`: `kill` of npm leaves its child running); without a client, the
 * server.
 */
function runCommand(o: InitOptions): string {
  if (!o.client) return 'npm start';
  if (o.transport === 'stdio') return 'npm run client';
  return '{ node dist/server.js & sleep 2; npm run client; kill $!; }';
}

/**
 * The file or folder a `file:` npm spec names (resolved, as npm does, from the project's folder),
 * or undefined for a registry spec.
 */
function fileSpecPath(spec: string, projectDir: string): string | undefined {
  if (!spec.startsWith('file:')) return undefined;
  if (spec.startsWith('file://')) {
    try {
      return fileURLToPath(spec);
    } catch (e) {
      throw new UsageError(`${spec} is not a file URL this system can read: ${(e as Error).message}`);
    }
  }
  const path = spec.slice('file:'.length);
  return path.startsWith('~/') ? join(homedir(), path.slice(2)) : resolve(projectDir, path);
}

/**
 * Whether this version's packages (mcpgen, @mcpgen/runtime) are on the npm registry: until they
 * are, init without --runtime and --mcpgen warns that the default `^<version>` specs cannot install.
 */
const PUBLISHED = false;

/** `mcpgen init <dir> …`: writes the project, then generates its code (through `mcpgen generate`). */
export async function cmdInit(
  args: string[],
  io: { out: (line: string) => void; err: (line: string) => void },
  /** The CLI's entry (../main.ts `main`), passed in: the project's code is made by its `generate`. */
  cli: (argv: string[], io: { out: (line: string) => void; err: (line: string) => void }) => Promise<number>,
): Promise<number> {
  const { values: v, positionals } = parseCommand(init, args);
  if (positionals.length !== 1)
    throw new UsageError(
      positionals.length ? `one folder, not ${positionals.join(' ')}` : 'init needs a folder: mcpgen init <dir>',
    );
  if (!positionals[0].trim())
    throw new UsageError(`the folder is ${JSON.stringify(positionals[0])}, an empty name: mcpgen init <dir>`);
  if (v.stdio && v.http) throw new UsageError('--stdio or --http, not both');
  const rev = (v.rev as string | undefined) ?? '2025-11-25';
  const pins = loadPins();
  const pin = Object.hasOwn(pins.revisions, rev) ? pins.revisions[rev] : undefined;
  if (!pin) {
    const known = Object.keys(pins.revisions);
    throw new UsageError(
      `--rev: ${revisionListProblem(rev, known) ?? `unknown revision "${rev}"${didYouMean(rev, known)}`} (revisions: ${known.join(', ')})`,
    );
  }
  for (const k of ['runtime', 'mcpgen'] as const)
    if (v[k] === '') throw new UsageError(`--${k} needs an npm spec (a version range, or file:<tarball>)`);
  const dir = resolve(positionals[0]);
  if (existsSync(dir) && statSync(dir).isDirectory() && readdirSync(dir).length)
    throw new UsageError(`${positionals[0]} exists and is not empty: init writes into a new or empty folder`);
  for (const k of ['runtime', 'mcpgen'] as const) {
    const path = fileSpecPath((v[k] as string | undefined) ?? '', dir);
    if (path !== undefined && !existsSync(path))
      throw new UsageError(
        `--${k}: ${v[k]} names ${path}, which does not exist (a file: spec is read from the project's folder at npm install)`,
      );
  }
  const specDir = v['spec-dir'] as string | undefined;
  // the scaffold (sessions or the stateless endpoint) follows the revision's model, as the generated code does
  const [inputs] = resolveInputs({ rev, 'spec-dir': specDir ? resolve(specDir) : undefined });
  // before the slow work, the folder made one level at a time (a recursive mkdir loops forever
  // under /proc): a file in its path, a place that takes no new folder, no write permission is
  // an OutputError naming the folder and the cause; what was made is removed when init fails
  const created = prepareOutDir(positionals[0], dir);
  try {
    return await writeProject(dir, positionals[0], { rev, pin, pins, v, inputs, specDir }, io, cli);
  } catch (e) {
    removeMadeDirs(dir, created);
    throw e;
  }
}

/** What {@link cmdInit} checked, for {@link writeProject}. */
interface Checked {
  rev: string;
  pin: NonNullable<ReturnType<typeof loadPins>['revisions'][string]>;
  pins: ReturnType<typeof loadPins>;
  v: ReturnType<typeof parseCommand>['values'];
  inputs: ResolvedRevision;
  specDir: string | undefined;
}

/** The project's files, its lock and its generated code, into `dir` (made and writable). */
async function writeProject(
  dir: string,
  given: string,
  { rev, pin, pins, v, inputs, specDir }: Checked,
  io: { out: (line: string) => void; err: (line: string) => void },
  cli: (argv: string[], io: { out: (line: string) => void; err: (line: string) => void }) => Promise<number>,
): Promise<number> {
  const model = await modelOf(inputs);
  // the scaffold serves Streamable HTTP: a revision whose HTTP transport is HTTP+SSE (2024-11-05)
  // has none, and a client of that revision would not speak it
  if (v.http && model.http.transport !== 'streamable-http') {
    const streamable = Object.keys(pins.revisions).filter(
      (r) => !(Object.hasOwn(HTTP_FACTS, r) && HTTP_FACTS[r].transport !== 'streamable-http'),
    );
    throw new UsageError(
      `--http: revision ${rev} has no Streamable HTTP transport (its HTTP transport is HTTP+SSE, which init does not write): use --stdio (the default), or --rev with one of ${streamable.join(', ')}`,
    );
  }
  const options: InitOptions = {
    rev,
    stateless: model.lifecycle === 'stateless',
    transport: v.http ? 'http' : 'stdio',
    client: Boolean(v.client),
    runtimeSpec: (v.runtime as string | undefined) ?? `^${MCPGEN_VERSION}`,
    mcpgenSpec: (v.mcpgen as string | undefined) ?? `^${MCPGEN_VERSION}`,
  };
  const unset = (['runtime', 'mcpgen'] as const).filter((k) => v[k] === undefined);
  if (!PUBLISHED && unset.length)
    io.err(
      `mcpgen init: warning: ${unset.map((k) => `${k === 'runtime' ? '@mcpgen/runtime' : 'mcpgen'} ^${MCPGEN_VERSION}`).join(' and ')} ${unset.length > 1 ? 'are' : 'is'} not on the npm registry yet, so npm install will fail: pass ${unset.map((k) => `--${k} file:<${k === 'runtime' ? 'the runtime tarball' : 'the mcpgen tarball or checkout'}>`).join(' and ')} (as mcpgen's README shows)`,
    );
  for (const [path, text] of projectFiles(dir, options)) {
    const file = join(dir, path);
    try {
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, text, { flag: 'wx' });
    } catch (e) {
      throw new OutputError(`${given}: cannot write ${file}: ${writeCause(e as NodeJS.ErrnoException, file)}`);
    }
  }
  writeLock(join(dir, 'mcpgen.lock.json'), {
    lockVersion: 1,
    revisions: {
      [rev]: {
        repository: pin.repository ?? pins.upstream.repository,
        commit: pin.commit ?? pins.upstream.commit,
        files: pin.files,
      },
    },
  });
  const code = await cli(
    ['generate', '--config', join(dir, 'mcpgen.config.json'), ...(specDir ? ['--spec-dir', resolve(specDir)] : [])],
    io,
  );
  if (code !== 0) return code;
  io.out(`wrote ${given}: ${options.transport} server${options.client ? ' and client' : ''} for ${rev}`);
  io.out(`next: cd ${given} && npm install && npm test && ${runCommand(options)}`);
  return 0;
}
