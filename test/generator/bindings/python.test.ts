/**
 * Python bindings (generator/emit/python/bindings.ts), run by Debian's python3 under `-O` with the
 * standard library only: every example of both revisions decodes and re-encodes to equal JSON;
 * every schema-derived mutation is refused with a DecodeError naming the mutated path; the
 * tagged unions are matched exhaustively (typing.assert_never, python/match_check.py), and that
 * check fails on a binding with one more variant; a stdio client (python/client.py) talks to
 * `mcpgen serve --stdio` of 2025-11-25 (handshake) and draft (stateless).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { OWN_BINDING_LANGUAGES } from '../../../generator/emit/bindings/index.js';
import { emitPython, pythonPackageName } from '../../../generator/emit/python/bindings.js';
import type { ProtocolModel } from '../../../generator/model.js';
import {
  REVISIONS,
  loadModel,
  modelWithExtraVariant,
  requireCommand,
  writeTemp,
  type Case,
  type MethodCase,
  type Result,
} from './own.js';
import { errorsIn, matchFile, mypyCheck } from './python/mypy.js';
import { SERVE_STDIO, corpusTests, issueCasesTest, stdioClientTests } from './own-suite.js';

const HERE = fileURLToPath(new URL('./python/', import.meta.url));

function python(args: string[], cwd: string): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync('python3', ['-O', ...args], {
    cwd,
    encoding: 'utf8',
    timeout: 120_000,
    maxBuffer: 256 * 1024 * 1024,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const built = new Map<string, string>();
/** The package of a revision, generated into a temp folder (once per test run). */
function packageDir(model: ProtocolModel, key = model.revision): string {
  let dir = built.get(key);
  if (!dir) {
    dir = writeTemp(`python-${key}`, emitPython(model));
    built.set(key, dir);
  }
  return join(dir, 'bindings', 'python');
}

function runCases(revision: string, cases: Array<Case | MethodCase>): Result[] {
  const dir = packageDir(loadModel(revision));
  writeFileSync(join(dir, 'cases.json'), JSON.stringify(cases));
  const r = python([join(HERE, 'roundtrip.py'), dir, pythonPackageName(revision), 'cases.json', 'results.json'], dir);
  assert.is(r.status, 0, `roundtrip.py failed:\n${r.stderr.slice(0, 3000)}`);
  return JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')) as Result[];
}

test('python3 is installed', () => {
  requireCommand('python', 'python3', OWN_BINDING_LANGUAGES.python.test.aptPackages);
});

corpusTests({
  language: 'python',
  roundTripNote: '(python3 -O)',
  runCases,
  perRevision: (revision) => {
    test(`python ${revision}: the tagged unions are matched exhaustively`, () => {
      const dir = packageDir(loadModel(revision));
      const r = python([join(HERE, 'match_check.py'), dir, pythonPackageName(revision)], dir);
      assert.is(r.status, 0, r.stderr);
      assert.match(r.stdout, /ContentBlock: 5 variants/);
      assert.match(r.stdout, /JSONRPCMessage: 4 variants/);
    });

    test(`python ${revision}: to_json and encode refuse what the decoder refuses; an explicit null is written back`, () => {
      const dir = packageDir(loadModel(revision));
      const r = python([join(HERE, 'encode.py'), dir, pythonPackageName(revision)], dir);
      assert.is(r.status, 0, r.stderr);
      assert.equal(r.stdout.trimEnd().split('\n'), [
        'refused content: expected array, got null',
        'refused content[0].annotations.priority: must be <= 1',
        'ok {"error": {"code": -32000, "data": null, "message": "failed"}, "id": 1, "jsonrpc": "2.0"}',
        'ok {"text": "a", "type": "text"}',
      ]);
    });
  },
});

test('python: the exhaustive match fails on a binding with one more ContentBlock variant', () => {
  const dir = packageDir(modelWithExtraVariant('draft'), 'draft-extra-variant');
  const r = python([join(HERE, 'match_check.py'), dir, pythonPackageName('draft')], dir);
  assert.is(r.status, 1, `match_check.py passed on the extra variant:\n${r.stdout}${r.stderr}`);
  assert.match(r.stderr, /ContentBlock: variant VideoContent is not handled/);
});

issueCasesTest("python: the issue's cases are refused under -O, naming the member", runCases);

test('python: pyproject.toml names the revision, parses with tomllib, and the package imports', () => {
  for (const revision of REVISIONS) {
    const dir = packageDir(loadModel(revision));
    const pkg = pythonPackageName(revision);
    const r = python(
      [
        '-c',
        `import json, sys, tomllib; sys.path.insert(0, '.'); import ${pkg} as m; p = tomllib.load(open('pyproject.toml', 'rb')); print(json.dumps([p['project']['name'], p['tool']['setuptools']['packages'], m.REVISION, m.PROTOCOL_VERSION, m.ERROR_CODES['METHOD_NOT_FOUND'], m.CLIENT_REQUESTS['tools/call'].result_type, sorted(m.SERVER_REQUESTS)[:1]]))`,
      ],
      dir,
    );
    assert.is(r.status, 0, r.stderr);
    const model = loadModel(revision);
    const first = [...model.requests.filter((x) => x.direction === 'serverToClient').map((x) => x.method)].sort()[0];
    assert.equal(JSON.parse(r.stdout), [
      pkg.replace(/_/g, '-'),
      [pkg],
      revision,
      model.protocolVersion,
      -32601,
      'CallToolResult',
      [first],
    ]);
  }
});

stdioClientTests({
  language: 'python',
  client: (revision) => {
    const dir = packageDir(loadModel(revision));
    const r = python([join(HERE, 'client.py'), dir, pythonPackageName(revision), ...SERVE_STDIO, revision], dir);
    assert.is(r.status, 0, r.stderr);
    return JSON.parse(r.stdout);
  },
  namesResultTypes: true,
});

// ---- static checks by mypy --strict (python/mypy.ts: one run per package checks the package and
// python/match_static.py against it; 2026-07-28 too; the match is refused on one more variant) ----

const MYPY_REVISIONS = [...REVISIONS, '2026-07-28'];

test('mypy is installed', () => {
  requireCommand('python', 'mypy', OWN_BINDING_LANGUAGES.python.test.aptPackages);
});

for (const revision of MYPY_REVISIONS) {
  test(`python ${revision}: the package type-checks under mypy --strict`, () => {
    const pkg = pythonPackageName(revision);
    const run = mypyCheck(packageDir(loadModel(revision)), pkg);
    assert.equal(errorsIn(run, `${pkg}/__init__.py`), [], run.output.slice(0, 3000));
  });

  test(`python ${revision}: the tagged unions are matched exhaustively (mypy, assert_never)`, () => {
    const pkg = pythonPackageName(revision);
    const run = mypyCheck(packageDir(loadModel(revision)), pkg);
    assert.equal(errorsIn(run, matchFile(pkg)), [], run.output.slice(0, 3000));
    assert.is(run.status, 0, run.output.slice(0, 3000));
  });
}

test('python: mypy refuses the static exhaustive match on a binding with one more ContentBlock variant', () => {
  const pkg = pythonPackageName('draft');
  const run = mypyCheck(packageDir(modelWithExtraVariant('draft'), 'draft-extra-variant'), pkg);
  assert.is(run.status, 1, `mypy passed on the extra variant:\n${run.output}`);
  assert.equal(errorsIn(run, `${pkg}/__init__.py`), [], 'the package itself still type-checks');
  const errors = errorsIn(run, matchFile(pkg));
  assert.ok(errors.length > 0, run.output);
  for (const e of errors)
    assert.match(e, /Argument 1 to "assert_never" has incompatible type "(VideoContent|Literal\['video'\])"/, e);
  assert.ok(
    errors.some((e) => e.includes('"VideoContent"')),
    errors.join('\n'),
  );
  // Only the matches over ContentBlock miss it: SamplingMessageContentBlock and the JSON-RPC kinds are unchanged.
  const source = readFileSync(join(HERE, 'match_static.py'), 'utf8').split('\n');
  const owners = errors.map((e) => {
    const line = Number(/:(\d+):/.exec(e)![1]);
    return source
      .slice(0, line)
      .reverse()
      .find((l) => l.startsWith('def '))!;
  });
  assert.equal([...new Set(owners)].sort(), [
    'def content_block(block: t.ContentBlock) -> str:',
    'def content_tag(block: t.ContentBlock) -> str:',
  ]);
});

test('python: NaN and Infinity (which json.loads reads, JSON has none) are refused where a number is declared', () => {
  const dir = packageDir(loadModel('draft'));
  const pkg = pythonPackageName('draft');
  const r = python(
    [
      '-c',
      `import json, sys; sys.path.insert(0, '.'); import ${pkg} as m
out = []
for text in ['{"type":"text","text":"a","annotations":{"priority":NaN}}', '{"type":"text","text":"a","annotations":{"priority":Infinity}}', '{"type":"text","text":"a","annotations":{"priority":0.5}}']:
    try:
        m.decode("TextContent", json.loads(text)); out.append("ok")
    except m.DecodeError as e:
        out.append(str(e))
print(json.dumps(out))`,
    ],
    dir,
  );
  assert.is(r.status, 0, r.stderr);
  const [nan, inf, ok] = JSON.parse(r.stdout) as string[];
  assert.match(nan!, /annotations\.priority: must be a finite number/);
  assert.match(inf!, /annotations\.priority: must be a finite number/);
  assert.is(ok, 'ok');
});

test.run();
