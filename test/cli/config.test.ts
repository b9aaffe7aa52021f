/**
 * mcpgen.config.json and mcpgen.lock.json that are wrong: each exits 2 with one line naming the
 * file and the field (no stack), for every command that reads the project; commands that do
 * not (serve, call) are not affected. The published JSON Schemas agree with the CLI (the
 * config's target languages are the generator's).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { loadProject } from '../../cli/config.js';
import { main } from '../../cli/main.js';
import { TARGET_IDS } from '../../generator/emit/bindings/index.js';
import { ROOT, cli, tempDir } from '../generator/support.js';

const test = suite('cli: mcpgen.config.json and mcpgen.lock.json validation');

async function mcpgen(args: string[]): Promise<{ code: number; text: string }> {
  const lines: string[] = [];
  const code = await main(args, { out: (l) => void lines.push(l), err: (l) => void lines.push(l) });
  return { code, text: lines.join('\n') };
}

const GOOD_FILE = { path: 'schema/x/schema.json', sha256: 'a'.repeat(64), size: 1 };

test('a bad config exits 2 naming the file and the field', async () => {
  const t = tempDir('mcpgen-config-');
  try {
    const cases: Array<[string, unknown, string]> = [
      [
        'unknown key',
        { revisions: ['draft'], outDir: 'src' },
        'outDir: unknown key (known keys: $schema, revisions, out, targets, extensions, runtimeImport, validators, inputs)',
      ],
      [
        'unknown nested key',
        { inputs: { specdir: '../spec' } },
        'inputs.specdir: unknown key (known keys: specDir, cacheDir, lock, baseUrl)',
      ],
      ['wrong type', { out: 42 }, 'out: expected string, got integer'],
      ['wrong item type', { revisions: ['draft', true] }, 'revisions[1]: expected string, got boolean'],
      ['not an object', ['draft'], '(top level): expected object, got array'],
      ['bad revision id', { revisions: ['../up'] }, 'revisions[0]: "../up" does not match'],
      ['unknown target', { targets: ['cobol'] }, 'targets[0]: "cobol" is not one of "all", "python"'],
      ['empty runtimeImport', { runtimeImport: '' }, 'runtimeImport: must not be empty'],
      [
        'baseUrl not http',
        { inputs: { baseUrl: 'ftp://x/{path}' } },
        'inputs.baseUrl: "ftp://x/{path}" does not match ^https?://',
      ],
      ['duplicate revision', { revisions: ['draft', 'draft'] }, 'revisions: items 0 and 1 are the same'],
      [
        'revision not pinned',
        { revisions: ['2025-11-25', 'nope'] },
        'revisions[1]: "nope" is not pinned (pinned: 2024-11-05',
      ],
    ];
    for (const [what, config, message] of cases) {
      const file = join(t.dir, `${what.replace(/ /g, '-')}.json`);
      writeFileSync(file, JSON.stringify(config));
      for (const cmd of ['generate', 'check', 'pull', 'pack']) {
        const r = await mcpgen([cmd, '--config', file]);
        assert.is(r.code, 2, `${what}: ${cmd}: exit ${r.code}\n${r.text}`);
        assert.ok(r.text.startsWith(`mcpgen ${cmd}: ${file}: ${message}`), `${what}: ${r.text}`);
        assert.not.match(r.text, '    at ', 'a stack trace');
      }
    }
    const notJson = join(t.dir, 'broken.json');
    writeFileSync(notJson, '{"revisions": [');
    const missing = join(t.dir, 'none.json');
    for (const [args, message] of [
      [
        ['pull', '--config', notJson],
        `${notJson}:1:16: revisions[0]: not valid JSON: expected ']' (after '{"revisions": [')`,
      ],
      [['diff', 'a', 'b', `--config=${missing}`], `${missing}: no such file`],
      [['list', '--config', t.dir], `${t.dir}: not a file`],
      [['pack', '--config'], '--config: needs a file'],
    ] as Array<[string[], string]>) {
      const r = await mcpgen(args);
      assert.is(r.code, 2, `${args.join(' ')}: ${r.text}`);
      assert.ok(r.text.startsWith(`mcpgen ${args[0]}: ${message}`), r.text);
    }
  } finally {
    t.cleanup();
  }
});

test('a config that is not JSON: file:line:column, the field, the text around; comments and trailing commas are errors', async () => {
  const t = tempDir('mcpgen-syntax-');
  try {
    const cases: Array<[string, string]> = [
      [
        '{\n  "revisions": ["draft",\n  "out": "src/mcp"\n}\n',
        `:3:8: revisions[1]: not valid JSON: expected ',' (after '"out"', before ': "src/mcp"')`,
      ],
      [
        '{\n  "inputs": {\n    "specDir": "a",\n  }\n}\n',
        `:4:3: inputs: not valid JSON: expected a key in double quotes (before '}')`,
      ],
      [
        '{\r\n  "out": src/mcp\r\n}',
        `:2:10: out: not valid JSON: unexpected character (after '"out": ', before 'src/mcp')`,
      ],
      [
        '{"revisions": ["draft"] // the next one\n}',
        `:1:25: revisions: not valid JSON: comments are not JSON (after '{"revisions": ["draft"] ', before '// the next one')`,
      ],
      ['', ':1:1: (top level): not valid JSON: expected a value at the end'],
    ];
    for (const [i, [text, message]] of cases.entries()) {
      const file = join(t.dir, `syntax-${i}.json`);
      writeFileSync(file, text);
      const r = await mcpgen(['check', '--config', file]);
      assert.is(r.code, 2, r.text);
      assert.is(r.text, `mcpgen check: ${file}${message}`);
    }
  } finally {
    t.cleanup();
  }
});

test('a bad lock exits 2 naming the lock file and the field', async () => {
  const t = tempDir('mcpgen-lock-');
  try {
    const config = join(t.dir, 'mcpgen.config.json');
    writeFileSync(config, JSON.stringify({ inputs: { lock: 'pins/lock.json' } }));
    mkdirSync(join(t.dir, 'pins'));
    const lockFile = join(t.dir, 'pins', 'lock.json');
    const entry = (over: object) => ({
      repository: 'a/b',
      commit: 'abcdef1',
      files: { 'schema.json': GOOD_FILE, 'schema.ts': { ...GOOD_FILE, path: 'schema/x/schema.ts' } },
      ...over,
    });
    const cases: Array<[unknown, string]> = [
      [{ revisions: {} }, 'lockVersion: missing'],
      [{ lockVersion: 2, revisions: {} }, 'lockVersion: expected 1, got 2'],
      [
        { lockVersion: 1, revisions: { x: entry({ commit: 'main' }) } },
        'revisions.x.commit: "main" does not match ^[0-9a-f]{7,40}$',
      ],
      [
        { lockVersion: 1, revisions: { x: entry({ files: { 'schema.json': GOOD_FILE } }) } },
        'revisions.x.files.schema.ts: missing',
      ],
      [
        {
          lockVersion: 1,
          revisions: { x: entry({ files: { 'schema.json': { ...GOOD_FILE, size: -1 }, 'schema.ts': GOOD_FILE } }) },
        },
        'revisions.x.files.schema.json.size: must be >= 0',
      ],
      [
        {
          lockVersion: 1,
          revisions: {
            x: entry({
              files: { 'schema.json': { ...GOOD_FILE, path: 'schema/../../etc/passwd' }, 'schema.ts': GOOD_FILE },
            }),
          },
        },
        'revisions.x.files.schema.json.path: "schema/../../etc/passwd" is not allowed',
      ],
      [{ lockVersion: 1, revisions: { 'a b': entry({}) } }, 'revisions.a b: invalid key "a b"'],
    ];
    for (const [lock, message] of cases) {
      writeFileSync(lockFile, JSON.stringify(lock));
      const r = await mcpgen(['list', '--config', config]);
      assert.is(r.code, 2, `${message}: exit ${r.code}\n${r.text}`);
      assert.ok(r.text.startsWith(`mcpgen list: ${lockFile}: ${message}`), `${message}\n${r.text}`);
    }
  } finally {
    t.cleanup();
  }
});

test('an inputs.lock that names no file exits 2 naming the config and the field; pin may create it', async () => {
  const t = tempDir('mcpgen-nolock-');
  try {
    const config = join(t.dir, 'mcpgen.config.json');
    writeFileSync(config, JSON.stringify({ revisions: ['2025-11-25'], inputs: { lock: 'pins/lock.json' } }));
    const lockFile = join(t.dir, 'pins', 'lock.json');
    for (const cmd of ['generate', 'list', 'check', 'pull', 'pack']) {
      const r = await mcpgen([cmd, '--config', config]);
      assert.is(r.code, 2, `${cmd}: exit ${r.code}\n${r.text}`);
      assert.is(
        r.text,
        `mcpgen ${cmd}: ${config}: inputs.lock: "pins/lock.json": no such file (${lockFile}); mcpgen pin <rev> creates it`,
        cmd,
      );
    }
    // found in the working folder: both paths shown relative to it
    const cwd = await cli(['list'], {}, t.dir);
    assert.is(cwd.code, 2, cwd.stderr);
    assert.is(
      cwd.stderr.trim(),
      'mcpgen list: mcpgen.config.json: inputs.lock: "pins/lock.json": no such file (pins/lock.json); mcpgen pin <rev> creates it',
    );
    // pin is not refused for it (it fails later, on its own argument)
    const pin = await mcpgen(['pin', '--config', config]);
    assert.is(pin.code, 2, pin.text);
    assert.not.match(pin.text, 'inputs.lock');
    // the lock in place: read as before
    mkdirSync(join(t.dir, 'pins'));
    writeFileSync(lockFile, JSON.stringify({ lockVersion: 1, revisions: {} }));
    const ok = await mcpgen(['list', '--config', config]);
    assert.is(ok.code, 0, ok.text);
  } finally {
    t.cleanup();
  }
});

test('mcpgen.config.json is found in the working folder; serve and call do not read it', async () => {
  const t = tempDir('mcpgen-cwd-');
  try {
    writeFileSync(join(t.dir, 'mcpgen.config.json'), JSON.stringify({ revision: ['draft'] }));
    const [gen, call] = await Promise.all([cli(['generate'], {}, t.dir), cli(['call', '--url'], {}, t.dir)]);
    assert.is(gen.code, 2, gen.stderr);
    assert.is(
      gen.stderr.trim(),
      'mcpgen generate: mcpgen.config.json: revision: unknown key (known keys: $schema, revisions, out, targets, extensions, runtimeImport, validators, inputs)',
    );
    // call's own usage error, not the config's
    assert.is(call.code, 2, call.stderr);
    assert.not.match(call.stderr, 'mcpgen.config.json');
  } finally {
    t.cleanup();
  }
});

test('a misspelt target language gets a "did you mean", as a misspelt --target does', async () => {
  const t = tempDir('mcpgen-target-');
  try {
    const config = join(t.dir, 'mcpgen.config.json');
    writeFileSync(config, JSON.stringify({ revisions: ['2025-11-25'], targets: ['pyton'] }));
    const r = await mcpgen(['list', '--config', config]);
    assert.is(r.code, 2, r.text);
    assert.match(
      r.text,
      new RegExp(`^mcpgen list: ${config}: targets\\[0\\]: "pyton" is not one of "all", .*; did you mean python\\?$`),
    );
    // nothing near: the list alone
    writeFileSync(config, JSON.stringify({ revisions: ['2025-11-25'], targets: ['cobol'] }));
    const far = await mcpgen(['list', '--config', config]);
    assert.is(far.code, 2, far.text);
    assert.not.match(far.text, 'did you mean');
  } finally {
    t.cleanup();
  }
});

test('a config and a lock saved with a UTF-8 byte-order mark are read as without it', async () => {
  const t = tempDir('mcpgen-bom-');
  try {
    const config = join(t.dir, 'mcpgen.config.json');
    const lockFile = join(t.dir, 'mcpgen.lock.json');
    const lock = {
      lockVersion: 1,
      revisions: {
        x: {
          repository: 'a/b',
          commit: 'abcdef1',
          files: { 'schema.json': GOOD_FILE, 'schema.ts': { ...GOOD_FILE, path: 'schema/x/schema.ts' } },
        },
      },
    };
    writeFileSync(config, `\uFEFF${JSON.stringify({ revisions: ['x'], out: 'gen' }, null, 2)}\n`);
    writeFileSync(lockFile, `\uFEFF${JSON.stringify(lock, null, 2)}\n`);
    const project = loadProject(config);
    assert.equal(project.config, { revisions: ['x'], out: 'gen' });
    assert.equal(project.lock, lock);
    assert.is(project.pins.revisions.x.commit, 'abcdef1');
    const list = await mcpgen(['list', '--config', config]);
    assert.is(list.code, 0, list.text);
    // an error after the mark is placed in the text without it
    writeFileSync(config, '\uFEFF{\n  "out": src\n}\n');
    const r = await mcpgen(['list', '--config', config]);
    assert.is(r.code, 2, r.text);
    assert.is(
      r.text,
      `mcpgen list: ${config}:2:10: out: not valid JSON: unexpected character (after '"out": ', before 'src')`,
    );
  } finally {
    t.cleanup();
  }
});

test('the published config schema lists the generator target languages', () => {
  const schema = JSON.parse(readFileSync(join(ROOT, 'schema', 'config.schema.json'), 'utf8')) as {
    properties: { targets: { items: { enum: string[] } } };
  };
  assert.equal(schema.properties.targets.items.enum, ['all', ...TARGET_IDS]);
});

test.run();
