/**
 * One exit code per kind of mistake, whichever command and wherever the setting came from: a
 * bad flag, a flag without its value, an unknown revision or a bad --base-url exit 2 on the
 * command line as in mcpgen.config.json; an output folder that cannot be created exits 3 naming
 * the folder and the cause, before any work. Every message starts `mcpgen <cmd>: ` and names the
 * flag, or the file and the field.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { COMMANDS, main } from '../../cli/main.js';
import { TARGET_IDS, WITHDRAWN_TARGETS } from '../../generator/emit/bindings/index.js';
import { SPEC_DIR, tempDir } from '../generator/support.js';

const test = suite('cli: usage errors are alike across commands and sources');

async function mcpgen(args: string[]): Promise<{ code: number; text: string }> {
  const lines: string[] = [];
  const code = await main(args, { out: (l) => void lines.push(l), err: (l) => void lines.push(l) });
  return { code, text: lines.join('\n') };
}

const t = tempDir('mcpgen-usage-');
const config = (name: string, body: unknown): string => {
  const file = join(t.dir, `${name}.config.json`);
  writeFileSync(file, JSON.stringify(body));
  return file;
};

test('no command: the usage on stderr, exit 2; --help, -h and help: the usage on stdout, exit 0', async () => {
  for (const args of [[], ['--help'], ['-h'], ['help']]) {
    const out: string[] = [];
    const err: string[] = [];
    const code = await main(args, { out: (l) => void out.push(l), err: (l) => void err.push(l) });
    const [usage, silent] = args.length ? [out, err] : [err, out];
    assert.is(code, args.length ? 0 : 2, args.join(' '));
    assert.match(usage.join('\n'), /Exit codes: 0 ok/, `${args.join(' ') || '(none)'}: the usage`);
    assert.equal(silent, [], `${args.join(' ') || '(none)'}: nothing on the other stream`);
  }
});

test('--version and -v: "mcpgen <version of package.json>" on stdout, exit 0', async () => {
  const version = (
    JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
  ).version;
  for (const flag of ['--version', '-v']) {
    const out: string[] = [];
    const err: string[] = [];
    assert.is(await main([flag], { out: (l) => void out.push(l), err: (l) => void err.push(l) }), 0, flag);
    assert.equal(out, [`mcpgen ${version}`], flag);
    assert.equal(err, [], flag);
  }
});

test('an unknown revision exits 2 from the command line and from the config, naming the flag or the field', async () => {
  const file = config('unknown-rev', { revisions: ['nope'] });
  for (const cmd of ['generate', 'check', 'pack', 'pull']) {
    const flag = await mcpgen([cmd, '--rev', 'nope', '--spec-dir', SPEC_DIR].filter((_, i) => cmd !== 'pull' || i < 3));
    assert.is(flag.code, 2, `${cmd} --rev: ${flag.text}`);
    assert.ok(flag.text.startsWith(`mcpgen ${cmd}: --rev: unknown revision "nope" (pinned: `), flag.text);
    const configured = await mcpgen([cmd, '--config', file]);
    assert.is(configured.code, 2, `${cmd} config: ${configured.text}`);
    assert.ok(
      configured.text.startsWith(`mcpgen ${cmd}: ${file}: revisions[0]: "nope" is not pinned`),
      configured.text,
    );
  }
  const diff = await mcpgen(['diff', 'draft', 'nope', '--spec-dir', SPEC_DIR]);
  assert.is(diff.code, 2, diff.text);
  assert.ok(diff.text.startsWith('mcpgen diff: <revB>: unknown revision "nope"'), diff.text);
});

test('--base-url that is not an http(s) URL exits 2 as inputs.baseUrl does', async () => {
  const flag = await mcpgen(['pull', '--rev', 'draft', '--base-url', 'not-a-url']);
  assert.is(flag.code, 2, flag.text);
  assert.ok(flag.text.startsWith('mcpgen pull: --base-url "not-a-url": expected an http(s) URL'), flag.text);
  const configured = await mcpgen([
    'pull',
    '--rev',
    'draft',
    '--config',
    config('base-url', { inputs: { baseUrl: 'not-a-url' } }),
  ]);
  assert.is(configured.code, 2, configured.text);
  assert.match(configured.text, /^mcpgen pull: .*base-url\.config\.json: inputs\.baseUrl: "not-a-url" does not match/);
});

test('an output folder that cannot be created exits 3 at once, naming the folder and the cause', async () => {
  const file = join(t.dir, 'a-file');
  writeFileSync(file, 'not a folder');
  mkdirSync(join(t.dir, 'rev-file'));
  writeFileSync(join(t.dir, 'rev-file', 'draft'), 'not a folder');
  const cases: Array<[string[], string]> = [
    [
      ['generate', '--rev', 'draft', '--spec-dir', SPEC_DIR, '--out', '/proc/mcpgen-nope'],
      'mcpgen generate: --out /proc/mcpgen-nope: cannot create /proc/mcpgen-nope: /proc does not accept new entries (ENOENT)',
    ],
    [
      ['generate', '--rev', 'draft', '--spec-dir', SPEC_DIR, '--config', config('out', { out: '/proc/mcpgen-nope' })],
      `mcpgen generate: ${join(t.dir, 'out.config.json')}: out: "/proc/mcpgen-nope": cannot create /proc/mcpgen-nope: /proc does not accept new entries (ENOENT)`,
    ],
    [
      ['generate', '--rev', 'draft', '--spec-dir', SPEC_DIR, '--out', join(file, 'sub')],
      `mcpgen generate: --out ${join(file, 'sub')}: ${file} exists and is not a folder`,
    ],
    // a regular file where the folder itself should be, from the flag, the config or as <out>/<rev>
    [
      ['generate', '--rev', 'draft', '--spec-dir', SPEC_DIR, '--out', file],
      `mcpgen generate: --out ${file}: ${file} exists and is not a folder`,
    ],
    [
      ['generate', '--rev', 'draft', '--spec-dir', SPEC_DIR, '--config', config('out-file', { out: file })],
      `mcpgen generate: ${join(t.dir, 'out-file.config.json')}: out: ${JSON.stringify(file)}: ${file} exists and is not a folder`,
    ],
    [
      ['generate', '--rev', 'draft', '--spec-dir', SPEC_DIR, '--out', join(t.dir, 'rev-file')],
      `mcpgen generate: --out ${join(t.dir, 'rev-file')}: ${join(t.dir, 'rev-file', 'draft')} exists and is not a folder`,
    ],
    [
      ['check', '--rev', 'draft', '--spec-dir', SPEC_DIR, '--out', file],
      `mcpgen check: --out ${file}: ${file} exists and is not a folder`,
    ],
    [
      ['check', '--rev', 'draft', '--spec-dir', SPEC_DIR, '--out', join(file, 'sub')],
      `mcpgen check: --out ${join(file, 'sub')}: ${file} exists and is not a folder`,
    ],
    [
      ['pack', '--rev', 'draft', '--spec-dir', SPEC_DIR, '--out', file],
      `mcpgen pack: --out ${file}: ${file} exists and is not a folder`,
    ],
    [
      ['pack', '--rev', 'draft', '--spec-dir', SPEC_DIR, '--out', join(file, 'dist')],
      `mcpgen pack: --out ${join(file, 'dist')}: ${file} exists and is not a folder`,
    ],
    [
      ['tools', '--stdio', 'no-such-server', '--out', join(file, 'tools.ts')],
      `mcpgen tools: --out ${join(file, 'tools.ts')}: ${file} exists and is not a folder`,
    ],
    [
      ['pack', '--rev', 'draft', '--spec-dir', SPEC_DIR, '--out', '/proc/mcpgen-nope/dist'],
      'mcpgen pack: --out /proc/mcpgen-nope/dist: cannot create /proc/mcpgen-nope: /proc does not accept new entries (ENOENT)',
    ],
    [
      ['tools', '--stdio', 'no-such-server', '--out', '/proc/mcpgen-nope/tools.ts'],
      'mcpgen tools: --out /proc/mcpgen-nope/tools.ts: cannot create /proc/mcpgen-nope: /proc does not accept new entries (ENOENT)',
    ],
  ];
  for (const [args, message] of cases) {
    const r = await mcpgen(args);
    assert.is(r.code, 3, `${args.join(' ')}: ${r.text}`);
    // said before any work: no ingest, generate or connection line first
    assert.is(r.text, message);
  }
  // the files in the way are left as they were
  assert.is(readFileSync(file, 'utf8'), 'not a folder');
  assert.is(readFileSync(join(t.dir, 'rev-file', 'draft'), 'utf8'), 'not a folder');
});

test('a flag without its value, or an unknown flag, is a usage error prefixed with the command and naming the flag', async () => {
  const cases: Array<[string[], string]> = [
    [['generate', '--out'], '--out'],
    [['check', '--target'], '--target'],
    [['list', '--spec-dir'], '--spec-dir'],
    [['pull', '--rev'], '--rev'],
    [['pin', 'draft', '--from'], '--from'],
    [['diff', 'draft', 'draft', '--format'], '--format'],
    [['pack', '--rev'], '--rev'],
    [['serve', '--http'], '--http'],
    [['call', '--url'], '--url'],
    [['tools', '--stdio', 'x', '--out'], '--out'],
  ];
  for (const [args, flag] of cases) {
    const missing = await mcpgen(args);
    assert.is(missing.code, 2, `${args.join(' ')}: ${missing.text}`);
    assert.ok(missing.text.startsWith(`mcpgen ${args[0]}: ${flag} needs a value\n`), missing.text);
    const unknown = await mcpgen([args[0], '--bogus']);
    assert.is(unknown.code, 2, `${args[0]} --bogus: ${unknown.text}`);
    assert.ok(unknown.text.startsWith(`mcpgen ${args[0]}: unknown flag --bogus (flags: `), unknown.text);
    assert.ok(unknown.text.includes(`${flag}`), `${args[0]}: the known flags are listed: ${unknown.text}`);
  }
});

test('a withdrawn --target (cpp, swift) is a usage error saying why; an unknown one lists the targets', async () => {
  for (const id of ['cpp', 'swift']) {
    const r = await mcpgen([
      'generate',
      '--rev',
      'draft',
      '--target',
      `python,${id}`,
      '--out',
      join(t.dir, 'withdrawn'),
    ]);
    assert.is(r.code, 2, r.text);
    assert.ok(r.text.startsWith(`mcpgen generate: --target: ${WITHDRAWN_TARGETS[id]}\n`), r.text);
    assert.match(r.text, /bindings are withdrawn: its quicktype-rendered binding/);
  }
  const unknown = await mcpgen(['check', '--target', 'cobol']);
  assert.is(unknown.code, 2, unknown.text);
  assert.ok(
    unknown.text.startsWith(
      `mcpgen check: --target: unknown language cobol (languages: ${TARGET_IDS.join(', ')}, or all)\n`,
    ),
    unknown.text,
  );
});

test("a withdrawn language in the config's targets gets the explanation --target gives, not the list of allowed values", async () => {
  for (const id of ['cpp', 'swift']) {
    const file = config(`withdrawn-${id}`, { revisions: ['draft'], targets: ['python', id] });
    const r = await mcpgen(['generate', '--config', file, '--spec-dir', SPEC_DIR]);
    assert.is(r.code, 2, r.text);
    assert.ok(r.text.startsWith(`mcpgen generate: ${file}: targets[1]: "${id}": ${WITHDRAWN_TARGETS[id]}`), r.text);
    assert.not.match(r.text, /is not one of/);
  }
  // an unknown one still lists the allowed values
  const unknown = await mcpgen(['check', '--config', config('unknown-target', { targets: ['cobol'] })]);
  assert.is(unknown.code, 2, unknown.text);
  assert.match(unknown.text, /targets\[0\]: "cobol" is not one of "all", "python"/);
});

test('a misspelt global flag or revision names the nearest known one', async () => {
  const cases: Array<[string[], string]> = [
    [
      ['--hepl'],
      'mcpgen --hepl: unknown flag --hepl; did you mean --help? (before a command: --help, -h, --version, -v;',
    ],
    [['--verison'], 'mcpgen --verison: unknown flag --verison; did you mean --version?'],
    [
      ['generate', '--rev', 'draf', '--spec-dir', SPEC_DIR],
      'mcpgen generate: --rev: unknown revision "draf"; did you mean draft? (pinned: ',
    ],
    [
      ['check', '--rev', '2025-11-52', '--spec-dir', SPEC_DIR],
      'mcpgen check: --rev: unknown revision "2025-11-52"; did you mean 2025-11-25? (pinned: ',
    ],
    [
      ['init', join(t.dir, 'never'), '--rev', 'draf'],
      'mcpgen init: --rev: unknown revision "draf"; did you mean draft? (revisions: ',
    ],
    // a date that is no date gets no guess (2025-13-01 is three edits from 2024-11-05)
    [
      ['generate', '--rev', '2025-13-01', '--spec-dir', SPEC_DIR],
      'mcpgen generate: --rev: unknown revision "2025-13-01"; 2025-13-01 is not a date (pinned: ',
    ],
    [
      ['generate', '--config', config('no-date-rev', { revisions: ['2025-02-30'] })],
      `mcpgen generate: ${join(t.dir, 'no-date-rev.config.json')}: revisions[0]: "2025-02-30" is not pinned; 2025-02-30 is not a date (pinned: `,
    ],
    [['init', ''], 'mcpgen init: the folder is "", an empty name: mcpgen init <dir>'],
    [
      ['init', join(t.dir, 'never'), '--rev', '2025-13-01'],
      'mcpgen init: --rev: unknown revision "2025-13-01"; 2025-13-01 is not a date (revisions: ',
    ],
    [
      ['generate', '--rev', 'draft', '--spec-dir', SPEC_DIR, '--out', join(t.dir, 'never'), '--target', 'pythn'],
      'mcpgen generate: --target: unknown language pythn; did you mean python? (languages: ',
    ],
    [
      ['serve', '--lang', 'pyhton', '--stdio'],
      'mcpgen serve: --lang: unknown language pyhton; did you mean python? (typescript, python, go)',
    ],
    [
      ['serve', '--stdio', '--rev', '2025-11-52'],
      'mcpgen serve: unknown revision 2025-11-52; did you mean 2025-11-25?; this mcpgen serves ',
    ],
    [
      ['generate', '--config', config('misspelt-rev', { revisions: ['draf'] })],
      `mcpgen generate: ${join(t.dir, 'misspelt-rev.config.json')}: revisions[0]: "draf" is not pinned; did you mean draft? (pinned: `,
    ],
  ];
  for (const [args, start] of cases) {
    const r = await mcpgen(args);
    assert.is(r.code, 2, `${args.join(' ')}: ${r.text}`);
    assert.ok(r.text.startsWith(start), `${args.join(' ')}: ${r.text}`);
  }
  // a key written twice is an error at the second one, not silently the last
  const twice = join(t.dir, 'twice.config.json');
  writeFileSync(twice, '{\n  "revisions": ["draft"],\n  "out": "a",\n  "out": "b"\n}\n');
  const dup = await mcpgen(['generate', '--config', twice]);
  assert.is(dup.code, 2, dup.text);
  assert.is(dup.text, `mcpgen generate: ${twice}:4:3: out: the key "out" is written twice in one object (remove one)`);
  // nothing near: no guess
  const far = await mcpgen(['--zzzzzz']);
  assert.is(far.code, 2, far.text);
  assert.ok(far.text.startsWith('mcpgen --zzzzzz: unknown flag --zzzzzz (before a command: '), far.text);
});

test('a single-valued flag or a switch given twice is a usage error naming it (every command); a repeatable one keeps each value', async () => {
  const file = config('twice', {});
  let checked = 0;
  for (const command of COMMANDS)
    for (const flag of command.flags) {
      if (flag.value === undefined || flag.repeatable) continue;
      const args = [command.name, `--${flag.name}`, 'x1', `--${flag.name}=x2`];
      if (command.config.length) args.push('--config', file);
      // (a flag of pin's `<extension>` form: that form is chosen by --package)
      if (flag.form === '<extension>' && flag.name !== 'package') args.push('--package', 'p');
      const r = await mcpgen(args);
      assert.is(r.code, 2, `${args.join(' ')}: ${r.text}`);
      assert.ok(
        r.text.startsWith(`mcpgen ${command.name}: --${flag.name} is given more than once; it takes one value`),
        `${args.join(' ')}: ${r.text}`,
      );
      assert.not.ok(r.text.includes('x2'), r.text);
      checked++;
    }
  assert.ok(checked > 40, `${checked} flags`);
  // a switch too (none is repeatable)
  let switches = 0;
  for (const command of COMMANDS)
    for (const flag of command.flags) {
      if (flag.value !== undefined) continue;
      assert.not.ok(flag.repeatable, `--${flag.name}`);
      const args = [command.name, `--${flag.name}`, `--${flag.name}`];
      if (command.config.length) args.push('--config', file);
      if (flag.form === '<extension>') args.push('--package', 'p');
      const r = await mcpgen(args);
      assert.is(r.code, 2, `${args.join(' ')}: ${r.text}`);
      assert.ok(
        r.text.startsWith(`mcpgen ${command.name}: --${flag.name} is given more than once; it is a switch`),
        `${args.join(' ')}: ${r.text}`,
      );
      switches++;
    }
  assert.ok(switches > 5, `${switches} switches`);
  const config2 = await mcpgen(['generate', '--config', file, '--config', file]);
  assert.is(config2.code, 2, config2.text);
  assert.match(config2.text, /--config: is given more than once/);
  // a repeatable flag given twice gets past the parser: serve checks each value
  const repeated = await mcpgen(['serve', '--http', '0', '--cors-origin', 'https://a.example', '--cors-origin', 'x']);
  assert.is(repeated.code, 2, repeated.text);
  assert.match(repeated.text, /--cors-origin needs an origin like https:\/\/app\.example .*got x/);
});

test('a value flag given an empty or blank value is a usage error naming it (every command, both spellings)', async () => {
  const file = config('empty', {});
  let checked = 0;
  for (const command of COMMANDS)
    for (const flag of command.flags) {
      if (flag.value === undefined) continue;
      for (const spelling of [[`--${flag.name}`, ''], [`--${flag.name}=`], [`--${flag.name}`, '  ']]) {
        const args = [command.name, ...spelling];
        if (command.config.length) args.push('--config', file);
        if (flag.form === '<extension>' && flag.name !== 'package') args.push('--package', 'p');
        const r = await mcpgen(args);
        assert.is(r.code, 2, `${JSON.stringify(args)}: ${r.text}`);
        assert.ok(
          r.text.startsWith(`mcpgen ${command.name}: --${flag.name} needs a value; an empty one was given`),
          `${JSON.stringify(args)}: ${r.text}`,
        );
        checked++;
      }
    }
  assert.ok(checked > 120, `${checked} cases`);
  // the trial's three: serve would have bound every interface, a random port, no scope
  for (const args of [
    ['serve', '--http', '3000', '--host', ''],
    ['serve', '--http', ''],
    ['serve', '--http', '3000', '--auth', 'https://auth.example', '--auth-scope', ''],
  ]) {
    const r = await mcpgen(args);
    assert.is(r.code, 2, `${args.join(' ')}: ${r.text}`);
    assert.match(r.text, /needs a value; an empty one was given/);
  }
});

test.after(() => t.cleanup());

test.run();
