/**
 * C# bindings (generator/emit/csharp), built by Debian's mono mcs (C# 7.2) against Debian's
 * Newtonsoft.Json and run by mono: every example decodes and re-encodes to equal JSON; every
 * input of the differential test gets the schema's verdict; every schema-derived mutation is
 * refused with a DecodeException naming the mutated path; serve's answers decode through the
 * method map as the result they are; JsonConvert reads and writes the messages through the
 * generated converter; the encoder refuses what the decoder refuses.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { OWN_BINDING_LANGUAGES } from '../../../generator/emit/bindings/index.js';
import { csharpNamespace, emitCSharp, NEWTONSOFT_VERSION } from '../../../generator/emit/csharp/bindings.js';
import { everythingTranscript } from './differential.js';
import { REVISIONS, loadModel, requireCommand, writeTemp, type Case, type MethodCase, type Result } from './own.js';
import { corpusTests, issueCasesTest } from './own-suite.js';
import { requireFile } from './harness.js';

const HERE = fileURLToPath(new URL('./csharp/', import.meta.url));
const NEWTONSOFT = '/usr/lib/cli/Newtonsoft.Json-5.0/Newtonsoft.Json.dll';

function run(args: string[], cwd: string) {
  const r = spawnSync(args[0], args.slice(1), {
    cwd,
    encoding: 'utf8',
    timeout: 600_000,
    maxBuffer: 256 * 1024 * 1024,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const built = new Map<string, string>();
const buildErrors = new Map<string, string>();
/** The bindings of a revision as a library and the test programs as executables beside it (once per test run). */
function build(revision: string): string {
  const done = built.get(revision);
  if (done) return done;
  assert.ok(!buildErrors.has(revision), buildErrors.get(revision));
  const files = emitCSharp(loadModel(revision));
  // Features.cs is written against 2025-11-25 (its own test); RoundTrip.cs against both
  const programs = revision === '2025-11-25' ? ['RoundTrip', 'Features'] : ['RoundTrip'];
  for (const p of programs)
    files.set(
      `${p}.cs`,
      readFileSync(join(HERE, `${p}.cs`), 'utf8').replace(/\bmcpbinding\b/g, csharpNamespace(revision)),
    );
  const dir = writeTemp(`csharp-${revision}`, files);
  const sources = [...files.keys()].filter((p) => p.startsWith('bindings/') && p.endsWith('.cs'));
  const steps = [
    ['mcs', '-nologo', '-warnaserror+', '-target:library', '-out:bindings.dll', `-r:${NEWTONSOFT}`, ...sources],
    ...programs.map((p) => [
      'mcs',
      '-nologo',
      '-warnaserror+',
      `-out:${p}.exe`,
      `-r:${NEWTONSOFT}`,
      '-r:bindings.dll',
      `${p}.cs`,
    ]),
  ];
  for (const step of steps) {
    const r = run(step, dir);
    if (r.status !== 0) {
      buildErrors.set(revision, `${step.slice(0, 5).join(' ')} failed:\n${(r.stdout + r.stderr).slice(0, 4000)}`);
      assert.ok(false, buildErrors.get(revision));
    }
  }
  built.set(revision, dir);
  return dir;
}

function runCases(revision: string, cases: Array<Case | MethodCase>): Result[] {
  const dir = build(revision);
  mkdirSync(join(dir, 'run'), { recursive: true });
  writeFileSync(join(dir, 'run', 'cases.json'), JSON.stringify(cases));
  const r = run(['mono', 'RoundTrip.exe', 'run/cases.json', 'run/results.json'], dir);
  assert.is(r.status, 0, `RoundTrip.exe failed:\n${(r.stdout + r.stderr).slice(0, 3000)}`);
  return JSON.parse(readFileSync(join(dir, 'run', 'results.json'), 'utf8')) as Result[];
}

test('mcs, mono and Newtonsoft.Json are installed', () => {
  const packages = OWN_BINDING_LANGUAGES.csharp.test.aptPackages;
  requireCommand('csharp', 'mcs', packages);
  requireCommand('csharp', 'mono', packages);
  requireFile('csharp', NEWTONSOFT, 'libnewtonsoft-json-cil-dev');
});

corpusTests({ language: 'csharp', runCases });

issueCasesTest("csharp: the issue's cases are refused with a DecodeException naming the member", runCases);

test('csharp: JsonConvert reads and writes messages through the generated converter; the encoder refuses what the decoder refuses', async () => {
  const lines = await everythingTranscript();
  const toolsList = lines.find((l) => (JSON.parse(l) as { id?: number }).id === 2)!;
  const dir = build('2025-11-25');
  writeFileSync(join(dir, 'run-tools.json'), toolsList);
  const r = run(['mono', 'Features.exe', 'run-tools.json'], dir);
  assert.is(r.status, 0, (r.stdout + r.stderr).slice(0, 3000));
  const out = JSON.parse(r.stdout) as Record<string, unknown>;
  const result = (JSON.parse(toolsList) as { result: { tools: Array<{ name: string }> } }).result;
  assert.equal(
    out.mapperTools,
    result.tools.map((t) => t.name),
  );
  assert.equal(JSON.parse(out.mapperWritten as string), result);
  assert.is(out.mapperRefusal, 'tools[0].inputSchema.type: expected "object", got "array"');
  assert.equal(out.encodeRefusals, [
    'content[0].text: required',
    'content[0].annotations.priority: must be <= 1',
    'level: expected one of "alert", "critical", "debug", "emergency", "error", "info", "notice", "warning", got "verbose"',
    'content[0]: expected object, got null',
  ]);
  assert.equal(JSON.parse(out.explicitNull as string), { code: -32000, message: 'failed', data: null });
});

test('csharp: the project file names the package, netstandard2.0 and Newtonsoft.Json; the namespace is the revision', () => {
  for (const revision of REVISIONS) {
    const files = emitCSharp(loadModel(revision));
    const ns = csharpNamespace(revision);
    const project = files.get(`bindings/csharp/${ns}.csproj`)!;
    assert.match(project, `<PackageId>${ns}</PackageId>`);
    assert.match(project, '<TargetFramework>netstandard2.0</TargetFramework>');
    assert.match(project, `<PackageReference Include="Newtonsoft.Json" Version="${NEWTONSOFT_VERSION}" />`);
    const mcp = files.get('bindings/csharp/Mcp.cs')!;
    assert.match(mcp, `namespace ${ns}\n`);
    assert.match(mcp, `ProtocolVersion = "${loadModel(revision).protocolVersion}"`);
    assert.match(mcp, 'public const int CodeMethodNotFound = -32601;');
  }
});

test.run();
