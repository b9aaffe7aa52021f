/**
 * Kotlin bindings (generator/emit/kotlin), built by the Kotlin compiler the generated
 * build.gradle.kts names (2.1.21, with the kotlinx.serialization plugin; ./kotlin-toolchain.ts
 * fetches it from Maven Central, pinned) on Debian's JDK, both revisions and the test program in
 * one compiler run: every example decodes and re-encodes to equal JSON; every input of the
 * differential test gets the schema's verdict; every schema-derived mutation is refused with a
 * DecodeException naming the mutated path; serve's answers decode through the method map as the
 * result they are; Json.decodeFromString and encodeToString read and write a server-everything
 * tools/list through the generated serializers; the encoder refuses what the decoder refuses.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { OWN_BINDING_LANGUAGES } from '../../../generator/emit/bindings/index.js';
import {
  KOTLINX_SERIALIZATION_VERSION,
  KOTLIN_VERSION,
  emitKotlin,
  kotlinPackageName,
  kotlinProjectName,
} from '../../../generator/emit/kotlin/bindings.js';
import { everythingTranscript } from './differential.js';
import { type KotlinToolchain, kotlinToolchain } from './kotlin-toolchain.js';
import { REVISIONS, loadModel, requireCommand, writeTemp, type Case, type MethodCase, type Result } from './own.js';
import { corpusTests, issueCasesTest } from './own-suite.js';

const HERE = fileURLToPath(new URL('./kotlin/', import.meta.url));

const revisionId = (revision: string) => `mcp${revision.replace(/[^A-Za-z0-9]/g, '').toLowerCase()}`;

function run(args: string[], cwd: string) {
  const r = spawnSync(args[0], args.slice(1), {
    cwd,
    encoding: 'utf8',
    timeout: 1_200_000,
    maxBuffer: 256 * 1024 * 1024,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

let toolchain: KotlinToolchain | undefined;
let built: string | undefined;
let buildError: string | undefined;
/** Both revisions' packages and the test program (one per revision), compiled once per test run. */
async function build(): Promise<string> {
  if (built) return built;
  assert.ok(buildError === undefined, buildError);
  toolchain ??= await kotlinToolchain();
  const files = new Map<string, string>();
  for (const revision of REVISIONS) {
    for (const [path, text] of emitKotlin(loadModel(revision))) files.set(`${revision}/${path}`, text);
    // Features.kt is written against 2025-11-25 (its own test); RoundTrip.kt against both
    const programs = revision === '2025-11-25' ? ['RoundTrip.kt', 'Features.kt'] : ['RoundTrip.kt'];
    for (const program of programs)
      files.set(
        `${revision}/test/${program}`,
        readFileSync(join(HERE, program), 'utf8')
          .replace(/\bmcpbinding\b/g, kotlinPackageName(revision))
          .replace(/\bREVISION_ID\b/g, revisionId(revision)),
      );
  }
  const dir = writeTemp('kotlin', files);
  const sources: string[] = [];
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name));
      else if (e.name.endsWith('.kt')) sources.push(join(d, e.name));
    }
  };
  walk(dir);
  const r = run(
    [
      'java',
      '-cp',
      toolchain.compiler.join(':'),
      'org.jetbrains.kotlin.cli.jvm.K2JVMCompiler',
      '-no-stdlib',
      '-no-reflect',
      '-Werror',
      `-Xplugin=${toolchain.plugin}`,
      '-jvm-target',
      '17',
      '-cp',
      toolchain.libraries.join(':'),
      '-d',
      'classes',
      ...sources,
    ],
    dir,
  );
  if (r.status !== 0) buildError = `kotlinc failed:\n${(r.stdout + r.stderr).slice(0, 4000)}`;
  assert.ok(buildError === undefined, buildError);
  built = dir;
  return dir;
}

async function runCases(revision: string, cases: Array<Case | MethodCase>): Promise<Result[]> {
  const dir = await build();
  mkdirSync(join(dir, 'run'), { recursive: true });
  const input = join(dir, 'run', `${revision}-cases.json`);
  const output = join(dir, 'run', `${revision}-results.json`);
  writeFileSync(input, JSON.stringify(cases));
  const r = run(
    [
      'java',
      '-cp',
      ['classes', ...toolchain!.libraries].join(':'),
      `mcptest.${revisionId(revision)}.RoundTripKt`,
      input,
      output,
    ],
    dir,
  );
  assert.is(r.status, 0, `RoundTrip failed:\n${r.stderr.slice(0, 3000)}`);
  return JSON.parse(readFileSync(output, 'utf8')) as Result[];
}

test('java is installed (the Kotlin compiler and the programs run on it)', () => {
  requireCommand('kotlin', 'java', OWN_BINDING_LANGUAGES.kotlin.test.aptPackages);
});

corpusTests({ language: 'kotlin', runCases });

issueCasesTest("kotlin: the issue's cases are refused with a DecodeException naming the member", runCases);

test('kotlin: Json.decodeFromString and encodeToString go through the validating decoder and the checked encoder; the encoder refuses what the decoder refuses', async () => {
  const lines = await everythingTranscript();
  const toolsList = lines.find((l) => (JSON.parse(l) as { id?: number }).id === 2)!;
  const dir = await build();
  writeFileSync(join(dir, 'run-tools.json'), toolsList);
  const r = run(
    [
      'java',
      '-cp',
      ['classes', ...toolchain!.libraries].join(':'),
      `mcptest.${revisionId('2025-11-25')}.FeaturesKt`,
      join(dir, 'run-tools.json'),
    ],
    dir,
  );
  assert.is(r.status, 0, r.stderr.slice(0, 3000));
  const out = JSON.parse(r.stdout) as Record<string, unknown>;
  const result = (JSON.parse(toolsList) as { result: { tools: Array<{ name: string }> } }).result;
  assert.equal(
    out.tools,
    result.tools.map((t) => t.name),
  );
  assert.equal(JSON.parse(out.written as string), result);
  assert.is(out.readRefusal, 'tools[0].inputSchema.type: expected "object", got "array"');
  assert.equal(out.encodeRefusals, [
    'content[0].annotations.priority: must be <= 1',
    'level: expected one of "alert", "critical", "debug", "emergency", "error", "info", "notice", "warning", got "verbose"',
  ]);
  assert.equal(out.explicitNull, { code: -32000, message: 'failed', data: null });
});

test('kotlin: build.gradle.kts names Kotlin, the serialization plugin and kotlinx-serialization-json; the package is the revision', () => {
  for (const revision of REVISIONS) {
    const files = emitKotlin(loadModel(revision));
    const gradle = files.get('bindings/kotlin/build.gradle.kts')!;
    assert.match(gradle, `kotlin("jvm") version "${KOTLIN_VERSION}"`);
    assert.match(gradle, `kotlin("plugin.serialization") version "${KOTLIN_VERSION}"`);
    assert.match(gradle, `org.jetbrains.kotlinx:kotlinx-serialization-json:${KOTLINX_SERIALIZATION_VERSION}`);
    assert.match(files.get('bindings/kotlin/settings.gradle.kts')!, kotlinProjectName(revision));
    const dir = `bindings/kotlin/src/main/kotlin/${kotlinPackageName(revision).replace(/\./g, '/')}`;
    const mcp = files.get(`${dir}/Mcp.kt`)!;
    assert.match(mcp, `package ${kotlinPackageName(revision)}`);
    assert.match(mcp, `"${loadModel(revision).protocolVersion}"`);
  }
});

test.run();
