/**
 * `mcpgen tools`: reference-tools.gen.ts (beside this file) is the snapshot of `mcpgen serve
 * --stdio`'s tools. `typeChecks` is compiled by `npx tsc -p tsconfig.json --noEmit`: calls through
 * `typedTools(client)` are typed per tool (each `@ts-expect-error` line must fail to compile).
 * The run-time tests: `--check` against the live server passes (the snapshot is current: a change
 * of the reference tools needs `node bin/mcpgen.js tools --stdio "node bin/mcpgen.js serve
 * --stdio" --out test/cli/tools/reference-tools.gen.ts`), fails naming the tools of an edited
 * snapshot, typed calls answer over stdio, and @modelcontextprotocol/server-everything's tools
 * snapshot into a module that type-checks.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Client } from '../../../generated/2025-11-25/index.js';
import { StdioClientTransport } from '../../../runtime/transport/stdio.js';
import { bin, root } from '../../runtime/tasks/serve-process.js';
import { typedTools } from './reference-tools.gen.js';

const snapshot = join(root, 'test/cli/tools/reference-tools.gen.ts');
const serve = `"${process.execPath}" "${bin}" serve --stdio`;

/** Compile-time checks only: never called. */
export async function typeChecks(client: Client): Promise<void> {
  const tools = typedTools(client);
  await tools.callTool('echo', { text: 'hi' });
  // @ts-expect-error wrong argument type
  await tools.callTool('echo', { text: 1 });
  // @ts-expect-error a required argument missing
  await tools.callTool('echo', {});
  // @ts-expect-error unknown argument (the tool's schema has additionalProperties: false)
  await tools.callTool('slow_compute', { seconds: 1, minutes: 2 });
  // an argument with a default may be left out (the server fills it in before its handler runs)
  await tools.callTool('slow_compute', {});
  await tools.callTool('batch_job', {});
  // @ts-expect-error a defaulted argument, when given, has its type
  await tools.callTool('slow_compute', { seconds: 'five' });
  // @ts-expect-error a tool the server does not have
  await tools.callTool('nope', {});
  const r = await tools.callTool('slow_compute', { seconds: 0 }, { timeout: 1000 });
  const sum: number | undefined = r.structuredContent?.sum;
  // @ts-expect-error structuredContent typed by the outputSchema: sum is a number
  const s: string | undefined = r.structuredContent?.sum;
  void [sum, s, r.content];
}

function tools(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, 'tools', ...args], { cwd: root, timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }),
    );
  });
}

test('--check: the committed snapshot matches mcpgen serve; an edited one fails naming the tools', async () => {
  const ok = await tools('--stdio', serve, '--out', snapshot, '--check');
  assert.is(
    ok.code,
    0,
    `${ok.stderr}\n(refresh: node bin/mcpgen.js tools --stdio "node bin/mcpgen.js serve --stdio" --out test/cli/tools/reference-tools.gen.ts)`,
  );
  assert.match(ok.stdout, /matches the server's 19 tool\(s\)/);
  const dir = mkdtempSync(join(root, 'test/cli/tools/.tmp-'));
  try {
    const edited = join(dir, 'tools.gen.ts');
    const text = readFileSync(snapshot, 'utf8')
      .replace('"description": "Echoes the text argument"', '"description": "Echoes"')
      .replace(/\n {2}"test_simple_text": \{[\s\S]*?\n {2}\},/, '')
      .replace(
        'export const tools = {',
        'export const tools = {\n  "gone": { "inputSchema": { "type": "object" }, "name": "gone" },',
      );
    writeFileSync(edited, text);
    const drift = await tools('--stdio', serve, '--out', edited, '--check');
    assert.is(drift.code, 1);
    assert.match(drift.stderr, /is out of date \(added test_simple_text; removed gone; changed echo\)/);
    assert.equal(readFileSync(edited, 'utf8'), text, '--check writes nothing');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('typed calls answer over stdio', async () => {
  const client = new Client({ clientInfo: { name: 'typed', version: '1' } });
  const [cmd, ...args] = [process.execPath, bin, 'serve', '--stdio'];
  await client.connect(new StdioClientTransport({ command: cmd, args, stderr: 'ignore' }));
  try {
    const t = typedTools(client);
    assert.equal((await t.callTool('echo', { text: 'hi' })).content, [{ type: 'text', text: 'hi' }]);
    const r = await t.callTool('slow_compute', { seconds: 0 });
    assert.equal(r.structuredContent, { seconds: 0, steps: 10, n: 1000, sum: 500500 });
  } finally {
    await client.close();
  }
});

test('@modelcontextprotocol/server-everything over stdio: its snapshot is deterministic and type-checks', async () => {
  const require = createRequire(import.meta.url);
  const pkg = require.resolve('@modelcontextprotocol/server-everything/package.json');
  const everything = join(
    dirname(pkg),
    (JSON.parse(readFileSync(pkg, 'utf8')) as { bin: Record<string, string> }).bin['mcp-server-everything'],
  );
  const dir = mkdtempSync(join(root, 'test/cli/tools/.tmp-'));
  try {
    const out = join(dir, 'everything.gen.ts');
    const cmd = `"${process.execPath}" "${everything}" stdio`;
    const first = await tools('--stdio', cmd, '--out', out);
    assert.is(first.code, 0, first.stderr);
    const text = readFileSync(out, 'utf8');
    assert.match(text, /"echo": \{/);
    const again = await tools('--stdio', cmd, '--out', out, '--check');
    assert.is(again.code, 0, again.stderr);
    writeFileSync(
      join(dir, 'use.ts'),
      "import type { ToolArguments } from './everything.gen.js';\nconst a: ToolArguments['echo'] = { message: 'hi' };\n// @ts-expect-error echo's message is a string\nconst b: ToolArguments['echo'] = { message: 1 };\nexport { a, b };\n",
    );
    const tsc = join(root, 'node_modules/typescript/bin/tsc');
    const r = await new Promise<{ code: number; out: string }>((resolve) =>
      execFile(
        process.execPath,
        [
          tsc,
          '--ignoreConfig',
          '--noEmit',
          '--strict',
          '--skipLibCheck',
          '--module',
          'nodenext',
          '--moduleResolution',
          'nodenext',
          '--target',
          'es2022',
          join(dir, 'use.ts'),
        ],
        { cwd: root, timeout: 120_000 },
        (err, stdout) => resolve({ code: err ? 1 : 0, out: stdout }),
      ),
    );
    assert.is(r.code, 0, r.out);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
