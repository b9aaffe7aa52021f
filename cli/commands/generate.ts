/**
 * `mcpgen generate`: each revision's generated code into `<out>/<rev>/` (wiped and rewritten, only
 * where mcpgen wrote before: ../output.ts), with the bindings and SDKs of `--target` and the
 * extensions of `--ext`. Byte-identical for identical inputs, wherever it runs.
 */
import { join } from 'node:path';
import type { ResolvedRevision } from '../../schema/resolve.js';
import { type Command, type Context, EXIT, type Io } from '../command.js';
import { handledUpstream } from '../../generator/extension/model.js';
import { extensionModels } from '../extensions.js';
import {
  GENERATION_CONFIG,
  GENERATION_FLAGS,
  type GenerationOptions,
  followedNote,
  generationOptions,
  loadGenerate,
  modelOf,
  progressMs,
  splitWarnings,
} from '../generation.js';
import { prepareOutDir, removeMadeDirs } from '../inputs.js';
import { checkWipe, writeTree } from '../output.js';

export const generate: Command = {
  name: 'generate',
  summary: 'writes the generated code of each revision into <out>/<rev>/',
  usage: [
    'generate [--rev <id>|all] [--out DIR] [--spec-dir DIR | --unpinned DIR] [--target <langs>|all]',
    '         [--runtime-import <specifier>] [--validators compact|ajv] [--ext <extensions>|all]',
  ],
  description: [
    'Writes generated/<rev>/ for each revision: model.json, types.gen.ts, validators.gen.js (+ .d.ts),',
    'protocol.gen.ts, dispatch.gen.ts, client.gen.ts, server.gen.ts, index.ts, package.json; with',
    '--target, bindings/<lang>/ (python, go, rust, java, csharp, kotlin) and the SDKs (python-sdk,',
    "go-sdk); cpp and swift are withdrawn. Each revision's folder is wiped and rewritten (refused while it holds a",
    'file mcpgen did not write); output is byte-identical for identical inputs, whatever the folders',
    'of mcpgen, the inputs and the output (no machine path in any file). Generated code imports the',
    'runtime from --runtime-import (install @mcpgen/runtime for the default). A revision whose schemas',
    'use a keyword compact validators lack gets ajv (a warning names it). Prints a line per revision',
    '(and per --target language as it ends); a stage that takes over 10 s ($MCPGEN_PROGRESS_MS, in',
    'ms) is reported on stderr as `progress: <rev>: <stage> took <ms>ms`. Where schema.json says',
    'less than schema.ts (a narrower number type, a doc link that lost its separator, documented',
    'values widened to string), the generated code follows schema.ts; one `note:` line on stderr',
    'counts those places and model.json lists them ("warnings"); other warnings about the inputs',
    "are printed one per line. With --ext, the places where an extension's published inputs needed a",
    'rule of mcpgen (a local definition hoisted, a direction or result type they do not state) are',
    'one `note:` line per extension, listed in <rev>/<name>/model.json ("warnings").',
  ],
  flags: GENERATION_FLAGS,
  config: GENERATION_CONFIG,
  examples: [
    'generate',
    'generate --rev 2025-11-25,draft --out src/mcp',
    'generate --rev draft --target python,go --ext apps',
    'generate --unpinned ../modelcontextprotocol/schema/draft --rev draft-next',
  ],
  exitCodes: [
    [0, 'every revision was generated'],
    [2, 'usage error: a bad flag or value, an unknown revision, an --out folder mcpgen did not write'],
    [3, 'input error: missing or mismatched inputs, an unreadable schema; an --out that cannot be written'],
  ],
  run,
};

async function run(args: string[], io: Io, ctx: Context): Promise<number> {
  const t0 = performance.now();
  const project = ctx.project();
  const {
    targets,
    out,
    outArg,
    outLabel,
    emit,
    inputs,
    extensions: names,
  } = generationOptions(generate, args, project);
  const extensions = await extensionModels(names, project);
  for (const e of extensions)
    for (const w of e.warnings) if (!handledUpstream(w)) io.err(`warning: ${e.revision}: ${w}`);
  for (const r of inputs) checkWipe(outLabel, join(out, r.revision), inputs);
  const created = prepareOutDir(outLabel, out);
  try {
    return await generateInto(out, outLabel, inputs, { targets, emit, extensions, outArg }, io, t0);
  } catch (e) {
    // a run that failed before writing leaves no empty folder behind
    removeMadeDirs(out, created);
    throw e;
  }
}

async function generateInto(
  out: string,
  outLabel: string,
  inputs: ResolvedRevision[],
  {
    targets,
    emit,
    extensions,
    outArg,
  }: Pick<GenerationOptions, 'targets' | 'emit' | 'outArg'> & {
    extensions?: Awaited<ReturnType<typeof extensionModels>>;
  },
  io: Io,
  t0: number,
): Promise<number> {
  // a long stage (a schema of thousands of definitions) is said on stderr as it ends, and once a
  // revision has taken that long, each next stage as it begins; stdout stays as it is
  const slow = progressMs();
  const followed: Array<[string, number]> = [];
  for (const r of inputs) {
    const t1 = performance.now();
    const model = await modelOf(r);
    const ingest = performance.now() - t1;
    const steps: string[] = [`ingest ${ingest.toFixed(0)}ms`];
    if (ingest >= slow) io.err(`progress: ${model.revision}: ingest took ${ingest.toFixed(0)}ms`);
    // said first: they may explain why generate refuses the revision (mixed inputs); the places
    // where upstream's schema.json lost what schema.ts says are summed up in one line at the end
    const { followed: n, others } = splitWarnings(model);
    followed.push([model.revision, n]);
    for (const w of others) io.err(`warning: ${model.revision}: ${w}`);
    const { generate } = await loadGenerate();
    const files = await generate(model, {
      ...emit,
      targets,
      extensions,
      onStepStart: (s) => {
        const so = performance.now() - t1;
        if (so >= slow) io.err(`progress: ${model.revision}: ${s} (${so.toFixed(0)}ms in)`);
      },
      onStep: (s, ms) => {
        steps.push(`${s} ${ms.toFixed(0)}ms`);
        if (ms >= slow) io.err(`progress: ${model.revision}: ${s} took ${ms.toFixed(0)}ms`);
      },
      // the bindings step takes seconds per language: say each as it ends
      onTarget: (lang, n, ms) =>
        io.out(`${model.revision}: bindings ${lang} ${ms.toFixed(0)}ms (${n} ${n === 1 ? 'file' : 'files'})`),
      onWarning: (w) => io.err(`warning: ${model.revision}: ${w}`),
    });
    // looked at again just before the wipe: a file put there while earlier revisions were made is kept
    checkWipe(outLabel, join(out, model.revision), inputs);
    writeTree(join(out, model.revision), files);
    io.out(
      `${model.revision}: ${files.size} files (${steps.join(', ')}) from ${r.source}${r.pinned ? '' : ' (unpinned)'}`,
    );
  }
  const note = followedNote(followed, (rev) => join(outArg, rev, 'model.json'));
  if (note) io.err(note);
  const revs = inputs.map((r) => r.revision);
  for (const e of extensions ?? []) {
    const n = e.warnings.filter(handledUpstream).length;
    if (n)
      io.err(
        `note: ${e.revision}: its published inputs needed a rule of mcpgen in ${n} place${n === 1 ? '' : 's'} (local definitions hoisted, directions from generator/extension/overrides.ts, results typed as Result), applied; the list is in ${join(outArg, revs.length === 1 ? revs[0]! : '<rev>', e.extension.name, 'model.json')} ("warnings")`,
      );
  }
  io.out(`generated ${inputs.length} revision(s) into ${out} in ${(performance.now() - t0).toFixed(0)}ms`);
  return EXIT.ok;
}
