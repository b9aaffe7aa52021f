/**
 * The API reports of `@mcpgen/runtime` (api/runtime/*.api.md, scripts/api-report.ts): every public
 * subpath and export condition has one, and each matches the API of the runtime as built now. A
 * change of the public API fails here, naming the report and whether the change is breaking,
 * until `npm run api:update` rewrites the reports (VERSIONING.md).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { lstatSync, mkdirSync, mkdtempSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  REPORT_DIR,
  UPDATE_ADVICE,
  compareReports,
  diffReport,
  extractReports,
  linkNodeModules,
  parseReport,
  reportEntries,
  runtimeReportEntries,
} from '../../scripts/api-report.js';
import { runtimeBuild } from '../package/runtime-package.js';

const report = (body: string) =>
  `## API report of \`@x/y\`\n\n\`\`\`ts\n\nimport type { A } from 'a';\n\n${body}\n\`\`\`\n`;

test('reportEntries: one report per declaration file; default targets name them, web conditions get .web', () => {
  const entries = reportEntries({
    '.': { browser: './web.ts', default: './index.ts' },
    './web': './web.ts',
    './http': { worker: './http/web.ts', browser: './http/web.ts', default: './http/index.ts' },
    './stdio': { browser: null, default: './stdio.ts' },
    './odd': { electron: './odd-electron.ts', default: './odd.ts' },
    './package.json': './package.json',
  });
  assert.equal(
    entries.map((e) => [e.name, e.file, e.exports]),
    [
      ['http', 'http/index.d.ts', ['@mcpgen/runtime/http']],
      ['http.web', 'http/web.d.ts', ['@mcpgen/runtime/http (browser, worker)']],
      ['index', 'index.d.ts', ['@mcpgen/runtime']],
      ['odd', 'odd.d.ts', ['@mcpgen/runtime/odd']],
      ['odd.electron', 'odd-electron.d.ts', ['@mcpgen/runtime/odd (electron)']],
      ['stdio', 'stdio.d.ts', ['@mcpgen/runtime/stdio']],
      ['web', 'web.d.ts', ['@mcpgen/runtime/web', '@mcpgen/runtime (browser)']],
    ],
  );
});

test('every public subpath of runtime/package.json has a report (web conditions too), and nothing but them', () => {
  const names = runtimeReportEntries().map((e) => e.name);
  for (const name of ['index', 'web', 'codegen-v1', 'http', 'http.web', 'http-stateless.web', 'stores-redis'])
    assert.ok(names.includes(name), name);
  assert.not.ok(
    names.some((n) => n.includes('package')),
    'package.json is not an API',
  );
});

test('parseReport: declarations by kind and name, overloads joined, members of classes and interfaces', () => {
  const d = parseReport(
    report(
      [
        '// @public',
        'export function f(a: string): void;',
        '',
        '// @public',
        'export function f(a: number): void;',
        '',
        '// Warning: (ae-forgotten-export) The symbol "Z" needs to be exported',
        '// @public',
        'export interface I {',
        '    a: string;',
        '    b?: number;',
        '    m(x: {',
        '        y: string;',
        '    }): void;',
        '    readonly r: (x: number) => string;',
        '}',
        '',
        '// @public',
        'export class C extends Error {',
        '    constructor(message: string);',
        '    static of(x: number): C;',
        '}',
      ].join('\n'),
    ),
  );
  assert.equal([...d.keys()], ['function f', 'interface I', 'class C']);
  assert.is(d.get('function f')?.text, 'export function f(a: string): void;\nexport function f(a: number): void;');
  assert.equal([...(d.get('interface I')?.members?.keys() ?? [])], ['a', 'b', 'm', 'readonly r']);
  assert.match(d.get('interface I')!.members!.get('m')!, /y: string;\n {4}\}\): void;/);
  assert.equal([...(d.get('class C')?.members?.keys() ?? [])], ['constructor', 'static of']);
});

test('diffReport: removed, changed and required interface members are breaking; new declarations and optional members are additive', () => {
  const before = report(
    [
      '// @public',
      'export function f(a: string): void;',
      '',
      '// @public',
      'export function gone(): void;',
      '',
      '// @public',
      'export interface I {',
      '    a: string;',
      '    b?: number;',
      '}',
      '',
      '// @public',
      'export class C {',
      '    run(): void;',
      '}',
    ].join('\n'),
  );
  assert.equal(diffReport(before, before), { breaking: [], additive: [] });
  const additive = before
    .replace('    b?: number;\n', '    b?: number;\n    c?: boolean;\n')
    .replace('    run(): void;\n', '    run(): void;\n    stop(): void;\n')
    .replace('```\n', '\n// @public\nexport const NEW = 1;\n```\n');
  assert.equal(diffReport(before, additive), {
    breaking: [],
    additive: ['added: interface I member c', 'added: class C member stop', 'added: const NEW'],
  });
  const breaking = before
    .replace('export function f(a: string): void;', 'export function f(a: string, b: number): void;')
    .replace('// @public\nexport function gone(): void;\n\n', '')
    .replace('    b?: number;\n', '    b?: number;\n    c: boolean;\n')
    .replace('    a: string;\n', '');
  const r = diffReport(before, breaking);
  assert.equal(r.additive, []);
  assert.equal(r.breaking, [
    'changed: function f: export function f(a: string): void; → export function f(a: string, b: number): void;',
    'removed: function gone',
    'removed: interface I member a',
    'added required member: interface I member c (code that builds or implements it must supply it)',
  ]);
});

test('diffReport: a renumbered suffix of an unexported type (Obj_3 → Obj_4) is no change; a declared one is', () => {
  const before = report(
    '// @public\nexport class T {\n    capabilities(c?: Obj_3): Obj_3;\n}\n\n// @public\nexport type Id_2 = string;\n\n// @public\nexport function f(x: Id_2): void;',
  );
  assert.equal(diffReport(before, before.replaceAll('Obj_3', 'Obj_4')), { breaking: [], additive: [] });
  const r = diffReport(before, before.replace('f(x: Id_2)', 'f(x: Id_3)'));
  assert.equal(r.breaking, [
    'changed: function f: export function f(x: Id_2): void; → export function f(x: Id_#): void;',
  ]);
});

test('compareReports: a missing, stale or changed report is named with its verdict', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcpgen-api-'));
  try {
    const a = report('// @public\nexport function f(): void;');
    writeFileSync(join(dir, 'same.api.md'), a);
    writeFileSync(join(dir, 'old.api.md'), a);
    writeFileSync(join(dir, 'grown.api.md'), a);
    const fresh = new Map([
      ['same.api.md', a],
      ['grown.api.md', a.replace('```\n', '\n// @public\nexport function g(): void;\n```\n')],
      ['new.api.md', a],
    ]);
    const problems = compareReports(dir, fresh);
    assert.is(problems.length, 3, problems.join('\n'));
    assert.match(problems[0], /grown\.api\.md \(`@x\/y`\) is out of date: additive\n {2}additive — added: function g$/);
    assert.match(problems[1], /new\.api\.md is missing: `@x\/y` has no API report/);
    assert.match(problems[2], /old\.api\.md reports an entry point the package no longer exports: BREAKING/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the built package's cache gets this checkout's node_modules beside it, replacing a link another checkout left", () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcpgen-api-link-'));
  try {
    const built = join(dir, 'cache', 'runtime');
    mkdirSync(built, { recursive: true });
    const checkout = (name: string) => {
      mkdirSync(join(dir, name, 'node_modules'), { recursive: true });
      return join(dir, name);
    };
    const [mine, other] = [checkout('mine'), checkout('other')];
    const link = join(dir, 'cache', 'node_modules');
    linkNodeModules(built, mine);
    assert.is(readlinkSync(link), join(mine, 'node_modules'), 'made');
    linkNodeModules(built, mine);
    assert.is(readlinkSync(link), join(mine, 'node_modules'), 'kept');
    // a link to a clone since removed (existsSync is false through it): replaced, not EEXIST
    rmSync(link);
    symlinkSync(join(dir, 'gone', 'node_modules'), link, 'dir');
    linkNodeModules(built, mine);
    assert.is(readlinkSync(link), join(mine, 'node_modules'), 'a dangling link replaced');
    linkNodeModules(built, other);
    assert.is(readlinkSync(link), join(other, 'node_modules'), "another checkout's link replaced");
    // a folder of its own is kept
    rmSync(link);
    mkdirSync(link);
    linkNodeModules(built, mine);
    assert.ok(lstatSync(link).isDirectory() && !lstatSync(link).isSymbolicLink());
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('api/runtime/ matches the public API of the runtime as built now', async () => {
  const fresh = await extractReports(runtimeBuild());
  assert.ok(fresh.size >= 20, `${fresh.size} reports`);
  const problems = compareReports(REPORT_DIR, fresh);
  assert.equal(problems, [], `${problems.join('\n')}\n${UPDATE_ADVICE}`);
});

test.run();
