/**
 * mcpgen CLI: finds the command (./commands/, one file each), answers `--help` / `-h` / `help` and
 * `--version` itself, and turns what a command throws into its message and exit code
 * (./command.ts `EXIT`): 2 for a usage problem (unknown command or flag, with the nearest known one;
 * a bad config), 3 for missing or mismatched inputs and refusals of the system. A command's usage
 * is `mcpgen <command> --help` (./help.ts), from the same record its parser reads.
 */
import { IngestError } from '../generator/ingest-error.js';
import { MCPGEN_VERSION } from '../generator/emit/common.js';
import { PinError } from '../schema/resolve.js';
import { type Command, EXIT, type Io } from './command.js';
import { didYouMean, nearest } from './nearest.js';
import { call } from './commands/call.js';
import { check } from './commands/check.js';
import { diff } from './commands/diff.js';
import { generate } from './commands/generate.js';
import { list } from './commands/list.js';
import { pack } from './commands/pack.js';
import { pin } from './commands/pin.js';
import { pull } from './commands/pull.js';
import { serve } from './commands/serve.js';
import { tools } from './commands/tools.js';
import { init } from './commands/init.js';
import { ConfigError, type Project, loadProject, takeConfigFlag } from './config.js';
import { commandHelp, overviewHelp } from './help.js';
import { OutputError, UsageError } from './inputs.js';
import { redactText } from './redact.js';
import { ServiceUnavailableError } from './serve/redis.js';

export { EXIT, type Io } from './command.js';

/** Every command, in the order `mcpgen help` lists them. */
export const COMMANDS: readonly Command[] = [pin, generate, list, pull, diff, check, serve, call, tools, pack, init];

const stdio: Io = { out: (l) => process.stdout.write(`${l}\n`), err: (l) => process.stderr.write(`${l}\n`) };

/** The flags mcpgen takes before (or instead of) a command. */
const GLOBAL_FLAGS = ['--help', '-h', '--version', '-v'];

/** The command named `name`, or a usage error naming the nearest known one (or global flag, for `-…`). */
function commandNamed(name: string): Command {
  const command = COMMANDS.find((c) => c.name === name);
  if (command) return command;
  const names = COMMANDS.map((c) => c.name);
  if (name.startsWith('-'))
    throw new UsageError(
      `unknown flag ${name}${didYouMean(name, GLOBAL_FLAGS)} (before a command: ${GLOBAL_FLAGS.join(', ')}; commands: ${names.join(', ')})`,
    );
  const near = nearest(name, names);
  throw new UsageError(
    `unknown command "${name}"${near ? `; did you mean ${near}?` : ''} (commands: ${names.join(', ')})`,
  );
}

/** Whether a command's arguments ask for its help: `--help` or `-h` before any `--`. */
function asksForHelp(args: string[]): boolean {
  const end = args.indexOf('--');
  return (end < 0 ? args : args.slice(0, end)).some((a) => a === '--help' || a === '-h');
}

export async function main(argv: string[], io: Io = stdio): Promise<number> {
  const [cmd, ...rest] = argv;
  if (!cmd) {
    // no command is a usage error: the usage goes where errors go, so that `mcpgen > file` shows it
    io.err(overviewHelp(COMMANDS));
    return EXIT.usage;
  }
  if (cmd === '--version' || cmd === '-v') {
    io.out(`mcpgen ${MCPGEN_VERSION}`);
    return EXIT.ok;
  }
  try {
    if (cmd === '--help' || cmd === '-h' || cmd === 'help') {
      if (rest.length > 1) throw new UsageError(`help takes one command, not ${rest.join(' ')}`);
      io.out(rest.length ? commandHelp(commandNamed(rest[0])) : overviewHelp(COMMANDS));
      return EXIT.ok;
    }
    const command = commandNamed(cmd);
    if (asksForHelp(rest)) {
      io.out(commandHelp(command));
      return EXIT.ok;
    }
    const { args, config } = command.config.length ? takeConfigFlag(rest) : { args: rest, config: undefined };
    let project: Project | undefined;
    return await command.run(args, io, {
      project: () => (project ??= loadProject(config, undefined, { lockMayBeAbsent: cmd === 'pin' })),
      cli: main,
    });
  } catch (e) {
    return failure(e, cmd, io);
  }
}

/** What a command's error says (every URL in it redacted: ./redact.ts) and its exit code; an error that is no refusal of input or system is rethrown. */
function failure(e: unknown, cmd: string, io: Io): number {
  const known = COMMANDS.some((c) => c.name === cmd);
  if (e instanceof ConfigError) {
    io.err(`mcpgen ${cmd}: ${redactText(e.message)}`);
    return EXIT.usage;
  }
  if (e instanceof UsageError) {
    io.err(`mcpgen ${cmd}: ${redactText(e.message)}\n(see mcpgen ${known ? `${cmd} ` : ''}--help)`);
    return EXIT.usage;
  }
  if (
    e instanceof PinError ||
    e instanceof IngestError ||
    e instanceof ServiceUnavailableError ||
    e instanceof OutputError
  ) {
    io.err(`mcpgen ${cmd}: ${redactText(e.message)}`);
    return EXIT.input;
  }
  // a file-system or network refusal (EISDIR, ENOTDIR, EEXIST, EADDRINUSE, EACCES…): say it, no stack
  if (
    e instanceof Error &&
    typeof (e as NodeJS.ErrnoException).code === 'string' &&
    /^E[A-Z]+$/.test((e as NodeJS.ErrnoException).code!)
  ) {
    io.err(`mcpgen ${cmd}: ${redactText(e.message)}`);
    return EXIT.input;
  }
  throw e;
}
