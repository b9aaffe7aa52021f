/**
 * `mcpgen pack`: the installable npm package of a revision, as a tarball (../pack/build.ts builds it;
 * loaded only by this command, with the TypeScript compiler it needs).
 */
import type { Command, Context, Io } from '../command.js';
import { parseNoArguments } from '../generation.js';

export const pack: Command = {
  name: 'pack',
  summary: 'builds the npm package of a revision as a tarball',
  usage: ['pack --rev <id>|all|DIR [--out DIR] [--spec-dir DIR | --unpinned DIR]'],
  description: [
    'Builds the npm package of a revision (@mcpgen/mcp-<rev>, version <mcpgen version>+<rev>): its',
    'generated code compiled to JavaScript with declarations, on the runtime package @mcpgen/runtime (a',
    "peer dependency, ^<mcpgen version>; no runtime copy), entry points . and the revision's rows of",
    'the export table (./errors, ./features, ./stdio, ./memory; handshake: ./http, ./http/legacy-sse,',
    './tasks; stateless: ./http/stateless, ./dual-era, ./tasks, ./input-required, ./subscriptions,',
    './cache); writes <name>-<version>.tgz into --out. Prints a line per revision and step (ingest,',
    'generate, entries, compile, tarball) as it ends.',
  ],
  flags: [
    {
      name: 'rev',
      value: '<id>|all|DIR',
      default: "the config's revisions",
      meaning: 'revisions to pack: pinned ids (comma-separated), all, or a folder holding schema.json + schema.ts',
    },
    { name: 'out', value: 'DIR', default: '.', meaning: 'the folder the tarballs are written into' },
    {
      name: 'spec-dir',
      value: 'DIR',
      default: "the config's inputs.specDir, else $MCP_SPEC_DIR, else the cache",
      meaning: 'a folder shaped like the upstream repository holding the pinned inputs',
    },
    {
      name: 'unpinned',
      value: 'DIR',
      meaning: "pack from any folder holding schema.json + schema.ts (id: the folder's name, or --rev)",
    },
  ],
  config: ['revisions', 'inputs.specDir', 'inputs.cacheDir', 'inputs.lock'],
  examples: ['pack --rev 2025-11-25', 'pack --rev all --out dist/packages'],
  exitCodes: [
    [0, 'every tarball was written'],
    [1, 'a package did not compile (the errors are printed)'],
    [2, 'usage error: no revision, an unknown revision, a bad flag'],
    [3, 'input error: missing or mismatched inputs; an --out that cannot be written'],
  ],
  async run(args: string[], io: Io, ctx: Context): Promise<number> {
    const { values: v } = parseNoArguments(pack, args);
    const { packRevisions } = await import('../pack/build.js');
    return packRevisions(
      {
        rev: v.rev as string | undefined,
        out: (v.out as string | undefined) ?? '.',
        'spec-dir': v['spec-dir'] as string | undefined,
        unpinned: v.unpinned as string | undefined,
      },
      io,
      ctx.project(),
    );
  },
};
