/**
 * `mcpgen <command> --help`, `-h` and `mcpgen help <command>`: the command's usage on stdout, exit
 * 0, the same text three ways; its Flags section lists exactly the flags the command's parser
 * accepts (the list the parser prints for an unknown flag, and each flag fed to the parser on its
 * own); no flag named anywhere in the help is one the parser refuses. A misspelt flag or command
 * exits 2 naming the nearest known one. docs/cli.md is the reference `npm run docs:cli` writes from
 * the same records.
 */
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cliReference } from '../../cli/help.js';
import { COMMANDS, main } from '../../cli/main.js';
import { CLI_REFERENCE } from '../../scripts/cli-reference.js';
import { ROOT, tempDir } from '../generator/support.js';

const test = suite('cli: every command answers --help; misspellings get a hint');

async function mcpgen(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, { out: (l) => void out.push(l), err: (l) => void err.push(l) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

const t = tempDir('mcpgen-help-');
const emptyConfig = join(t.dir, 'mcpgen.config.json');
writeFileSync(emptyConfig, '{}\n');

/** The flags a help text lists in its Flags section (`-h, --help` aside). */
function listedFlags(help: string): string[] {
  const section = help.split('\nFlags:\n')[1]?.split('\n\n')[0] ?? '';
  return [...section.matchAll(/^ {2}(--[a-z][a-z0-9-]*)/gm)].map((m) => m[1]).sort();
}

/** What the parser of `command` says it accepts: the list it prints for an unknown flag (of each form of pin). */
async function parserFlags(command: string): Promise<string[]> {
  const probes =
    command === 'pin'
      ? [
          ['pin', '--zz-no-such-flag'],
          ['pin', 'apps', '--zz-no-such-flag'],
        ]
      : [[command, '--zz-no-such-flag']];
  const flags = new Set<string>();
  for (const args of probes) {
    const r = await mcpgen(args);
    assert.is(r.code, 2, `${args.join(' ')}: ${r.err}`);
    const list = /unknown flag --zz-no-such-flag.*\(flags: ([^)]*)\)/.exec(r.err)?.[1];
    assert.ok(list, `${args.join(' ')}: ${r.err}`);
    for (const f of list.split(', ')) flags.add(f);
  }
  return [...flags].sort();
}

test('the commands of cli/commands/ are the ones mcpgen knows, one file each', () => {
  const files = readdirSync(join(ROOT, 'cli', 'commands'))
    .filter((f) => f.endsWith('.ts'))
    .map((f) => f.slice(0, -3))
    .sort();
  assert.equal(COMMANDS.map((c) => c.name).sort(), files);
});

for (const { name } of COMMANDS) {
  test(`${name}: --help, -h and help ${name} print its usage on stdout, exit 0`, async () => {
    const help = await mcpgen([name, '--help']);
    assert.is(help.code, 0, help.err);
    assert.is(help.err, '');
    for (const heading of ['Usage:', 'Flags:', 'Examples:', 'Exit codes:'])
      assert.ok(help.out.includes(`\n${heading}\n`), `${name}: ${heading}`);
    assert.ok(help.out.startsWith(`mcpgen ${name}: `), help.out.slice(0, 80));
    assert.match(help.out, /\nConfig[ :(]/);
    assert.match(help.out, new RegExp(`\\n {2}mcpgen ${name}\\b`), 'a synopsis line and an example');
    // examples: at least two, each a line of this command
    const examples = help.out.split('\nExamples:\n')[1].split('\n\n')[0].split('\n');
    assert.ok(examples.length >= 2, `${name}: ${examples.length} example(s)`);
    for (const e of examples) assert.ok(e.startsWith(`  mcpgen ${name}`), e);
    // exit codes: 0 and 2 at least
    const codes = help.out
      .split('\nExit codes:\n')[1]
      .split('\n')
      .map((l) => /^ {2}(\d+) /.exec(l)?.[1]);
    assert.ok(codes.includes('0') && codes.includes('2'), `${name}: ${codes.join(',')}`);
    // a flag line says its default when it has one: the parser's defaults are spelled out
    for (const again of [
      [name, '-h'],
      ['help', name],
      [name, '--rev', 'x', '--help'],
    ]) {
      const r = await mcpgen(again);
      assert.is(r.code, 0, `${again.join(' ')}: ${r.err}`);
      assert.is(r.out, help.out, again.join(' '));
      assert.is(r.err, '', again.join(' '));
    }
  });

  test(`${name}: the help lists every flag the parser accepts, and none it refuses`, async () => {
    const help = (await mcpgen([name, '--help'])).out;
    const accepted = await parserFlags(name);
    assert.equal(listedFlags(help), accepted, `${name}: Flags section vs parser`);
    // each listed flag, fed to the parser with a value, passes: the unknown flag after it is the one named
    const record = COMMANDS.find((c) => c.name === name)!;
    for (const flag of listedFlags(help)) {
      const f = record.flags.find((x) => `--${x.name}` === flag);
      const value = flag === '--config' ? [emptyConfig] : f?.value === undefined ? [] : ['x'];
      const positional = name === 'pin' && f?.form === '<extension>' ? ['apps'] : [];
      const r = await mcpgen([name, ...positional, flag, ...value, '--zz-no-such-flag']);
      assert.is(r.code, 2, `${name} ${flag}: ${r.err}`);
      assert.match(r.err, /unknown flag --zz-no-such-flag/, `${name} ${flag}: ${r.err}`);
    }
    // any flag named anywhere in the help (synopsis, prose, examples outside quoted commands) is accepted
    const named = new Set(
      help
        .replace(/"[^"]*"/g, '')
        .match(/(?<![\w-])--[a-z][a-z0-9-]*/g)
        ?.filter((f) => f !== '--help'),
    );
    for (const f of named) assert.ok(accepted.includes(f), `${name}: the help names ${f}, which the parser refuses`);
  });
}

test('a misspelt flag exits 2 naming the nearest known one', async () => {
  const cases: Array<[string[], string]> = [
    [['generate', '--revv', 'draft'], '--rev'],
    [['generate', '--tagret', 'go'], '--target'],
    [['serve', '--htp', '0'], '--http'],
    [['serve', '--session-idle', '10'], '--session-idle-ms'],
    [['call', '--ulr', 'http://127.0.0.1:1/mcp', 'tools/list'], '--url'],
    [['diff', 'a', 'b', '--formt', 'json'], '--format'],
    [['pack', '--spec-dri', 'x'], '--spec-dir'],
    [['generate', '--confg', 'x'], '--config'],
  ];
  for (const [args, near] of cases) {
    const r = await mcpgen(args);
    assert.is(r.code, 2, `${args.join(' ')}: ${r.err}`);
    assert.is(r.out, '');
    const flag = args.find((a) => a.startsWith('--'));
    assert.ok(r.err.startsWith(`mcpgen ${args[0]}: unknown flag ${flag}; did you mean ${near}?`), r.err);
    assert.ok(r.err.includes(`(see mcpgen ${args[0]} --help)`), r.err);
  }
  // nothing near: no guess, the list of flags
  const far = await mcpgen(['list', '--zzzzzz']);
  assert.is(far.code, 2);
  assert.ok(far.err.startsWith('mcpgen list: unknown flag --zzzzzz (flags: --spec-dir, --config)'), far.err);
});

test('a misspelt command exits 2 naming the nearest known one, also for help <command>', async () => {
  for (const [args, near] of [
    [['genrate'], 'generate'],
    [['serv', '--stdio'], 'serve'],
    [['chekc'], 'check'],
    [['help', 'tols'], 'tools'],
    [['pakc', '--help'], 'pack'],
  ] as const) {
    const r = await mcpgen([...args]);
    assert.is(r.code, 2, `${args.join(' ')}: ${r.err}`);
    assert.is(r.out, '');
    const word = args[0] === 'help' ? args[1] : args[0];
    assert.ok(r.err.includes(`unknown command "${word}"; did you mean ${near}?`), r.err);
  }
  const far = await mcpgen(['frobnicate']);
  assert.is(far.code, 2);
  assert.not.match(far.err, /did you mean/);
  assert.match(far.err, /unknown command "frobnicate" \(commands: pin, generate, /);
});

test('help takes one command; mcpgen help lists every command and points to <command> --help', async () => {
  const two = await mcpgen(['help', 'serve', 'call']);
  assert.is(two.code, 2, two.err);
  const overview = await mcpgen(['help']);
  assert.is(overview.code, 0);
  for (const c of COMMANDS) assert.match(overview.out, new RegExp(`\\n {2}${c.name} +${c.summary.slice(0, 20)}`));
  assert.match(overview.out, /mcpgen <command> --help/);
});

test('a --help after -- is an argument, not a request for help', async () => {
  // call's arguments after -- are its own: the missing --stdio/--url is the error, not the help
  const r = await mcpgen(['call', 'tools/list', '--', '--help']);
  assert.is(r.code, 2, r.err);
  assert.is(r.out, '');
});

test('docs/cli.md is the reference npm run docs:cli writes from the command records', () => {
  const text = cliReference(COMMANDS);
  assert.is(readFileSync(CLI_REFERENCE, 'utf8'), text, 'docs/cli.md is not current: run npm run docs:cli');
  for (const c of COMMANDS) {
    assert.ok(text.includes(`\n## ${c.name}\n`), c.name);
    for (const f of c.flags) assert.ok(text.includes(`\`--${f.name}`), `${c.name} --${f.name}`);
  }
});

test.after(() => t.cleanup());

test.run();
