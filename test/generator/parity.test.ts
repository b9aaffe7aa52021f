/**
 * Parity of the generated types with upstream schema.ts, for every pinned revision: generate
 * (in memory, the real pipeline), write its types.gen.ts + a parity.gen.ts (emitParity, which
 * `generate` leaves out of its machine-independent output) to a temporary folder and
 * compile them under strict with the TypeScript compiler API. parity.gen.ts imports the upstream
 * schema.ts from $MCP_SPEC_DIR by path and asserts two-way assignability for every type, and
 * asserts that each entry of the exception table (generator/emit/parity.ts) still differs — so
 * any error fails the test, whether a type drifted or an exception went stale. Controls: a stale
 * exception, a changed member and an `any` are each caught on the right line.
 */
import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { PARITY_EXCEPTIONS, emitParity, parityAlias } from '../../generator/emit/parity.js';
import { emitTypes } from '../../generator/emit/types.js';
import { generate } from '../../generator/generate.js';
import type { ProtocolModel } from '../../generator/model.js';
import { type Diagnostic, PINNED, SPEC_DIR, pinnedModel, showDiagnostics, tempDir, typecheck } from './support.js';

const test = suite('generator: parity of generated types with upstream schema.ts');

const models = new Map<string, ProtocolModel>();
const modelOf = (rev: string) => {
  let m = models.get(rev);
  if (!m) models.set(rev, (m = pinnedModel(rev)));
  return m;
};

/** The upstream schema.ts a model was ingested from. */
const upstreamOf = (model: ProtocolModel) => model.inputs.schemaTs.path;

/**
 * `tsc --strict --noEmit` as a library: upstream schema.ts is a module of its own (outside any
 * package, so CommonJS to NodeNext); the project's isolatedModules / verbatimModuleSyntax rules
 * are not asked of it.
 */
const PARITY_OPTIONS: ts.CompilerOptions = {
  strict: true,
  noEmit: true,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  skipLibCheck: true,
  types: [],
};

/** Writes each revision's files to `<dir>/<rev>/` (an ESM package) and compiles every parity.gen.ts. */
function compile(dir: string, byRev: Map<string, Map<string, string>>): Diagnostic[] {
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
  const roots: string[] = [];
  for (const [rev, files] of byRev) {
    mkdirSync(join(dir, rev), { recursive: true });
    for (const [name, text] of files) writeFileSync(join(dir, rev, name), text);
    roots.push(join(dir, rev, 'parity.gen.ts'));
  }
  return typecheck(roots, PARITY_OPTIONS);
}

/** Names of the parity assertions that failed (`_Name` on the diagnostic's line). */
const failedTypes = (ds: Diagnostic[]) =>
  [
    ...new Set(ds.map((d) => /export type _(\w+) =/.exec(d.text)?.[1] ?? `(not a parity line: ${d.file}:${d.line})`)),
  ].sort();

test('every pinned revision: each generated type is mutually assignable with upstream (exceptions still differ)', async () => {
  const t = tempDir();
  try {
    const byRev = new Map<string, Map<string, string>>();
    for (const rev of PINNED) {
      const files = await generate(modelOf(rev));
      assert.not.ok(files.has('parity.gen.ts'), `${rev}: generate() emits parity.gen.ts (it holds a machine path)`);
      const upstream = join(SPEC_DIR, 'schema', rev, 'schema.ts');
      const parity = emitParity(modelOf(rev), upstream).get('parity.gen.ts')!;
      assert.ok(
        parity.includes(`import type * as U from '${upstream}';`),
        `${rev}: parity.gen.ts does not import ${upstream}`,
      );
      const asserted = parity.split('\n').filter((l) => /^export type _\w+ = Assert(Not)?<Mutual</.test(l)).length;
      assert.is(asserted, Object.keys(modelOf(rev).types).length, `${rev}: one assertion per generated type`);
      byRev.set(
        rev,
        new Map([
          ['types.gen.ts', files.get('types.gen.ts')!],
          ['parity.gen.ts', parity],
        ]),
      );
    }
    const diags = compile(t.dir, byRev);
    assert.equal(failedTypes(diags), [], showDiagnostics(diags));
  } finally {
    t.cleanup();
  }
});

test('the exception table: every entry has a reason and names a type of some pinned revision', () => {
  for (const e of PARITY_EXCEPTIONS) {
    assert.ok(e.why.trim().length > 10, `${e.type}: no reason`);
    const revs = e.revisions ?? PINNED;
    assert.ok(
      revs.some((r) => Object.hasOwn(modelOf(r).types, e.type)),
      `${e.type}: in no revision`,
    );
  }
});

test('control: an exception for a type that is mutually assignable fails as stale', async () => {
  const model = modelOf('2025-11-25');
  const t = tempDir();
  try {
    const types = (await emitTypes(model)).get('types.gen.ts')!;
    const parity = emitParity(model, upstreamOf(model), [
      { type: 'TextContent', why: 'probe: not really different' },
    ]).get('parity.gen.ts')!;
    assert.match(
      parity,
      `export type ${parityAlias('TextContent')} = AssertNot<Mutual<G.TextContent, U.TextContent>>;`,
    );
    const diags = compile(
      t.dir,
      new Map([
        [
          '2025-11-25',
          new Map([
            ['types.gen.ts', types],
            ['parity.gen.ts', parity],
          ]),
        ],
      ]),
    );
    assert.equal(failedTypes(diags), ['TextContent'], showDiagnostics(diags));
  } finally {
    t.cleanup();
  }
});

test('control: a changed member and an `any` in types.gen.ts fail on their parity lines', async () => {
  const model = modelOf('2025-11-25');
  const t = tempDir();
  try {
    let types = (await emitTypes(model)).get('types.gen.ts')!;
    const start = types.indexOf('export type ImageContent = {');
    const end = types.indexOf('\nexport type ', start + 1);
    const block = types.slice(start, end);
    assert.ok(start >= 0 && block.includes('\nmimeType: string\n'), 'ImageContent.mimeType not found');
    types = types.slice(0, start) + block.replace('\nmimeType: string\n', '\nmimeType?: string\n') + types.slice(end);
    assert.match(types, /\nexport type Cursor = string\n/);
    types = types.replace(/\nexport type Cursor = string\n/, '\nexport type Cursor = any\n');
    const parity = emitParity(model, upstreamOf(model)).get('parity.gen.ts')!;
    const diags = compile(
      t.dir,
      new Map([
        [
          '2025-11-25',
          new Map([
            ['types.gen.ts', types],
            ['parity.gen.ts', parity],
          ]),
        ],
      ]),
    );
    const failed = failedTypes(diags);
    // the changed types and every type that contains them
    for (const name of ['ImageContent', 'ContentBlock', 'CallToolResult', 'Cursor'])
      assert.ok(failed.includes(name), `${name} not caught: ${failed.join(', ')}`);
    assert.not.ok(failed.includes('TextContent'), 'an unrelated type failed');
    assert.ok(
      failed.every((n) => !n.startsWith('(not')),
      failed.join('\n'),
    );
  } finally {
    t.cleanup();
  }
});

test('an exception naming a type the revision lacks is stale as well', () => {
  const model = modelOf('2024-11-05');
  const parity = emitParity(model, upstreamOf(model), [{ type: 'NoSuchType', why: 'probe' }]).get('parity.gen.ts')!;
  assert.match(parity, 'export type _NoSuchType = Assert<Mutual<G.NoSuchType, U.NoSuchType>>;');
  const other = emitParity(model, upstreamOf(model), [
    { type: 'TextContent', revisions: ['2025-11-25'], why: 'probe' },
  ]).get('parity.gen.ts')!;
  assert.match(other, 'export type _TextContent = Assert<Mutual<G.TextContent, U.TextContent>>;');
});

test.run();
