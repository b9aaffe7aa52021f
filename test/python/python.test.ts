/**
 * The Python SDK: the runtime's pytest suite (python/tests: codecs with hypothesis property tests,
 * engine, stdio and HTTP transports, lifecycles, features, the field cases by number, interop
 * with the official `mcp` package) in the environment of python/venv.sh, each pytest test one uvu
 * test here; and mypy --strict over the runtime, the reference server and the generated packages
 * of 2025-11-25 and 2026-07-28.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { pythonGenerated, runMypy, runPytest } from './support.js';

const pytest = await runPytest([]);
if (!pytest.cases.length) {
  test('pytest ran', () =>
    assert.unreachable(`pytest ran no test (exit ${pytest.status}):\n${pytest.output.slice(-4000)}`));
}
for (const c of pytest.cases) {
  test(`python: ${c.id}`, () => {
    if (c.status === 'failed') assert.unreachable(c.message.slice(0, 6000));
  });
}
test('pytest exited 0', () => {
  assert.is(pytest.status, 0, pytest.output.slice(-4000));
});

for (const [name, targets] of [
  ['the runtime and the reference server', ['python/runtime/src/mcpgen_runtime', 'python/reference/mcpgen_reference']],
  ['the generated 2025-11-25 package', [join(pythonGenerated(), '2025-11-25', 'mcp_2025_11_25')]],
  ['the generated 2026-07-28 package', [join(pythonGenerated(), '2026-07-28', 'mcp_2026_07_28')]],
] as const) {
  test(`mypy --strict: ${name}`, async () => {
    const r = await runMypy([...targets]);
    assert.is(r.status, 0, r.output.slice(0, 4000));
  });
}

// compiled misuse: each file of python/typing_checks fails mypy --strict with the errors it names
for (const [file, expected] of [
  ['complete_server.py', []],
  [
    'missing_handler.py',
    [
      /:14: error: Argument "handlers" to "Server" has incompatible type "Partial"; expected "ServerHandlers" {2}\[arg-type\]/,
    ],
  ],
  [
    'wrong_argument.py',
    [
      /:9: error: Argument "name" to "call_tool" of "Client" has incompatible type "int"; expected "str" {2}\[arg-type\]/,
      /:10: error: Argument "arguments" to "call_tool" of "Client" has incompatible type "list\[str\]"; expected "dict\[str, Any\] \| None" {2}\[arg-type\]/,
    ],
  ],
  [
    'unknown_result_field.py',
    [
      /:12: error: "CallToolResult" has no attribute "contents"; maybe "content"\? {2}\[attr-defined\]/,
      /:17: error: Incompatible return value type \(got "ListToolsResult", expected "CallToolResult \| InputRequiredResult"\) {2}\[return-value\]/,
    ],
  ],
] as const) {
  test(`mypy --strict: typing_checks/${file} ${expected.length ? `fails with ${expected.length} error(s)` : 'passes'}`, async () => {
    const r = await runMypy([join('python', 'typing_checks', file)]);
    const errors = r.output.split('\n').filter((l) => l.includes(': error:'));
    assert.is(errors.length, expected.length, r.output);
    for (const re of expected)
      assert.ok(
        errors.some((e) => re.test(e)),
        `${re}\n${r.output}`,
      );
    assert.is(r.status, expected.length ? 1 : 0, r.output);
  });
}

test.run();
