/**
 * A schema.json that is valid JSON but not a valid JSON Schema, a dangling `$ref`, and a
 * schema.ts that does not parse: each is an input error (exit 3) whose message names the file
 * and the place (JSON pointer of the keyword, path of the `$ref`, line:column), from `generate`
 * and from `pack` alike — never a compiler's stack trace.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { main } from '../../cli/main.js';

const test = suite('cli: bad schema inputs, exit 3 naming file and place');
const SPEC = process.env.MCP_SPEC_DIR!;
const tmp = mkdtempSync(join(tmpdir(), 'mcpgen-bad-schema-'));

const cli = async (...args: string[]) => {
  const out: string[] = [];
  const err: string[] = [];
  let code: number;
  try {
    code = await main(args, { out: (l) => void out.push(l), err: (l) => void err.push(l) });
  } catch (e) {
    // what main lets through becomes a stack trace and exit 1 in bin/mcpgen.js
    return { code: 1, err: `uncaught: ${(e as Error).stack}`, out: out.join('\n') };
  }
  return { code, err: err.join('\n'), out: out.join('\n') };
};

/** A folder `name` with `rev`'s inputs, schema.json edited by `edit` (parsed) and schema.ts by `editTs`. */
function folder(
  name: string,
  rev: string,
  edit: (j: Record<string, any>) => void = () => {},
  editTs: (t: string) => string = (t) => t,
): string {
  const dir = join(tmp, name);
  mkdirSync(dir, { recursive: true });
  const json = JSON.parse(readFileSync(join(SPEC, 'schema', rev, 'schema.json'), 'utf8'));
  edit(json);
  writeFileSync(join(dir, 'schema.json'), JSON.stringify(json, null, 2));
  writeFileSync(join(dir, 'schema.ts'), editTs(readFileSync(join(SPEC, 'schema', rev, 'schema.ts'), 'utf8')));
  return dir;
}

const generate = (dir: string) => cli('generate', '--unpinned', dir, '--out', join(tmp, 'out'));

test('"type": 42 in $defs: the file, the JSON pointer of the keyword, what it must be', async () => {
  const dir = folder('type-42', 'draft', (j) => (j.$defs.CallToolRequestParams.properties.name.type = 42));
  const r = await generate(dir);
  assert.is(r.code, 3, r.err);
  assert.ok(
    r.err.includes(
      `${join(dir, 'schema.json')}: /$defs/CallToolRequestParams/properties/name/type: must be one of "array", "boolean", "integer", "null", "number", "object", "string", or must be array (found 42)`,
    ),
    r.err,
  );
  assert.not.match(r.err, /\n\s+at /);
});

test('a draft-07 file: the pointer names definitions, as the file does', async () => {
  const dir = folder('required-07', '2025-06-18', (j) => (j.definitions.Tool.required = 'name'));
  const r = await generate(dir);
  assert.is(r.code, 3, r.err);
  assert.ok(
    r.err.includes(`${join(dir, 'schema.json')}: /definitions/Tool/required: must be array (found "name")`),
    r.err,
  );
});

test('"$ref": 1, a bad pattern, an unknown keyword value deep in an anyOf', async () => {
  const cases: Array<[string, (j: Record<string, any>) => void, string]> = [
    [
      'ref-number',
      (j) => (j.$defs.CallToolRequest.properties.params = { $ref: 1 }),
      '/$defs/CallToolRequest/properties/params/$ref: must be string (found 1)',
    ],
    [
      'pattern',
      (j) => (j.$defs.CallToolRequestParams.properties.name.pattern = '([a-'),
      '/$defs/CallToolRequestParams/properties/name/pattern: must be a regular expression (ECMA-262, u flag) (found "([a-")',
    ],
    [
      'min-length',
      (j) => (j.$defs.ClientRequest.anyOf[0] = { type: 'string', minLength: -1 }),
      '/$defs/ClientRequest/anyOf/0/minLength: must be >= 0 (found -1)',
    ],
  ];
  for (const [name, edit, expected] of cases) {
    const dir = folder(name, 'draft', edit);
    const r = await generate(dir);
    assert.is(r.code, 3, `${name}: ${r.err}`);
    assert.ok(r.err.includes(`${join(dir, 'schema.json')}: ${expected}`), `${name}: ${r.err}`);
  }
});

test('a $ref to a missing definition of a draft-07 file is named as the file writes it', async () => {
  const dir = folder(
    'ref-07',
    '2025-06-18',
    (j) => (j.definitions.ClientRequest.anyOf[1] = { $ref: '#/definitions/Nope' }),
  );
  const r = await generate(dir);
  assert.is(r.code, 3, r.err);
  assert.ok(
    r.err.includes(
      `${join(dir, 'schema.json')}: definitions.ClientRequest.anyOf[1].$ref: "#/definitions/Nope" names no definition in definitions`,
    ),
    r.err,
  );
});

test('pack: a bad schema.json, a dangling $ref and a schema.ts that does not parse exit 3 naming file and place', async () => {
  const bad = folder('pack-type', 'draft', (j) => (j.$defs.Tool.properties.name.type = 42));
  const a = await cli('pack', '--unpinned', bad, '--out', join(tmp, 'tgz'));
  assert.is(a.code, 3, a.err);
  assert.ok(a.err.includes(`${join(bad, 'schema.json')}: /$defs/Tool/properties/name/type: must be one of`), a.err);
  const ref = folder(
    'pack-ref',
    'draft',
    (j) => (j.$defs.CallToolRequest.properties.params = { $ref: '#/$defs/Nope' }),
  );
  const b = await cli('pack', '--unpinned', ref, '--out', join(tmp, 'tgz'));
  assert.is(b.code, 3, b.err);
  assert.ok(
    b.err.includes(
      `${join(ref, 'schema.json')}: $defs.CallToolRequest.properties.params.$ref: "#/$defs/Nope" names no definition in $defs`,
    ),
    b.err,
  );
  const ts = folder('pack-ts', 'draft', undefined, (t) => `${t}\nexport interface Broken {\n  a: string;\n`);
  const lines = readFileSync(join(ts, 'schema.ts'), 'utf8').split('\n').length;
  const c = await cli('pack', '--unpinned', ts, '--out', join(tmp, 'tgz'));
  assert.is(c.code, 3, c.err);
  assert.ok(c.err.includes(`${join(ts, 'schema.ts')}: line ${lines}:`), c.err);
  assert.match(c.err, /not valid TypeScript: '}' expected/);
});

test.after(() => rmSync(tmp, { recursive: true, force: true }));
test.run();
