/**
 * Shared pieces of the generator's acceptance tests: where the project and the upstream spec
 * live, the pinned revisions, running the CLI as a real process, temporary folders, and
 * type-checking generated files with the TypeScript compiler API.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { ingest } from '../../generator/ingest.js';
import type { ProtocolModel } from '../../generator/model.js';
import { loadPins, resolvePinned } from '../../schema/resolve.js';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** The upstream spec checkout (`MCP_SPEC_DIR`, else ../shared/mcp-spec beside the project). */
export const SPEC_DIR = resolve(ROOT, process.env.MCP_SPEC_DIR ?? '../shared/mcp-spec');
export const PINNED: string[] = Object.keys(loadPins().revisions);
const BIN = join(ROOT, 'bin', 'mcpgen.js');

/** The model of a pinned revision, ingested from SPEC_DIR (hashes verified). */
export function pinnedModel(revision: string): ProtocolModel {
  const r = resolvePinned(revision, { specDir: SPEC_DIR });
  const f = r.files;
  return ingest({ revision, schemaJson: f['schema.json'], schemaTs: f['schema.ts'], pinned: true, commit: r.commit });
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `mcpgen <args>` as a child process (`bin`: the entry script, default the project's).
 * `env` entries replace the parent's; an entry set to undefined removes the variable (e.g.
 * MCP_SPEC_DIR).
 */
export function cli(
  args: string[],
  env: Record<string, string | undefined> = {},
  cwd = ROOT,
  bin = BIN,
): Promise<CliResult> {
  const merged: NodeJS.ProcessEnv = { ...process.env };
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) delete merged[k];
    else merged[k] = v;
  }
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd, env: merged, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.on('error', fail);
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

/** A fresh temporary folder; `cleanup` removes it. */
export function tempDir(prefix = 'mcpgen-test-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * A temporary output folder laid out like the project (`<tmp>/generated/<rev>/` with
 * `<tmp>/runtime` linked to the project's runtime and `<tmp>/node_modules` to its dependencies,
 * which hold `@mcpgen/runtime`, the runtime workspace), so generated imports of
 * `@mcpgen/runtime/codegen/v1` (or `../../runtime/codegen/v1.js` with `--runtime-import`), and
 * the runtime's own imports, resolve exactly as they do in the project.
 */
export function tempOutput(): { out: string; cleanup: () => void } {
  const t = tempDir('mcpgen-out-');
  symlinkSync(join(ROOT, 'runtime'), join(t.dir, 'runtime'), 'dir');
  symlinkSync(join(ROOT, 'node_modules'), join(t.dir, 'node_modules'), 'dir');
  writeFileSync(join(t.dir, 'package.json'), '{ "type": "module" }\n');
  return { out: join(t.dir, 'generated'), cleanup: t.cleanup };
}

/** Every file below `dir`, as paths relative to it, in code-unit order. */
export function listFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else out.push(relative(dir, p).split('\\').join('/'));
    }
  };
  walk(dir);
  return out.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** The project's compiler options (tsconfig.json), for checking files outside its `include`. */
export function projectOptions(): ts.CompilerOptions {
  const cfg = ts.readConfigFile(join(ROOT, 'tsconfig.json'), (p) => ts.sys.readFile(p));
  const parsed = ts.parseJsonConfigFileContent(cfg.config, ts.sys, ROOT);
  const { rootDir: _rootDir, ...options } = parsed.options;
  return { ...options, noEmit: true, typeRoots: [join(ROOT, 'node_modules', '@types')] };
}

export interface Diagnostic {
  file: string;
  line: number;
  /** The source line the diagnostic points at. */
  text: string;
  message: string;
}

/** Type-checks `files` (with `options`, default the project's) and returns every diagnostic. */
export function typecheck(
  files: string[],
  options: ts.CompilerOptions = projectOptions(),
  host?: ts.CompilerHost,
): Diagnostic[] {
  const program = ts.createProgram({ rootNames: files, options, host });
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const pos = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start) : undefined;
    return {
      file: d.file?.fileName ?? '(program)',
      line: pos ? pos.line + 1 : 0,
      text: d.file && pos ? d.file.text.split('\n')[pos.line] : '',
      message: ts.flattenDiagnosticMessageText(d.messageText, '\n'),
    };
  });
}

/** Diagnostics as readable text for assertion messages. */
export const showDiagnostics = (ds: Diagnostic[], max = 20): string =>
  ds
    .slice(0, max)
    .map((d) => `${d.file}:${d.line}: ${d.message.split('\n').slice(0, 6).join('\n    ')}\n    > ${d.text.trim()}`)
    .join('\n') + (ds.length > max ? `\n… ${ds.length - max} more` : '');
