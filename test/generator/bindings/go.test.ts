/**
 * Go bindings (generator/emit/go/bindings.ts), built by Debian's go (1.19) with the standard library
 * only: every example of both revisions decodes and re-encodes to equal JSON; every
 * schema-derived mutation is refused with a *DecodeError naming the mutated path; the tagged
 * unions are matched exhaustively through their visitors (go/match: a visitor missing a variant
 * does not compile, shown on a binding with one more variant) and by a type switch; a stdio
 * client (go/client, -tags handshake or stateless) talks to `mcpgen serve --stdio` of
 * 2025-11-25 and draft.
 */
import { cpSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { OWN_BINDING_LANGUAGES } from '../../../generator/emit/bindings/index.js';
import { emitGo, goModulePath, goPackageName } from '../../../generator/emit/go/bindings.js';
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
import { SERVE_STDIO, corpusTests, issueCasesTest, stdioClientTests } from './own-suite.js';

const HERE = fileURLToPath(new URL('./go/', import.meta.url));
const GO_ENV = { ...process.env, GOFLAGS: '-mod=mod -buildvcs=false', GOPROXY: 'off', GO111MODULE: 'on' };

function go(args: string[], cwd: string) {
  const r = spawnSync('go', args, {
    cwd,
    env: GO_ENV,
    encoding: 'utf8',
    timeout: 300_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Copies the test programs into `dir/cmd/`, importing the binding by its module path. */
function copyPrograms(dir: string, modulePath: string): void {
  cpSync(HERE, join(dir, 'cmd'), { recursive: true });
  const walk = (d: string): void => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (p.endsWith('.go'))
        writeFileSync(p, readFileSync(p, 'utf8').replace(/"mcpbinding"/g, JSON.stringify(modulePath)));
    }
  };
  walk(join(dir, 'cmd'));
}

/** A module holding the binding of `model` and the test programs. */
function testModule(model: ProtocolModel, key: string): string {
  const files = emitGo(model);
  const modulePath = goModulePath(model.revision);
  files.set(
    'go.mod',
    `module mcptest\n\ngo 1.19\n\nrequire ${modulePath} v0.0.0\n\nreplace ${modulePath} => ./bindings/go\n`,
  );
  const dir = writeTemp(`go-${key}`, files);
  copyPrograms(dir, modulePath);
  return dir;
}

const built = new Map<string, string>();
/** The binding of a revision with its programs built (once per test run). */
function buildRevision(revision: string): string {
  let dir = built.get(revision);
  if (dir) return dir;
  const model = loadModel(revision);
  dir = testModule(model, revision);
  const tag = model.lifecycle === 'handshake' ? 'handshake' : 'stateless';
  for (const args of [
    ['vet', '-tags', tag, './...'],
    ['build', '-o', 'bin/', './cmd/roundtrip', './cmd/match', './cmd/encode'],
    ['build', '-tags', tag, '-o', 'bin/client', './cmd/client'],
  ]) {
    const r = go(args, dir);
    assert.is(r.status, 0, `go ${args.join(' ')} failed:\n${r.stderr.slice(0, 4000)}`);
  }
  built.set(revision, dir);
  return dir;
}

function runCases(revision: string, cases: Array<Case | MethodCase>): Result[] {
  const dir = buildRevision(revision);
  writeFileSync(join(dir, 'cases.json'), JSON.stringify(cases));
  const r = spawnSync(join(dir, 'bin', 'roundtrip'), ['cases.json', 'results.json'], {
    cwd: dir,
    encoding: 'utf8',
    timeout: 120_000,
  });
  assert.is(r.status, 0, `roundtrip failed:\n${r.stderr.slice(0, 3000)}`);
  return JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')) as Result[];
}

/** What ./go/encode prints (the same in both revisions; a path is relative to the value that refused: the Annotations). */
const GO_ENCODE_LINES = [
  'refused content: expected array, got null',
  'refused id: expected integer or string, got null',
  'refused priority: must be <= 1',
  'refused content[0]: expected object, got null',
  'ok {"id":7,"jsonrpc":"2.0","method":"ping"}',
  'ok {"text":"a","type":"text"}',
];

test('go is installed', () => {
  requireCommand('go', 'go', OWN_BINDING_LANGUAGES.go.test.aptPackages);
});

corpusTests({
  language: 'go',
  runCases,
  perRevision: (revision) => {
    test(`go ${revision}: the tagged unions are matched exhaustively (visitors, type switch)`, () => {
      const dir = buildRevision(revision);
      const r = spawnSync(join(dir, 'bin', 'match'), [], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
      assert.is(r.status, 0, r.stderr);
      assert.match(r.stdout, /ContentBlock: 5 variants/);
    });

    test(`go ${revision}: MarshalJSON refuses what the decoder refuses (nil required members, values outside their type)`, () => {
      const dir = buildRevision(revision);
      const r = spawnSync(join(dir, 'bin', 'encode'), [], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
      assert.is(r.status, 0, r.stderr);
      assert.equal(r.stdout.trimEnd().split('\n'), GO_ENCODE_LINES);
    });
  },
});

test('go: a visitor missing a variant does not compile (binding with one more ContentBlock variant)', () => {
  const dir = testModule(modelWithExtraVariant('draft'), 'draft-extra-variant');
  const r = go(['build', '-o', 'bin/', './cmd/match'], dir);
  assert.is.not(r.status, 0, 'the match program built against a binding with an extra variant');
  assert.match(
    r.stderr,
    /contentBlock does not implement \S*ContentBlockVisitor\[string\] \(missing (method )?VideoContent( method)?\)/,
  );
});

issueCasesTest("go: the issue's cases are refused with a *DecodeError naming the member", runCases);

test('go: go.mod names the revision; package, constants and method maps', () => {
  for (const revision of REVISIONS) {
    const model = loadModel(revision);
    const files = emitGo(model);
    assert.match(
      files.get('bindings/go/go.mod')!,
      new RegExp(`\\nmodule ${goModulePath(revision).replace(/\./g, '\\.')}\\n\\ngo 1\\.19\\n$`),
    );
    const methods = files.get('bindings/go/methods.go')!;
    assert.match(methods, new RegExp(`\\npackage ${goPackageName(revision)}\\n`));
    assert.match(methods, new RegExp(`ProtocolVersion = "${model.protocolVersion}"`));
    assert.match(methods, /CodeMethodNotFound = -32601/);
    assert.match(
      methods,
      /"tools\/call": \{\n\t\tMethod: "tools\/call",\n\t\tDirection: "clientToServer",\n\t\tRequestType: "CallToolRequest",\n\t\tResultType: "CallToolResult",/,
    );
  }
});

function client(revision: string) {
  const dir = buildRevision(revision);
  const r = spawnSync(join(dir, 'bin', 'client'), [...SERVE_STDIO, revision], {
    cwd: dir,
    encoding: 'utf8',
    timeout: 120_000,
  });
  assert.is(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

stdioClientTests({ language: 'go', client, namesResultTypes: true });

test.run();
