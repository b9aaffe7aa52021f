/**
 * The CLI's own words, all read from the command records (./command.ts): `mcpgen help` (the
 * overview), `mcpgen <command> --help` (a command's usage: synopsis, every flag with its value,
 * default and meaning, the config keys it reads, examples, exit codes) and docs/cli.md, the
 * reference `npm run docs:cli` writes (a test checks it is current).
 */
import { CONFIG_FLAG, type Command, type Flag } from './command.js';

const WIDTH = 100;

/** The top of `mcpgen help`. */
const TITLE = 'mcpgen — schema-first code generator for the Model Context Protocol';

/** What every project command shares, as `mcpgen help` says it. */
const PROJECT = [
  'Project: generate, list, pull, pin, diff, check and pack read mcpgen.config.json in the working',
  'folder (or --config FILE: revisions, out, targets, runtimeImport, validators, extensions,',
  'inputs.{specDir, cacheDir, lock, baseUrl}; flags win over it) and the lock of pins mcpgen.lock.json',
  'beside it (revisions pinned there replace the pins shipped with mcpgen). A bad config or lock',
  'exits 2 naming the file and the field.',
];

/** Where schema inputs come from, for every command that reads them. */
const INPUTS = [
  "Inputs: --spec-dir DIR (alone), else the config's inputs.specDir or $MCP_SPEC_DIR, then the cache",
  '(inputs.cacheDir, $MCPGEN_CACHE or ~/.cache/mcpgen): a spec folder without the pinned files gives',
  'way to the cache. --unpinned DIR generates (or packs) from any folder holding schema.json and',
  "schema.ts (revision id: the folder's name, or --rev); so does --rev DIR when DIR is a path (has a",
  'slash) or a folder that is not a pinned id. A schema.json that is not valid JSON Schema 2020-12 is',
  'an input error naming the file and the JSON pointer of the keyword.',
];

/** The exit codes of the CLI as a whole. */
export const EXIT_CODES = [
  'Exit codes: 0 ok · 1 a check failed · 2 usage error (a bad or unknown flag or value, a flag of',
  'one value given twice, an unknown revision, a bad config or lock: alike on the command line and',
  'in the config) · 3 input error (missing or mismatched inputs) or an --out that cannot be written',
  '· 4 call: the tool reported an error (a tools/call result with isError: true)',
];

/** A synopsis line as shown: `mcpgen ` before a command, as many spaces before a continuation line. */
const synopsis = (u: string): string => (u.startsWith(' ') ? `       ${u}` : `mcpgen ${u}`);

/** The flags a command's help lists: its own, then `--config` where it reads the project. */
export function helpFlags(command: Command): Flag[] {
  return [...command.flags, ...(command.config.length ? [CONFIG_FLAG] : [])];
}

/** `--rev <id>|all`: a flag as written with its value. */
export function flagSyntax(f: Flag): string {
  return `--${f.name}${f.value === undefined ? '' : ` ${f.value}`}${f.repeatable ? ' …' : ''}`;
}

/** What a flag line says after the flag: its meaning, the form it belongs to, its default. */
function flagText(f: Flag): string {
  const form = f.form ? ` (${f.form} form)` : '';
  return `${f.meaning}${form}${f.default === undefined ? '' : ` (default: ${f.default})`}`;
}

/** `text` cut into lines of at most `width` columns at spaces (a longer word stays whole). */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}

/** Two columns: each `left` padded to the widest (at most `max`), `right` wrapped beside it. */
function columns(rows: Array<[string, string]>, indent = '  ', max = 34): string[] {
  const left = Math.min(max, Math.max(...rows.map(([l]) => l.length)));
  const out: string[] = [];
  for (const [l, r] of rows) {
    const hang = indent + ' '.repeat(left + 2);
    const body = wrap(r, WIDTH - hang.length);
    if (l.length > left) out.push(`${indent}${l}`, ...body.map((b) => hang + b));
    else out.push(`${indent}${l.padEnd(left + 2)}${body[0] ?? ''}`, ...body.slice(1).map((b) => hang + b));
  }
  return out;
}

/** `mcpgen <command> --help`: the whole usage of one command. */
export function commandHelp(command: Command): string {
  const flags: Array<[string, string]> = helpFlags(command).map((f) => [flagSyntax(f), flagText(f)]);
  flags.push(['-h, --help', 'this help']);
  const lines = [
    `mcpgen ${command.name}: ${command.summary}`,
    '',
    'Usage:',
    ...command.usage.map((u) => `  ${synopsis(u)}`),
    '',
    ...command.description.map((l) => (l ? `  ${l}` : '')),
    '',
    'Flags:',
    ...columns(flags),
  ];
  lines.push(
    '',
    ...wrap(
      command.config.length
        ? `Config (mcpgen.config.json; a flag wins over it): ${command.config.join(', ')}`
        : 'Config: none (reads no mcpgen.config.json)',
      WIDTH,
    ),
  );
  lines.push('', 'Examples:', ...command.examples.map((e) => `  mcpgen ${e}`));
  lines.push('', 'Exit codes:', ...columns(command.exitCodes.map(([code, meaning]) => [String(code), meaning])));
  return lines.join('\n');
}

/** `mcpgen help`: every command's synopsis and summary, what the project commands share, the exit codes. */
export function overviewHelp(commands: readonly Command[]): string {
  return [
    TITLE,
    '',
    'Usage:',
    ...commands.flatMap((c) => c.usage.map((u) => `  ${synopsis(u)}`)),
    '  mcpgen <command> --help | -h     mcpgen help <command>',
    '  mcpgen --help | -h               mcpgen --version | -v',
    '',
    'Commands:',
    ...columns(
      commands.map((c) => [c.name, c.summary]),
      '  ',
      10,
    ),
    '',
    'mcpgen <command> --help says what each flag does, its default and the config keys it reads.',
    '',
    ...PROJECT,
    '',
    ...INPUTS,
    '',
    ...EXIT_CODES,
  ].join('\n');
}

/** Prose for Markdown: `<`, `>` and `*` as text, not HTML or emphasis. */
const prose = (s: string): string => s.replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\*/g, '\\*');

/** A Markdown table cell of prose: pipes escaped too. */
const cell = (s: string): string => prose(s).replace(/\|/g, '\\|');

/** A code span in a Markdown table cell (pipes escaped: GitHub reads them as cell ends even there). */
const codeCell = (s: string): string => `\`${s.replace(/\|/g, '\\|')}\``;

/** The first letter in upper case. */
const capital = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

/** docs/cli.md: the reference of every command, from the same records as the help. */
export function cliReference(commands: readonly Command[]): string {
  const out = [
    '# mcpgen command line',
    '',
    '<!-- Written by `npm run docs:cli` from the command records in cli/commands/ (the same the',
    'parser and `mcpgen <command> --help` read); a test fails when it is not current. -->',
    '',
    '```',
    ...commands.flatMap((c) => c.usage.map(synopsis)),
    '```',
    '',
    ...PROJECT.map(prose),
    '',
    ...INPUTS.map(prose),
    '',
    ...EXIT_CODES.map(prose),
  ];
  for (const c of commands) {
    out.push('', `## ${c.name}`, '', `${capital(prose(c.summary))}.`, '', '```', ...c.usage.map(synopsis), '```', '');
    out.push(...c.description.map(prose), '', '| flag | default | meaning |', '| --- | --- | --- |');
    for (const f of helpFlags(c)) {
      const form = f.form ? ` (${codeCell(f.form)} form)` : '';
      out.push(`| ${codeCell(flagSyntax(f))} | ${cell(f.default ?? '')} | ${cell(f.meaning)}${form} |`);
    }
    out.push(
      '',
      c.config.length
        ? `Config keys (mcpgen.config.json): ${c.config.map((k) => `\`${k}\``).join(', ')}.`
        : 'Config keys: none (reads no mcpgen.config.json).',
    );
    out.push('', 'Examples:', '', '```', ...c.examples.map((e) => `mcpgen ${e}`), '```', '', 'Exit codes:', '');
    for (const [code, meaning] of c.exitCodes) out.push(`- ${code}: ${prose(meaning)}`);
  }
  return `${out.join('\n')}\n`;
}
