/**
 * Go bindings (generator/emit/bindings/go), built by Debian's go (1.19) with the standard library
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
import { emitGo, goModulePath, goPackageName } from '../../../generator/emit/bindings/go/index.js';
import type { ProtocolModel } from '../../../generator/model.js';
import { ROOT } from '../support.js';
import {
  REVISIONS,
  assertRefused,
  assertRoundTrips,
  corpus,
  loadModel,
  modelWithExtraVariant,
  mutations,
  requireCommand,
  writeTemp,
  type Case,
  type Result,
} from './own.js';

const HERE = fileURLToPath(new URL('./go/', import.meta.url));
const GO_ENV = { ...process.env, GOFLAGS: '-mod=mod -buildvcs=false', GOPROXY: 'off', GO111MODULE: 'on' };

function go(args: string[], cwd: string) {
  const r = spawnSync('go', args, { cwd, env: GO_ENV, encoding: 'utf8', timeout: 300_000, maxBuffer: 64 * 1024 * 1024 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Copies the test programs into `dir/cmd/`, importing the binding by its module path. */
function copyPrograms(dir: string, modulePath: string): void {
  cpSync(HERE, join(dir, 'cmd'), { recursive: true });
  const walk = (d: string): void => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (p.endsWith('.go')) writeFileSync(p, readFileSync(p, 'utf8').replace(/"mcpbinding"/g, JSON.stringify(modulePath)));
    }
  };
  walk(join(dir, 'cmd'));
}

/** A module holding the binding of `model` and the test programs. */
function testModule(model: ProtocolModel, key: string): string {
  const files = emitGo(model);
  const modulePath = goModulePath(model.revision);
  files.set('go.mod', `module mcptest\n\ngo 1.19\n\nrequire ${modulePath} v0.0.0\n\nreplace ${modulePath} => ./bindings/go\n`);
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
    ['build', '-o', 'bin/', './cmd/roundtrip', './cmd/match'],
    ['build', '-tags', tag, '-o', 'bin/client', './cmd/client'],
  ]) {
    const r = go(args, dir);
    assert.is(r.status, 0, `go ${args.join(' ')} failed:\n${r.stderr.slice(0, 4000)}`);
  }
  built.set(revision, dir);
  return dir;
}

function runCases(revision: string, cases: Case[]): Result[] {
  const dir = buildRevision(revision);
  writeFileSync(join(dir, 'cases.json'), JSON.stringify(cases));
  const r = spawnSync(join(dir, 'bin', 'roundtrip'), ['cases.json', 'results.json'], { cwd: dir, encoding: 'utf8', timeout: 120_000 });
  assert.is(r.status, 0, `roundtrip failed:\n${r.stderr.slice(0, 3000)}`);
  return JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')) as Result[];
}

test('go is installed', () => {
  requireCommand('go', 'go', OWN_BINDING_LANGUAGES.go.test.aptPackages);
});

for (const revision of REVISIONS) {
  test(`go ${revision}: every example decodes and re-encodes to equal JSON`, async () => {
    const examples = await corpus(revision);
    assert.ok(examples.length >= (revision === 'draft' ? 80 : 40), `${revision}: only ${examples.length} examples`);
    assertRoundTrips('go', revision, examples, runCases(revision, examples));
  });

  test(`go ${revision}: schema-derived mutations are refused with the mutated path`, async () => {
    const list = mutations(loadModel(revision), await corpus(revision));
    assert.ok(list.length >= 300, `${revision}: only ${list.length} mutations`);
    assertRefused('go', revision, list, runCases(revision, list));
  });

  test(`go ${revision}: the tagged unions are matched exhaustively (visitors, type switch)`, () => {
    const dir = buildRevision(revision);
    const r = spawnSync(join(dir, 'bin', 'match'), [], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
    assert.is(r.status, 0, r.stderr);
    assert.match(r.stdout, /ContentBlock: 5 variants/);
  });
}

test('go: a visitor missing a variant does not compile (binding with one more ContentBlock variant)', () => {
  const dir = testModule(modelWithExtraVariant('draft'), 'draft-extra-variant');
  const r = go(['build', '-o', 'bin/', './cmd/match'], dir);
  assert.is.not(r.status, 0, 'the match program built against a binding with an extra variant');
  assert.match(r.stderr, /contentBlock does not implement \S*ContentBlockVisitor\[string\] \(missing (method )?VideoContent( method)?\)/);
});

test("go: the issue's cases are refused with a *DecodeError naming the member", () => {
  const r = runCases('2025-11-25', [
    { type: 'ContentBlock', data: { type: 'image' } },
    { type: 'TextContent', data: { type: 'text', text: 7 } },
    { type: 'CallToolResult', data: { content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }, { type: 'image', mimeType: 'image/png' }] } },
    { type: 'ContentBlock', data: { type: 'video', url: 'x' } },
    { type: 'JSONRPCMessage', data: { jsonrpc: '2.0', id: 1 } },
  ]);
  assert.equal(r, [
    { path: 'data', message: 'required' },
    { path: 'text', message: 'expected string, got integer' },
    { path: 'content[2].data', message: 'required' },
    { path: 'type', message: 'expected one of "text", "image", "audio", "resource_link", "resource", got "video"' },
    { path: '', message: 'not a JSON-RPC message (no method, result or error)' },
  ]);
});

test('go: go.mod names the revision; package, constants and method maps', () => {
  for (const revision of REVISIONS) {
    const model = loadModel(revision);
    const files = emitGo(model);
    assert.match(files.get('bindings/go/go.mod')!, new RegExp(`\\nmodule ${goModulePath(revision).replace(/\./g, '\\.')}\\n\\ngo 1\\.19\\n$`));
    const methods = files.get('bindings/go/methods.go')!;
    assert.match(methods, new RegExp(`\\npackage ${goPackageName(revision)}\\n`));
    assert.match(methods, new RegExp(`ProtocolVersion = "${model.protocolVersion}"`));
    assert.match(methods, /CodeMethodNotFound = -32601/);
    assert.match(methods, /"tools\/call": \{\n\t\tMethod: "tools\/call",\n\t\tDirection: "clientToServer",\n\t\tRequestType: "CallToolRequest",\n\t\tResultType: "CallToolResult",/);
  }
});

const SERVE = ['node', join(ROOT, 'bin', 'mcpgen.js'), 'serve', '--stdio', '--rev'];

function client(revision: string) {
  const dir = buildRevision(revision);
  const r = spawnSync(join(dir, 'bin', 'client'), [...SERVE, revision], { cwd: dir, encoding: 'utf8', timeout: 120_000 });
  assert.is(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

test('go: stdio client against serve --rev 2025-11-25 (initialize, tools/list, tools/call)', () => {
  const s = client('2025-11-25');
  assert.equal(s.initialize, { type: 'InitializeResult', protocolVersion: '2025-11-25', server: 'mcpgen-reference-server' });
  assert.is(s.tools.type, 'ListToolsResult');
  assert.ok(s.tools.names.includes('echo'), s.tools.names.join(','));
  assert.is(s.call.type, 'CallToolResult');
  assert.equal(s.call.blockTypes, ['TextContent']);
  assert.equal(s.call.content, [{ type: 'text', text: 'hello from go' }]);
});

test('go: stdio client against serve --rev draft (server/discover, per-request _meta)', () => {
  const s = client('draft');
  assert.is(s.discover.type, 'DiscoverResult');
  assert.ok(s.discover.versions.includes(loadModel('draft').protocolVersion), JSON.stringify(s.discover));
  assert.is(s.discover.resultType, 'complete');
  assert.is(s.discover.tools, true);
  assert.ok(s.tools.names.includes('echo'));
  assert.equal(s.call.content, [{ type: 'text', text: 'hello from go' }]);
});

test.run();
