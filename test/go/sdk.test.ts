/**
 * The Go SDK: the packages `--target go-sdk` writes for every generated revision (go/generate.ts,
 * into the reference module) are gofmt-clean and pass go vet and staticcheck; a handler set that
 * misses a method of ServerHandlers does not compile (nor does a call with another request's
 * params, or a result member the type lacks), a complete one does; and the reference module's
 * `go test -race` passes (the SDK end to end, the field cases by number, interop), each Go test
 * one case here.
 */
import { dirname, join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { generateGo } from '../../go/generate.js';
import { GO_DIR, go, goBinary, parseTestJSON, run, staticcheck } from './support.js';

generateGo();

test('the reference module and the generated packages of every revision: gofmt lists no file', async () => {
  const gofmt = join(dirname(goBinary()), 'gofmt');
  const r = await run(gofmt, ['-l', '.'], join(GO_DIR, 'reference'), 120_000);
  assert.is(r.status, 0, r.output);
  assert.is(r.stdout.trim(), '', `not gofmt-clean:\n${r.stdout}`);
});

test('go vet ./... (reference module and the generated packages) reports nothing', async () => {
  const r = await go(['vet', './...'], 'reference');
  assert.is(r.status, 0, r.output);
});

test('staticcheck ./... (reference module and the generated packages) reports nothing', async () => {
  const r = await staticcheck('reference');
  assert.is(r.status, 0, r.report);
  assert.is(r.report, '', r.report);
});

for (const [file, expected] of [
  ['complete_server.go', []],
  [
    'missing_handler.go',
    [
      /missing_handler\.go:17:23: cannot use partial\{\} .* partial does not implement mcp20251125\.ServerHandlers \(missing method CallTool\)/,
    ],
  ],
  [
    'wrong_argument.go',
    [
      /wrong_argument\.go:13:45: cannot use &mcp\.GetPromptRequestParams\{…\} .* as \*mcp20251125\.CallToolRequestParams value in argument to c\.CallTool/,
      /wrong_argument\.go:14:10: res\.Contents undefined \(type \*mcp20251125\.CallToolResult has no field or method Contents\)/,
    ],
  ],
] as const) {
  test(`compiled misuse: testdata/compile/${file} ${expected.length ? `fails with ${expected.length} error(s)` : 'compiles'}`, async () => {
    const r = await go(['build', '-o', '/dev/null', `./testdata/compile/${file}`], 'reference');
    const errors = r.output.split('\n').filter((l) => /\.go:\d+:\d+: /.test(l));
    assert.is(errors.length, expected.length, r.output);
    for (const re of expected)
      assert.ok(
        errors.some((e) => re.test(e)),
        `${re}\n${r.output}`,
      );
    assert.is(r.status === 0, expected.length === 0, r.output);
  });
}

const tests = await go(['test', '-race', '-json', '-count=1', './...'], 'reference', 1_500_000);
const { cases, broken } = parseTestJSON(tests.stdout, 'mcpgen.dev/reference');
if (!cases.length)
  test('go test ran (reference)', () =>
    assert.unreachable(`go test ran no test (exit ${tests.status}):\n${tests.output.slice(-4000)}`));
for (const c of cases) {
  test(`go sdk: ${c.id}`, () => {
    if (c.status === 'fail') assert.unreachable(c.output.slice(-6000));
  });
}
test('go test -race ./... (reference) exits 0', () => {
  assert.equal(broken, [], broken.join('\n').slice(-4000));
  assert.is(tests.status, 0, tests.output.slice(-4000));
});

test.run();
