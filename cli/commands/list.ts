import { dirname } from 'node:path';
import { resolvePinned } from '../../schema/resolve.js';
import { type Command, type Context, EXIT, type Io } from '../command.js';
import { parseNoArguments } from '../generation.js';

export const list: Command = {
  name: 'list',
  summary: 'the pinned revisions and where their inputs were found',
  usage: ['list [--spec-dir DIR]'],
  description: [
    'Prints the upstream repository and commit of the pins, then one line per pinned revision: its',
    'id, where its inputs were found (--spec-dir, MCP_SPEC_DIR, the config, cache) and their folder,',
    'or missing / mismatch and why. Exits 3 when found inputs do not match their pins, or when no',
    'revision has inputs at all.',
  ],
  flags: [
    {
      name: 'spec-dir',
      value: 'DIR',
      default: "the config's inputs.specDir, else $MCP_SPEC_DIR, else the cache",
      meaning: 'a folder shaped like the upstream repository to look in first',
    },
  ],
  config: ['inputs.specDir', 'inputs.cacheDir', 'inputs.lock'],
  examples: ['list', 'list --spec-dir ../modelcontextprotocol'],
  exitCodes: [
    [0, 'some revision has inputs, and every input found matches its pin'],
    [2, 'usage error'],
    [3, 'no revision has inputs, or found inputs do not match their pins'],
  ],
  run,
};

/**
 * `mcpgen list`: each pinned revision with where its inputs were found (`--spec-dir`,
 * `MCP_SPEC_DIR`, `cache`), or `missing` / `mismatch` and why. Exits 3 when the found inputs of
 * some revision do not match their pins, or when no revision has inputs at all.
 */
function run(args: string[], io: Io, ctx: Context): number {
  const { values: v } = parseNoArguments(list, args);
  const project = ctx.project();
  const pins = project.pins;
  io.out(`upstream ${pins.upstream.repository} @ ${pins.upstream.commit}`);
  let found = 0;
  let mismatched = 0;
  for (const rev of Object.keys(pins.revisions)) {
    try {
      const r = resolvePinned(
        rev,
        { specDir: v['spec-dir'] as string | undefined, projectSpecDir: project.specDir, cacheDir: project.cacheDir },
        pins,
      );
      io.out(
        `${rev}\t${r.source}\t${dirname(r.files['schema.json'].path)}${pins.revisions[rev].lock ? `\t(${pins.revisions[rev].lock} @ ${r.commit})` : ''}`,
      );
      found++;
    } catch (e) {
      const message = (e as Error).message;
      const mismatch = / does not match the pin /.test(message);
      if (mismatch) mismatched++;
      io.out(`${rev}\t${mismatch ? 'mismatch' : 'missing'}\t${message}`);
    }
  }
  if (mismatched) {
    io.err(`mcpgen list: ${mismatched} revision(s) have inputs that do not match their pins`);
    return EXIT.input;
  }
  if (!found) {
    io.err(
      "mcpgen list: no revision has inputs: set MCP_SPEC_DIR, --spec-dir or the config's inputs.specDir to a folder shaped like the upstream repository, or run `mcpgen pull`",
    );
    return EXIT.input;
  }
  return EXIT.ok;
}
