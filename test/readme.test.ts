/** README's example is real code: it matches examples/quickstart.ts (which tsc checks) and runs. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

test('README example is examples/quickstart.ts', () => {
  const readme = readFileSync(`${root}README.md`, 'utf8');
  const block = /## Using the generated code\n\n```ts\n([\s\S]*?)```/.exec(readme)?.[1];
  assert.ok(block, 'README has a ts block under "Using the generated code"');
  const example = readFileSync(`${root}examples/quickstart.ts`, 'utf8').replaceAll('../generated/', './generated/').replaceAll('../runtime/', './runtime/');
  assert.ok(example.includes(block!), 'examples/quickstart.ts contains the README block verbatim (up to import paths)');
});

test('examples/quickstart.ts runs: the echo tool answers', () => {
  const out = execFileSync(process.execPath, ['--import', 'tsx', 'examples/quickstart.ts'], { cwd: root, encoding: 'utf8', timeout: 30_000 });
  assert.equal(JSON.parse(out.trim()), { content: [{ type: 'text', text: '{"x":1}' }] });
});

test('README typed-tools blocks are examples/typed-tools.ts, which runs', () => {
  const readme = readFileSync(`${root}README.md`, 'utf8');
  const section = /### Typed tools, prompts and resource templates\n([\s\S]*?)\n## /.exec(readme)?.[1];
  assert.ok(section, 'README has the "Typed tools" section');
  const blocks = [...section!.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]);
  assert.is(blocks.length, 2, 'the mcpgen block and the official SDK block');
  const example = readFileSync(`${root}examples/typed-tools.ts`, 'utf8');
  for (const b of blocks) assert.ok(example.includes(b), `examples/typed-tools.ts contains the README block verbatim:\n${b}`);
  const out = execFileSync(process.execPath, ['--import', 'tsx', 'examples/typed-tools.ts'], { cwd: root, encoding: 'utf8', timeout: 30_000 });
  assert.equal(JSON.parse(out.trim()), {
    structured: { city: 'Oslo', celsius: [21, 21] },
    text: { uri: 'notes://ann/7?rev=3', text: 'ann/7@3' },
  });
});

test.run();
