/**
 * The manual's examples are real code (docs/generated-code.md, docs/quick-start.md): each ts
 * block is an example file (which tsc checks) verbatim, up to import paths, and runs; the quick
 * start's Streamable HTTP server is called with the page's own `mcpgen call --url` line and prints
 * the result the page says.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile, execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { splitCommand } from '../../cli/connect.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

test('the example of docs/generated-code.md is examples/quickstart.ts', () => {
  const page = readFileSync(`${root}docs/generated-code.md`, 'utf8');
  const block = /^# Using the generated code\n\n```ts\n([\s\S]*?)```/.exec(page)?.[1];
  assert.ok(block, 'docs/generated-code.md opens with a ts block under "Using the generated code"');
  // the example imports the runtime as an application does; its generated code is at ../generated/
  const example = readFileSync(`${root}examples/quickstart.ts`, 'utf8').replaceAll('../generated/', './mcp/');
  assert.ok(example.includes(block!), 'examples/quickstart.ts contains the block verbatim (up to import paths)');
});

test('the code of docs/deployment.md is examples/deployment.ts (which tsc checks), all of it', () => {
  const page = readFileSync(`${root}docs/deployment.md`, 'utf8');
  const blocks = [...page.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]);
  assert.is(blocks.length, 1, 'one ts block');
  // the whole file but its first line (what the file is), so every name the block uses is defined in it
  const example = readFileSync(`${root}examples/deployment.ts`, 'utf8').replaceAll('../generated/', './mcp/');
  assert.is(blocks[0], example.slice(example.indexOf('\n') + 1));
});

test('examples/quickstart.ts runs: the echo tool answers', () => {
  const out = execFileSync(process.execPath, ['--import', 'tsx', 'examples/quickstart.ts'], {
    cwd: root,
    encoding: 'utf8',
    timeout: 30_000,
  });
  assert.equal(JSON.parse(out.trim()), { content: [{ type: 'text', text: '{"x":1}' }] });
});

test('the typed-tools blocks of docs/generated-code.md are examples/typed-tools.ts, which runs', () => {
  const page = readFileSync(`${root}docs/generated-code.md`, 'utf8');
  const section = /\n## Typed tools, prompts and resource templates\n([\s\S]*?)(?:\n## |$)/.exec(page)?.[1];
  assert.ok(section, 'docs/generated-code.md has the "Typed tools" section');
  const blocks = [...section!.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]);
  assert.is(blocks.length, 2, 'the mcpgen block and the official SDK block');
  const example = readFileSync(`${root}examples/typed-tools.ts`, 'utf8');
  for (const b of blocks) assert.ok(example.includes(b), `examples/typed-tools.ts contains the block verbatim:\n${b}`);
  const out = execFileSync(process.execPath, ['--import', 'tsx', 'examples/typed-tools.ts'], {
    cwd: root,
    encoding: 'utf8',
    timeout: 30_000,
  });
  assert.equal(JSON.parse(out.trim()), {
    structured: { city: 'Oslo', celsius: [21, 21] },
    text: { uri: 'notes://ann/7?rev=3', text: 'ann/7@3' },
  });
});

test("docs/quick-start.md over Streamable HTTP: the server is examples/quickstart-http.ts, and the page's mcpgen call --url line prints what it says", async () => {
  const page = readFileSync(`${root}docs/quick-start.md`, 'utf8');
  const section = /\nOver Streamable HTTP: ([\s\S]*?)\n## /.exec(page)?.[1];
  assert.ok(section, 'docs/quick-start.md has the "Over Streamable HTTP" part');
  const [server, shell] = [/```ts\n([\s\S]*?)```/.exec(section!)?.[1], /```sh\n([\s\S]*?)```/.exec(section!)?.[1]];
  assert.ok(server && shell, 'a ts block (the server) and a sh block (the call)');
  const example = readFileSync(`${root}examples/quickstart-http.ts`, 'utf8').replaceAll('../generated/', './mcp/');
  assert.ok(example.includes(server!), 'examples/quickstart-http.ts contains the block verbatim (up to import paths)');
  const callLine = shell!.split('\n').find((l) => l.startsWith('npx mcpgen call --url '));
  const printed = /# prints the result[^:]*: (\{.*\})$/m.exec(shell!)?.[1];
  assert.ok(callLine && printed, `the sh block calls the server and says what it prints:\n${shell}`);
  const [, , , , readmeUrl, ...args] = splitCommand(callLine!); // npx mcpgen call --url <url> <method> <params>
  assert.is(readmeUrl, 'http://127.0.0.1:3000/mcp');
  assert.match(shell!, /PORT=3000 node dist\/server\.js &/);

  // the server on a free port (PORT=0) instead of 3000, as the page runs it otherwise
  const proc = spawn(process.execPath, ['--import', 'tsx', 'examples/quickstart-http.ts'], {
    cwd: root,
    env: { ...process.env, PORT: '0' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise((r) => proc.once('exit', r));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      const t = setTimeout(() => reject(new Error(`no "listening on" line in 60 s: ${out}`)), 60_000);
      proc.stdout.setEncoding('utf8').on('data', (d: string) => {
        const m = /^listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)$/m.exec((out += d));
        if (m) clearTimeout(t), resolve(m[1]);
      });
      proc.once('exit', (code) => (clearTimeout(t), reject(new Error(`the server exited (${code}): ${out}`))));
    });
    const stdout = await new Promise<string>((resolve, reject) =>
      execFile(
        process.execPath,
        ['bin/mcpgen.js', 'call', '--url', url, ...args],
        { cwd: root, timeout: 60_000 },
        (e, out, err) => (e ? reject(new Error(`${e.message}\n${err}`)) : resolve(out)),
      ),
    );
    assert.equal(JSON.parse(stdout), JSON.parse(printed!));
  } finally {
    proc.kill('SIGTERM');
    await exited;
  }
});

test.run();
