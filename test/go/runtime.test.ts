/**
 * The Go runtime (go/runtime, module mcpgen.dev/runtime): gofmt, go vet and staticcheck (pinned
 * in go/tools) report nothing; `go test -race` passes, each Go test one case here (codecs,
 * engine, stdio, sessions, Streamable HTTP, features, the field cases by number).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { go, parseTestJSON, run, goBinary, GO_DIR, staticcheck } from './support.js';
import { join, dirname } from 'node:path';

const tests = await go(['test', '-race', '-json', '-count=1', './...'], 'runtime');
const { cases, broken } = parseTestJSON(tests.stdout, 'mcpgen.dev/runtime');

if (!cases.length)
  test('go test ran', () =>
    assert.unreachable(`go test ran no test (exit ${tests.status}):\n${tests.output.slice(-4000)}`));
for (const c of cases) {
  test(`go runtime: ${c.id}`, () => {
    if (c.status === 'fail') assert.unreachable(c.output.slice(-6000));
  });
}
test('go test -race ./... (runtime) exits 0', () => {
  assert.equal(broken, [], broken.join('\n').slice(-4000));
  assert.is(tests.status, 0, tests.output.slice(-4000));
});

test('gofmt -l go/ lists no file', async () => {
  const gofmt = join(dirname(goBinary()), 'gofmt');
  const r = await run(gofmt, ['-l', '.'], GO_DIR, 120_000);
  assert.is(r.status, 0, r.output);
  assert.is(r.stdout.trim(), '', `not gofmt-clean:\n${r.stdout}`);
});

test('go vet ./... (runtime) reports nothing', async () => {
  const r = await go(['vet', './...'], 'runtime');
  assert.is(r.status, 0, r.output);
});

test('staticcheck ./... (runtime) reports nothing', async () => {
  const r = await staticcheck('runtime');
  assert.is(r.status, 0, r.report);
  assert.is(r.report, '', r.report);
});

// the layers of go/runtime/README.md: each package imports only the ones listed before it
const LAYERS = [
  'wire',
  'jsonrpc',
  'codec',
  'protocol',
  'engine',
  'stdio',
  'session',
  'features',
  'streamable',
  'codegen',
];

test('each runtime package imports only the layers below it', async () => {
  const r = await go(['list', '-f', '{{.ImportPath}} {{join .Imports " "}}', './...'], 'runtime');
  assert.is(r.status, 0, r.output);
  const seen = new Set<string>();
  for (const line of r.stdout.trim().split('\n')) {
    const [pkg, ...imports] = line.split(' ');
    const name = pkg.replace('mcpgen.dev/runtime/', '');
    seen.add(name);
    const level = LAYERS.indexOf(name);
    assert.ok(level >= 0, `${name} is not in the table of layers`);
    for (const imp of imports.filter((i) => i.startsWith('mcpgen.dev/runtime/'))) {
      const dep = imp.replace('mcpgen.dev/runtime/', '');
      assert.ok(LAYERS.indexOf(dep) < level, `${name} imports ${dep}, a layer above it`);
    }
  }
  assert.equal([...seen].sort(), [...LAYERS].sort());
});

test.run();
