// Guide: bindings (docs/guide/bindings.md). `mcpgen generate --target python,go,rust` into a
// temporary folder, then the smallest program per language against the binding: Python runs,
// Go and Rust build and run (Rust offline against Debian's serde crates; its first build takes ~20–30 s,
// see the page). A toolchain that is not installed is reported and its step left out, except
// under CI (scripts/ci-toolchains.sh installs all three), where that is a failure.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}
const run = (command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) =>
  new Promise<Run>((done) => {
    execFile(
      command,
      args,
      { cwd: options.cwd, env: { ...process.env, ...options.env }, maxBuffer: 16 << 20 },
      (error, stdout, stderr) =>
        done({ code: error ? (typeof error.code === 'number' ? error.code : 127) : 0, stdout, stderr }),
    );
  });
const installed = async (command: string) => {
  const found = (await run('sh', ['-c', `command -v ${command}`])).code === 0;
  if (!found && process.env.CI) throw new Error(`${command} is not installed (scripts/ci-toolchains.sh installs it)`);
  if (!found) console.error(`${command} is not installed: its step is left out`);
  return found;
};

const tmp = mkdtempSync(join(tmpdir(), 'mcpgen-guide-bindings-'));
try {
  // generate the TypeScript and the three bindings of one revision
  const out = join(tmp, 'mcp');
  const args = ['generate', '--rev', 'draft', '--target', 'python,go,rust', '--out', out];
  const generate = await run('npx', ['mcpgen', ...args]);
  assert.equal(generate.code, 0, generate.stderr);
  for (const lang of ['python', 'go', 'rust'])
    assert.match(generate.stdout, new RegExp(`^draft: bindings ${lang} \\d+ms \\(\\d+ files\\)$`, 'm'));
  const bindings = join(out, 'draft', 'bindings');
  assert.deepEqual(readdirSync(bindings).sort(), ['go', 'python', 'rust']);

  const steps: Promise<void>[] = [];

  // Python: the package mcp_types_draft, standard library only
  if (await installed('python3'))
    steps.push(
      (async () => {
        writeFileSync(
          join(tmp, 'main.py'),
          [
            'import json',
            'from mcp_types_draft import CallToolResult, DecodeError, TextContent, PROTOCOL_VERSION, decode, encode',
            '',
            'result = decode("CallToolResult", {"content": [{"type": "text", "text": "42"}], "resultType": "complete"})',
            'assert isinstance(result, CallToolResult) and isinstance(result.content[0], TextContent)',
            'try:',
            '    decode("CallToolResult", {"content": [{"type": "text"}], "resultType": "complete"})',
            '    refused = None',
            'except DecodeError as e:',
            '    refused = {"path": e.path, "message": e.message}',
            'print(json.dumps({"version": PROTOCOL_VERSION, "text": result.content[0].text, "encoded": encode(result), "refused": refused}))',
            '',
          ].join('\n'),
        );
        const py = await run('python3', ['-O', 'main.py'], { cwd: tmp, env: { PYTHONPATH: join(bindings, 'python') } });
        assert.equal(py.code, 0, py.stderr);
        assert.deepEqual(JSON.parse(py.stdout), {
          version: '2026-07-28',
          text: '42',
          encoded: { content: [{ type: 'text', text: '42' }], resultType: 'complete' },
          refused: { path: 'content[0].text', message: 'required' },
        });
      })(),
    );

  // Go: the module mcpgen.dev/bindings/mcpdraft, through a replace in the app's go.mod
  if (await installed('go'))
    steps.push(
      (async () => {
        const app = join(tmp, 'go-app');
        mkdirSync(app);
        writeFileSync(
          join(app, 'go.mod'),
          `module example.com/app\n\ngo 1.19\n\nrequire mcpgen.dev/bindings/mcpdraft v0.0.0\n\nreplace mcpgen.dev/bindings/mcpdraft => ${join(bindings, 'go')}\n`,
        );
        writeFileSync(
          join(app, 'main.go'),
          `package main

import (
	"errors"
	"fmt"

	mcp "mcpgen.dev/bindings/mcpdraft"
)

func main() {
	v, err := mcp.Decode("CallToolResult", []byte(\`{"content":[{"type":"text","text":"42"}],"resultType":"complete"}\`))
	if err != nil {
		panic(err)
	}
	text := v.(*mcp.CallToolResult).Content[0].(*mcp.TextContent).Text
	_, err = mcp.Decode("CallToolResult", []byte(\`{"content":[{"type":"text"}],"resultType":"complete"}\`))
	var de *mcp.DecodeError
	if !errors.As(err, &de) {
		panic("not refused")
	}
	fmt.Printf("%s %s %s: %s\\n", mcp.ProtocolVersion, text, de.Path, de.Message)
}
`,
        );
        const go = await run('go', ['run', '.'], { cwd: app, env: { GOFLAGS: '-mod=mod', GOPROXY: 'off' } });
        assert.equal(go.code, 0, go.stderr);
        assert.equal(go.stdout, '2026-07-28 42 content[0].text: required\n');
      })(),
    );

  // Rust: the crate mcp-types-draft as a path dependency, serde from Debian's registry offline
  if (await installed('cargo'))
    steps.push(
      (async () => {
        const app = join(tmp, 'rust-app');
        mkdirSync(join(app, 'src'), { recursive: true });
        mkdirSync(join(app, '.cargo'));
        writeFileSync(
          join(app, 'Cargo.toml'),
          `[package]\nname = "app"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\nmcp-types-draft = { path = ${JSON.stringify(join(bindings, 'rust'))} }\nserde_json = "1"\n`,
        );
        writeFileSync(
          join(app, '.cargo', 'config.toml'),
          '[source.crates-io]\nreplace-with = "debian"\n\n[source.debian]\ndirectory = "/usr/share/cargo/registry"\n\n[net]\noffline = true\n',
        );
        // the page's program (docs/guide/bindings.md), in a main that returns the decode error
        writeFileSync(
          join(app, 'src', 'main.rs'),
          `use mcp_types_draft::{decode_str, CallToolResult, ContentBlock};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let result: CallToolResult = decode_str(r#"{"content":[{"type":"text","text":"42"}],"resultType":"complete"}"#)?;
    if let ContentBlock::TextContent(t) = &result.content[0] { assert_eq!(t.text, "42"); }
    let refused = decode_str::<CallToolResult>(r#"{"content":[{"type":"text"}],"resultType":"complete"}"#).unwrap_err();
    assert_eq!((refused.path.as_str(), refused.message.as_str()), ("content[0].text", "required"));
    println!("{} {}: {}", mcp_types_draft::PROTOCOL_VERSION, refused.path, refused.message);
    Ok(())
}
`,
        );
        const cargo = await run('cargo', ['run', '--offline', '--quiet'], { cwd: app });
        assert.equal(cargo.code, 0, cargo.stderr);
        assert.equal(cargo.stdout, '2026-07-28 content[0].text: required\n');
      })(),
    );

  await Promise.all(steps);
} finally {
  rmSync(tmp, { recursive: true, force: true });
}

console.log('ok bindings');
