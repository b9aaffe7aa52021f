/**
 * Java bindings (generator/emit/java), built by Debian's javac (JDK 17) against Debian's Jackson
 * jars, both revisions and the test programs in one javac run: every example decodes and
 * re-encodes to equal JSON; every input of the differential test gets the schema's verdict;
 * every schema-derived mutation is refused with a DecodeException naming the mutated path;
 * serve's answers decode through the method map as the result they are; an ObjectMapper reads
 * and writes the messages through the generated (de)serializers; the encoder refuses what the
 * decoder refuses.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { OWN_BINDING_LANGUAGES } from '../../../generator/emit/bindings/index.js';
import { emitJava, javaArtifactId, javaPackageName } from '../../../generator/emit/java/bindings.js';
import { everythingTranscript } from './differential.js';
import { REVISIONS, loadModel, requireCommand, writeTemp, type Case, type MethodCase, type Result } from './own.js';
import { corpusTests, issueCasesTest } from './own-suite.js';
import { requireFile } from './harness.js';

const HERE = fileURLToPath(new URL('./java/', import.meta.url));
const JARS = ['jackson-databind', 'jackson-core', 'jackson-annotations'].map((n) => `/usr/share/java/${n}.jar`);

const revisionId = (revision: string) => `mcp${revision.replace(/[^A-Za-z0-9]/g, '').toLowerCase()}`;

function java(args: string[], cwd: string) {
  const r = spawnSync(args[0], args.slice(1), {
    cwd,
    encoding: 'utf8',
    timeout: 600_000,
    maxBuffer: 256 * 1024 * 1024,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

let built: string | undefined;
let buildError: string | undefined;
/** Both revisions' packages and the test programs (one per revision), compiled once per test run. */
function build(): string {
  if (built) return built;
  assert.ok(buildError === undefined, buildError);
  const files = new Map<string, string>();
  for (const revision of REVISIONS) {
    const pkg = javaPackageName(revision);
    for (const [path, text] of emitJava(loadModel(revision))) files.set(`${revision}/${path}`, text);
    // Features.java is written against 2025-11-25 (its own test); RoundTrip.java against both
    const programs = revision === '2025-11-25' ? ['RoundTrip.java', 'Features.java'] : ['RoundTrip.java'];
    for (const program of programs)
      files.set(
        `${revision}/test/${program}`,
        readFileSync(join(HERE, program), 'utf8')
          .replace(/\bmcpbinding\b/g, pkg)
          .replace(/\bREVISION_ID\b/g, revisionId(revision)),
      );
  }
  const dir = writeTemp('java', files);
  const sources: string[] = [];
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name));
      else if (e.name.endsWith('.java')) sources.push(join(d, e.name));
    }
  };
  walk(dir);
  writeFileSync(join(dir, 'sources.txt'), sources.join('\n'));
  const r = java(
    ['javac', '-Xlint:all', '-Werror', '-encoding', 'UTF-8', '-d', 'classes', '-cp', JARS.join(':'), '@sources.txt'],
    dir,
  );
  if (r.status !== 0) buildError = `javac failed:\n${(r.stdout + r.stderr).slice(0, 4000)}`;
  assert.ok(buildError === undefined, buildError);
  built = dir;
  return dir;
}

function runProgram(revision: string, program: string, args: string[]) {
  const dir = build();
  return java(
    ['java', '-cp', ['classes', ...JARS].join(':'), `mcptest.${revisionId(revision)}.${program}`, ...args],
    dir,
  );
}

function runCases(revision: string, cases: Array<Case | MethodCase>): Result[] {
  const dir = build();
  mkdirSync(join(dir, 'run'), { recursive: true });
  const input = join(dir, 'run', `${revision}-cases.json`);
  const output = join(dir, 'run', `${revision}-results.json`);
  writeFileSync(input, JSON.stringify(cases));
  const r = runProgram(revision, 'RoundTrip', [input, output]);
  assert.is(r.status, 0, `RoundTrip failed:\n${r.stderr.slice(0, 3000)}`);
  return JSON.parse(readFileSync(output, 'utf8')) as Result[];
}

test('javac, java and the Jackson jars are installed', () => {
  const packages = OWN_BINDING_LANGUAGES.java.test.aptPackages;
  requireCommand('java', 'javac', packages);
  requireCommand('java', 'java', packages);
  for (const jar of JARS) requireFile('java', jar, 'libjackson2-databind-java');
});

corpusTests({ language: 'java', runCases });

issueCasesTest("java: the issue's cases are refused with a DecodeException naming the member", runCases);

test('java: an ObjectMapper reads and writes messages through the generated (de)serializers; the encoder refuses what the decoder refuses', async () => {
  const lines = await everythingTranscript();
  const toolsList = lines.find((l) => (JSON.parse(l) as { id?: number }).id === 2)!;
  const dir = build();
  writeFileSync(join(dir, 'run-tools.json'), toolsList);
  const r = runProgram('2025-11-25', 'Features', [join(dir, 'run-tools.json')]);
  assert.is(r.status, 0, r.stderr.slice(0, 3000));
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

test('java: pom.xml names the artifact, Java 17 and the Jackson version; the package is the revision', () => {
  for (const revision of REVISIONS) {
    const files = emitJava(loadModel(revision));
    const pom = files.get('bindings/java/pom.xml')!;
    assert.match(pom, `<artifactId>${javaArtifactId(revision)}</artifactId>`);
    assert.match(pom, '<maven.compiler.release>17</maven.compiler.release>');
    assert.match(pom, /<artifactId>jackson-databind<\/artifactId>\n\s+<version>2\.14\.0<\/version>/);
    const dir = `bindings/java/src/main/java/${javaPackageName(revision).replace(/\./g, '/')}`;
    const mcp = files.get(`${dir}/Mcp.java`)!;
    assert.match(mcp, `package ${javaPackageName(revision)};`);
    assert.match(mcp, `PROTOCOL_VERSION = "${loadModel(revision).protocolVersion}"`);
    assert.match(mcp, 'public static final int METHOD_NOT_FOUND = -32601;');
  }
});

test.run();
