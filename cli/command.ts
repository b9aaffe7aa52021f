/**
 * What a command of the CLI is: its flags, usage, config keys, examples and exit codes in one
 * record ({@link Command}), which its parser ({@link parseCommand}), its help text and the CLI
 * reference (./help.ts, docs/cli.md) all read, so that they cannot drift apart. Each command lives
 * in its own file of ./commands/; ./main.ts dispatches to them.
 */
import { type ParseArgsConfig, parseArgs } from 'node:util';
import type { Project } from './config.js';
import { UsageError } from './inputs.js';
import { nearest } from './nearest.js';

/**
 * The exit codes every command shares: 0 ok; 1 the command ran and found a failure (a check or
 * diff that fails); 2 usage error (unknown command or flag, a flag without its value or with a bad
 * one, a flag of one value given twice, an unknown revision, a bad config: the command line and the config alike); 3 input error
 * (missing or mismatched schema inputs, unreadable schema: the message names the file and field)
 * or a refusal of the system (an output folder that cannot be written). `call` adds 4.
 */
export const EXIT = { ok: 0, failed: 1, usage: 2, input: 3 } as const;

/** Where a command writes: results on `out` (stdout), diagnostics on `err` (stderr); one line per call. */
export interface Io {
  out: (line: string) => void;
  err: (line: string) => void;
}

/** What a command may ask of its invocation: the project (config and lock), loaded on first use. */
export interface Context {
  project: () => Project;
  /** The CLI's entry (./main.ts `main`), for a command that runs another (init runs generate). */
  cli: (argv: string[], io: Io) => Promise<number>;
}

/** One flag of a command. */
export interface Flag {
  /** The name, without the dashes: `rev` for `--rev`. */
  readonly name: string;
  /** The placeholder of its value (`DIR`, `<id>|all`); none: a switch, which takes no value. */
  readonly value?: string;
  /** May be given more than once (each value kept). */
  readonly repeatable?: boolean;
  /** What applies when the flag is not given, in words (`generated`, `the config's revisions, else all`). */
  readonly default?: string;
  /** One line: what it does. */
  readonly meaning: string;
  /** The form of the command it belongs to, when the command has several (`<rev>`, `<extension>`). */
  readonly form?: string;
}

/** An exit code of a command and what it means there. */
export type ExitCode = readonly [code: number, meaning: string];

/** A command: what its help, its parser and the reference read, and what runs it. */
export interface Command {
  readonly name: string;
  /** One line, for the list of commands in `mcpgen help`. */
  readonly summary: string;
  /** Synopsis lines, each without the leading `mcpgen `. */
  readonly usage: readonly string[];
  /** What it does, as lines of prose (at most 100 columns each). */
  readonly description: readonly string[];
  /** Every flag its parser accepts (`--config` aside: see {@link Command.config}). */
  readonly flags: readonly Flag[];
  /** The keys of mcpgen.config.json it reads; a command that reads any takes `--config FILE`. */
  readonly config: readonly string[];
  /** Command lines, each without the leading `mcpgen `. */
  readonly examples: readonly string[];
  readonly exitCodes: readonly ExitCode[];
  run(args: string[], io: Io, ctx: Context): number | Promise<number>;
}

/** The `--config FILE` flag of the commands that read the project (taken before their own flags are parsed). */
export const CONFIG_FLAG: Flag = {
  name: 'config',
  value: 'FILE',
  default: 'mcpgen.config.json in the working folder, if there',
  meaning: 'the project config to read (its lock of pins beside it)',
};

/** Flags by name (a string, `true`, or an array for a `multiple` flag) and the positionals, as parseArgs gives them. */
export interface ParsedFlags {
  values: Record<string, string | boolean | Array<string | boolean> | undefined>;
  positionals: string[];
}

/**
 * Parses `args` with the flags of `command` (those of one form: `form`), strictly: an unknown
 * flag, a flag without its value or a value for a switch is a UsageError naming it (see
 * {@link parseFlags}). `--config` was taken before (./config.ts `takeConfigFlag`).
 */
export function parseCommand(command: Command, args: string[], form?: string): ParsedFlags {
  const flags = command.flags.filter((f) => form === undefined || f.form === undefined || f.form === form);
  const options: NonNullable<ParseArgsConfig['options']> = {};
  for (const f of flags)
    options[f.name] = {
      type: f.value === undefined ? 'boolean' : 'string',
      ...(f.repeatable ? { multiple: true } : {}),
    };
  return parseFlags(args, options, command.config.length ? ['--config'] : []);
}

/**
 * `node:util` parseArgs over `args`, strict, its errors turned into UsageError naming the flag:
 * `--out needs a value`, `unknown flag --revv; did you mean --rev? (flags: --rev, --out)`,
 * `--stdio takes no value`. `extraFlags` are flags taken before this parse (`--config`), listed
 * among the known ones. A string flag followed by a negative number (`--timeout -5`) takes it as
 * its value, as `--timeout=-5` does, so that the flag's own check can name it (parseArgs would
 * call it ambiguous); another value that starts with a dash is refused with the `--flag=<value>`
 * form to write it in. A flag given twice is refused (`--redis is given more than once; it takes
 * one value`, `--stdio is given more than once; it is a switch …`) unless it is `multiple` (a
 * repeatable flag: each value kept). A value flag given an empty (or blank) value is refused
 * (`--host needs a value; an empty one was given`).
 */
export function parseFlags(
  args: string[],
  options: NonNullable<ParseArgsConfig['options']>,
  extraFlags: string[] = [],
): ParsedFlags {
  const joined: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--') {
      joined.push(...args.slice(i));
      break;
    }
    const name = args[i].startsWith('--') ? args[i].slice(2) : undefined;
    const next = args[i + 1];
    if (
      name !== undefined &&
      Object.hasOwn(options, name) &&
      options[name].type === 'string' &&
      next !== undefined &&
      /^-\.?[0-9]/.test(next)
    ) {
      joined.push(`${args[i]}=${next}`);
      i++;
    } else joined.push(args[i]);
  }
  let parsed: ReturnType<typeof parseArgs> & { tokens?: Array<{ kind: string; name?: string }> };
  try {
    parsed = parseArgs({ args: joined, options, allowPositionals: true, strict: true, tokens: true });
  } catch (e) {
    const { code, message } = e as Error & { code?: string };
    const flag = /'(-{1,2}[^'\s<]+)/.exec(message)?.[1] ?? '';
    const known = [...Object.keys(options).map((o) => `--${o}`), ...extraFlags];
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
      const near = nearest(flag, known);
      throw new UsageError(
        `unknown flag ${flag}${near ? `; did you mean ${near}?` : ''} (flags: ${known.join(', ') || 'none'})`,
      );
    }
    if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
      if (/argument is ambiguous/.test(message)) {
        const value = args[args.indexOf(flag) + 1] ?? '-…';
        throw new UsageError(`${flag} needs a value; one that starts with "-" is written ${flag}=${value}`);
      }
      throw new UsageError(
        /argument missing/.test(message)
          ? `${flag} needs a value`
          : /does not take an argument/.test(message)
            ? `${flag} takes no value`
            : message,
      );
    }
    throw new UsageError(message);
  }
  // parseArgs keeps the last of a single-valued flag given twice: refused, naming it (the values
  // are not shown: one may hold a credential); a switch given twice too, as a slip of the same kind
  const seen = new Set<string>();
  for (const token of parsed.tokens ?? []) {
    if (token.kind !== 'option' || token.name === undefined || !Object.hasOwn(options, token.name)) continue;
    const option = options[token.name];
    // an empty value is no value: `--host ""` would bind every interface, `--http ""` a random
    // port, `--auth-scope ""` require no scope (an unset shell variable, silently taken)
    if (option.type === 'string' && (token as { value?: string }).value?.trim() === '')
      throw new UsageError(`--${token.name} needs a value; an empty one was given`);
    if (option.multiple) continue;
    if (seen.has(token.name))
      throw new UsageError(
        `--${token.name} is given more than once; ${option.type === 'string' ? 'it takes one value' : 'it is a switch (no value): give it once'}`,
      );
    seen.add(token.name);
  }
  return { values: parsed.values, positionals: parsed.positionals };
}
