/**
 * `mcpgen check`: the drift check for projects that commit generated code. Regenerates into a
 * temporary folder with the options generate would take and compares it with `--out`, file by
 * file, printing the first differing lines of each changed file.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { firstLineDiff } from '../../generator/diff.js';
import { type Command, type Context, EXIT, type Io } from '../command.js';
import { extensionModels } from '../extensions.js';
import { GENERATION_CONFIG, GENERATION_FLAGS, generationOptions, loadGenerate, modelOf } from '../generation.js';
import { OutputError, UsageError } from '../inputs.js';
import { checkWipe, foreignFiles, isGeneratedFolder, isLink, listTree, writeTree } from '../output.js';

export const check: Command = {
  name: 'check',
  summary: 'regenerates in a temporary folder and compares it with the generated code in --out',
  usage: [
    'check [--out DIR] [--rev <id>|all] [--spec-dir DIR | --unpinned DIR] [--target <langs>|all]',
    '      [--runtime-import <specifier>] [--validators compact|ajv] [--ext <extensions>|all]',
  ],
  description: [
    'Regenerates into a temporary folder, with the flags and config generate would take, and compares',
    'it with DIR (default generated): lists the files added, removed or changed (with their first',
    'differing lines) and exits 1 when any differ. Give it the options the committed output was made',
    'with (the same --target, --runtime-import, --validators and --ext, or the same config). Files',
    'that differ only in line endings (CRLF) are named so, with the .gitattributes line that keeps',
    'them LF; a file mcpgen did not write is named foreign (generate refuses to replace its folder),',
    'and a revision folder mcpgen wrote that no checked revision covers is named stale.',
  ],
  flags: GENERATION_FLAGS,
  config: GENERATION_CONFIG,
  examples: ['check', 'check --out src/mcp --rev 2025-11-25', 'check --target go,python --ext apps'],
  exitCodes: [
    [0, 'every file matches a fresh generation'],
    [1, 'some file was added, removed or changed (each is listed)'],
    [2, 'usage error: a bad flag or value, an unknown revision'],
    [3, 'input error: missing or mismatched inputs, an unreadable schema'],
  ],
  run,
};

async function run(args: string[], io: Io, ctx: Context): Promise<number> {
  const project = ctx.project();
  const { targets, out, outArg, outLabel, emit, inputs, extensions: names } = generationOptions(check, args, project);
  const extensions = await extensionModels(names, project);
  const tmp = mkdtempSync(join(tmpdir(), 'mcpgen-check-'));
  let differ = 0;
  let same = 0;
  /** Files that differ only in their line endings (CRLF where mcpgen writes LF). */
  let lineEndings = 0;
  /** Why `generate` would refuse to write a revision folder (its own words), per folder. */
  const refusals: string[] = [];
  try {
    for (const r of inputs) {
      const model = await modelOf(r);
      const { generate } = await loadGenerate();
      writeTree(join(tmp, model.revision), await generate(model, { ...emit, targets, extensions }));
      const fresh = join(tmp, model.revision);
      const current = join(out, model.revision);
      const freshFiles = listTree(fresh);
      const currentFiles = listTree(current);
      const shown = (f: string) => join(outArg, model.revision, f);
      // the advice must be what generate does: ask its own check whether it would write here
      let foreign: ReadonlySet<string> = new Set();
      try {
        checkWipe(outLabel, current, inputs);
      } catch (e) {
        if (!(e instanceof UsageError || e instanceof OutputError)) throw e;
        refusals.push(e.message);
        if (existsSync(current) && statSync(current).isDirectory())
          foreign = new Set(isGeneratedFolder(current) ? foreignFiles(current) : currentFiles.map(slashed));
      }
      for (const f of [...new Set([...freshFiles, ...currentFiles])].sort()) {
        if (!currentFiles.includes(f)) {
          io.out(`added    ${shown(f)} (generated, missing from ${outArg})`);
          differ++;
        } else if (!freshFiles.includes(f)) {
          io.out(
            foreign.has(slashed(f))
              ? `foreign  ${shown(f)} (not written by mcpgen: generate refuses to replace the folder while it holds it)`
              : `removed  ${shown(f)} (in ${outArg}, no longer generated)`,
          );
          differ++;
        } else {
          const was = readFileSync(join(current, f), 'utf8');
          const now = readFileSync(join(fresh, f), 'utf8');
          if (was === now) {
            same++;
            continue;
          }
          differ++;
          if (was.includes('\r\n') && was.replace(/\r\n/g, '\n') === now) {
            io.out(`changed  ${shown(f)}: line endings only (CRLF; mcpgen writes LF)`);
            lineEndings++;
            continue;
          }
          io.out(`changed  ${shown(f)}`);
          io.out(`--- ${shown(f)}`);
          io.out('+++ (regenerated)');
          for (const l of firstLineDiff(was, now)) io.out(l);
        }
      }
    }
    // revision folders mcpgen wrote that no revision of this check covers: left over, or checked elsewhere
    const covered = new Set(inputs.map((r) => r.revision));
    for (const name of existsSync(out) && statSync(out).isDirectory() ? readdirSync(out).sort() : []) {
      const dir = join(out, name);
      if (covered.has(name) || isLink(dir) || !statSync(dir).isDirectory() || !isGeneratedFolder(dir)) continue;
      io.out(
        `stale    ${join(outArg, name)}/ (a revision folder mcpgen wrote, not among the revisions checked: delete it if it is no longer used, or check it with --rev)`,
      );
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  if (differ) {
    if (lineEndings)
      io.out(
        `${lineEndings} file(s) differ only in line endings: mcpgen writes LF, and a checkout converted them to CRLF (git's core.autocrlf); keep them LF with this line in .gitattributes: ${slashed(outArg)}/** text eol=lf`,
      );
    const advice = refusals.length
      ? `generate would refuse to write them: ${refusals.join('; ')}`
      : 'run mcpgen generate';
    io.out(`check failed: ${differ} file(s) differ from a fresh generation of ${inputs.length} revision(s); ${advice}`);
    return EXIT.failed;
  }
  io.out(`check ok: ${same} file(s) of ${inputs.length} revision(s) match a fresh generation`);
  return EXIT.ok;
}

/** A relative path with `/` separators (as foreignFiles and .gitattributes write them). */
const slashed = (p: string): string => p.split(sep).join('/');
