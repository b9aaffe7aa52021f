/**
 * Rust bindings (generator/emit/rust/bindings.ts), built offline by cargo against the serde and
 * serde_json crates Debian ships in /usr/share/cargo/registry: every example of both
 * revisions decodes and re-encodes to equal JSON; every schema-derived mutation is refused
 * with a DecodeError naming the mutated path; the unions are enums matched without a wildcard
 * (rust/match.rs; a binding with one more variant does not compile, E0004); a stdio client
 * (rust/client, feature handshake or stateless) talks to `mcpgen serve --stdio` of 2025-11-25
 * and draft. One cargo target folder serves the whole run.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { OWN_BINDING_LANGUAGES } from '../../../generator/emit/bindings/index.js';
import { emitRust, rustCrateName } from '../../../generator/emit/rust/bindings.js';
import type { ProtocolModel } from '../../../generator/model.js';
import { scratchDir } from './harness.js';
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

const HERE = fileURLToPath(new URL('./rust/', import.meta.url));
const REGISTRY = '/usr/share/cargo/registry';

function cargo(args: string[], cwd: string) {
  const r = spawnSync('cargo', [...args, '--offline', '--quiet'], {
    cwd,
    env: { ...process.env, CARGO_TARGET_DIR: scratchDir('rust-own-target') },
    encoding: 'utf8',
    timeout: 600_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A crate holding the binding of `model` (as dependency `mcp`) and the test programs. */
function testCrate(model: ProtocolModel, key: string, bins: string[]): string {
  const files = emitRust(model);
  const pkg = rustCrateName(model.revision).replace(/_/g, '-');
  const bin = (name: string, path: string) => `[[bin]]\nname = "${name}"\npath = "${path}"\n`;
  const paths: Record<string, string> = {
    roundtrip: 'cmd/roundtrip.rs',
    match: 'cmd/match.rs',
    client: 'cmd/client/main.rs',
  };
  files.set(
    'Cargo.toml',
    `[package]\nname = "mcptest-${key}"\nversion = "0.0.0"\nedition = "2021"\npublish = false\n\n[features]\nhandshake = []\nstateless = []\n\n${bins.map((b) => bin(`${b}-${key}`, paths[b])).join('\n')}\n[dependencies]\nmcp = { path = "bindings/rust", package = "${pkg}" }\nserde = "1"\nserde_json = "1"\n`,
  );
  files.set(
    '.cargo/config.toml',
    `[source.crates-io]\nreplace-with = "debian"\n\n[source.debian]\ndirectory = "${REGISTRY}"\n\n[net]\noffline = true\n`,
  );
  const dir = writeTemp(`rust-${key}`, files);
  cpSync(HERE, join(dir, 'cmd'), { recursive: true });
  return dir;
}

const built = new Map<string, string>();
function buildRevision(revision: string): string {
  let dir = built.get(revision);
  if (dir) return dir;
  const model = loadModel(revision);
  const key = revision.replace(/[^A-Za-z0-9]/g, '');
  dir = testCrate(model, key, ['roundtrip', 'match', 'client']);
  const feature = model.lifecycle === 'handshake' ? 'handshake' : 'stateless';
  const r = cargo(['build', '--features', feature], dir);
  assert.is(r.status, 0, `cargo build failed:\n${r.stderr.slice(0, 4000)}`);
  built.set(revision, dir);
  return dir;
}

/** Binaries are named `<program>-<revision key>`: one target folder serves every crate. */
const binary = (name: string, revision: string) =>
  join(scratchDir('rust-own-target'), 'debug', `${name}-${revision.replace(/[^A-Za-z0-9]/g, '')}`);

function runCases(revision: string, cases: Array<Case | MethodCase>): Result[] {
  const dir = buildRevision(revision);
  writeFileSync(join(dir, 'cases.json'), JSON.stringify(cases));
  const r = spawnSync(binary('roundtrip', revision), ['cases.json', 'results.json'], {
    cwd: dir,
    encoding: 'utf8',
    timeout: 120_000,
  });
  assert.is(r.status, 0, `roundtrip failed:\n${r.stderr.slice(0, 3000)}`);
  return JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')) as Result[];
}

test('cargo and the serde crates are installed', () => {
  requireCommand('rust', 'cargo', OWN_BINDING_LANGUAGES.rust.test.aptPackages);
  const crates = existsSync(REGISTRY) ? readdirSync(REGISTRY) : [];
  for (const crate of ['serde', 'serde_json'])
    assert.ok(
      crates.some((c) => c.startsWith(`${crate}-1.`)),
      `${crate} is not in ${REGISTRY} (scripts/ci-toolchains.sh)`,
    );
});

corpusTests({
  language: 'rust',
  runCases,
  perRevision: (revision) => {
    test(`rust ${revision}: the unions are matched exhaustively, without a wildcard; encode refuses what the decoder refuses`, () => {
      const dir = buildRevision(revision);
      const r = spawnSync(binary('match', revision), [], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
      assert.is(r.status, 0, r.stderr);
      assert.match(r.stdout, /ContentBlock: 5 variants/);
    });
  },
});

test('rust: a match missing a variant does not compile (binding with one more ContentBlock variant)', () => {
  const dir = testCrate(modelWithExtraVariant('draft'), 'extravariant', ['match']);
  const r = cargo(['build'], dir);
  assert.is.not(r.status, 0, 'match.rs built against a binding with an extra variant');
  assert.match(r.stderr, /E0004/);
  assert.match(r.stderr, /ContentBlock::VideoContent\(_\)` not covered/);
});

issueCasesTest("rust: the issue's cases are refused with a DecodeError naming the member", runCases);

test('rust: Cargo.toml names the revision; constants and method maps', () => {
  for (const revision of REVISIONS) {
    const model = loadModel(revision);
    const files = emitRust(model);
    const toml = files.get('bindings/rust/Cargo.toml')!;
    assert.match(toml, new RegExp(`\\nname = "${rustCrateName(revision).replace(/_/g, '-')}"\\n`));
    assert.match(toml, new RegExp(`\\n\\[lib\\]\\nname = "${rustCrateName(revision)}"\\n`));
    const lib = files.get('bindings/rust/src/lib.rs')!;
    assert.match(lib, new RegExp(`pub const PROTOCOL_VERSION: &str = "${model.protocolVersion}";`));
    assert.match(lib, /pub const METHOD_NOT_FOUND: i64 = -32601;/);
    assert.match(
      lib,
      /method: "tools\/call",\n\s+direction: "clientToServer",\n\s+request_type: "CallToolRequest",\n\s+result_type: "CallToolResult",/,
    );
  }
});

function client(revision: string) {
  const dir = buildRevision(revision);
  const r = spawnSync(binary('client', revision), [...SERVE_STDIO, revision], {
    cwd: dir,
    encoding: 'utf8',
    timeout: 120_000,
  });
  assert.is(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

stdioClientTests({ language: 'rust', client, namesResultTypes: false });

test.run();
