import { pull as pullInputs } from '../../schema/resolve.js';
import { type Command, type Context, EXIT, type Io } from '../command.js';
import { configuredRevisions } from '../config.js';
import { extensionNames, pullExtensionInputs } from '../extensions.js';
import { parseNoArguments } from '../generation.js';
import { checkBaseUrl, checkPinned } from '../inputs.js';

export const pull: Command = {
  name: 'pull',
  summary: 'downloads the pinned inputs into the cache and verifies them',
  usage: ['pull [--rev <id>|all] [--base-url URL-with-{path}] [--ext <extensions>|all]'],
  description: [
    "Downloads the pinned schema.json and schema.ts of each revision (each at its pin's commit) into",
    'the user cache and verifies their sha256 and size; a file that differs is refused and nothing is',
    "written. --base-url points at a mirror: {path} in it is replaced by the file's path",
    '(schema/<rev>/schema.json), else the path is appended; a template may also hold {repository}',
    'and {commit}. --ext pulls extensions (their npm tarball, its integrity checked); --ext alone',
    'pulls the extensions only.',
  ],
  flags: [
    {
      name: 'rev',
      value: '<id>|all',
      default: "the config's revisions, else all pinned",
      meaning: 'the revisions to pull (comma-separated ids, or all)',
    },
    {
      name: 'base-url',
      value: 'URL',
      default: "the config's inputs.baseUrl, else raw.githubusercontent.com",
      meaning: 'an http(s) mirror of the upstream repository, or a template with {path}',
    },
    {
      name: 'ext',
      value: '<extensions>|all',
      default: "the config's extensions",
      meaning: 'MCP extensions whose pinned files to pull too (apps)',
    },
  ],
  config: ['revisions', 'extensions', 'inputs.cacheDir', 'inputs.baseUrl', 'inputs.lock'],
  examples: ['pull', 'pull --rev 2025-11-25', 'pull --ext apps', 'pull --base-url https://mirror.example/mcp/{path}'],
  exitCodes: [
    [0, 'every file was downloaded and verified'],
    [2, 'usage error: an unknown revision, a bad --base-url'],
    [3, 'a file could not be downloaded, or does not match its pin'],
  ],
  run,
};

async function run(args: string[], io: Io, ctx: Context): Promise<number> {
  const { values: v } = parseNoArguments(pull, args);
  const project = ctx.project();
  const pins = project.pins;
  const exts = extensionNames(v.ext as string | undefined, project);
  // `pull --ext x` alone pulls the extension only
  if (v.ext !== undefined && v.rev === undefined) {
    await pullExtensionInputs(exts, project, io);
    return EXIT.ok;
  }
  const rev = (v.rev as string | undefined) ?? configuredRevisions(project);
  const revs = !rev || rev === 'all' ? Object.keys(pins.revisions) : rev.split(',');
  checkPinned('--rev', revs, pins);
  const baseUrl = checkBaseUrl('--base-url', v['base-url'] as string | undefined) ?? project.baseUrl;
  const written = await pullInputs(revs, { baseUrl, cacheDir: project.cacheDir, log: io.out }, pins);
  io.out(`pulled ${written.length} file(s); ${revs.length} revision(s) verified`);
  await pullExtensionInputs(exts, project, io);
  return EXIT.ok;
}
