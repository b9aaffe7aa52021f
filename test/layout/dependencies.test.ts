/**
 * The layering, checked with dependency-cruiser against the rules of .dependency-cruiser.cjs:
 * generator/ imports neither runtime/, cli/ nor reference/; runtime/ imports none of generator/,
 * cli/, reference/, schema/ or generated/; generated code reaches the runtime only through
 * runtime/codegen/v1.ts; runtime layers point down; no import cycle anywhere (type-only
 * imports included). `@mcpgen/runtime/…` specifiers resolve through the runtime's `exports`
 * (the subpath `./stdio` is runtime/transport/stdio.ts), so an import by package name meets the
 * same rules as a relative one. A deliberate cycle, a deliberate upward import and forbidden
 * imports by relative path and by package specifier, written to a temporary tree shaped like
 * the project, must be reported by the same rules.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cruise, type ICruiseOptions, type ICruiseResult } from 'dependency-cruiser';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const config = createRequire(import.meta.url)(join(ROOT, '.dependency-cruiser.cjs')) as {
  forbidden: NonNullable<ICruiseOptions['ruleSet']>['forbidden'];
  options: ICruiseOptions;
};
const FOLDERS = ['runtime', 'generator', 'cli', 'reference', 'schema', 'generated', 'examples'];

interface Found {
  rule: string;
  from: string;
  to: string;
  cycle: string[];
}

async function check(
  baseDir: string,
  folders: string[],
): Promise<{ found: Found[]; modules: number; unresolved: string[] }> {
  const cwd = process.cwd();
  process.chdir(baseDir); // dependency-cruiser reads paths and tsconfig relative to the working folder
  try {
    const { tsConfig: _ignored, ...options } = config.options as ICruiseOptions & { tsConfig?: unknown };
    const r = await cruise(
      folders,
      { ...options, baseDir, validate: true, ruleSet: { forbidden: config.forbidden } },
      { extensions: ['.ts', '.js', '.mjs'] },
      undefined,
    );
    const out = r.output as ICruiseResult;
    const found = out.summary.violations.map((v) => ({
      rule: v.rule.name,
      from: v.from,
      to: v.to,
      cycle: (v.cycle ?? []).map((c) => (typeof c === 'string' ? c : c.name)),
    }));
    const unresolved = out.modules.flatMap((m) =>
      m.dependencies
        .filter((d) => d.couldNotResolve && (d.module.startsWith('.') || d.module.startsWith('@mcpgen/')))
        .map((d) => `${m.source} → ${d.module}`),
    );
    return { found, modules: out.summary.totalCruised, unresolved };
  } finally {
    process.chdir(cwd);
  }
}

test('the project: no cycle, no import against the layering', async () => {
  const { found, modules, unresolved } = await check(ROOT, FOLDERS);
  assert.ok(modules > 100, `only ${modules} modules cruised`);
  assert.equal(
    unresolved,
    [],
    'every relative and @mcpgen/runtime… import resolves to a file (else the rules would not see it)',
  );
  assert.equal(
    found.map((f) => `${f.rule}: ${f.from} → ${f.to}${f.cycle.length ? ` (${f.cycle.join(' → ')})` : ''}`),
    [],
  );
});

test('a cycle, an upward import and forbidden imports by relative path and by package specifier in a temporary tree are reported', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcpgen-layout-'));
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  };
  try {
    write('runtime/engine/a.ts', "import { b } from './b.js';\nexport const a = (): number => b() + 1;\n");
    write(
      'runtime/engine/b.ts',
      "import type { a } from './a.js';\nexport const b = (): number => 1;\nexport type A = typeof a;\n",
    );
    write('runtime/jsonrpc/up.ts', "import { client } from '../session/client.js';\nexport const up = client;\n");
    write('runtime/session/client.ts', 'export const client = 1;\n');
    write('generator/emit.ts', "import { client } from '../runtime/session/client.js';\nexport const emit = client;\n");
    write(
      'generated/x/index.ts',
      "import { client } from '../../runtime/session/client.js';\nexport const x = client;\n",
    );
    write('cli/serve.ts', "import { client } from '../runtime/session/client.js';\nexport const serve = client;\n");
    // the package: a workspace link to runtime/, whose exports map a subpath to another folder
    write(
      'runtime/package.json',
      `${JSON.stringify({ name: '@mcpgen/runtime', type: 'module', exports: { './stdio': './transport/stdio.ts', './codegen/v1': './codegen/v1.ts' } })}\n`,
    );
    write('runtime/transport/stdio.ts', 'export const stdio = 1;\n');
    write('runtime/codegen/v1.ts', "export { stdio } from '../transport/stdio.js';\n");
    mkdirSync(join(dir, 'node_modules', '@mcpgen'), { recursive: true });
    symlinkSync('../../runtime', join(dir, 'node_modules', '@mcpgen', 'runtime'), 'dir');
    write('generator/by-name.ts', "import { stdio } from '@mcpgen/runtime/stdio';\nexport const byName = stdio;\n");
    write(
      'generated/y/index.ts',
      "import { stdio } from '@mcpgen/runtime/stdio';\nimport { stdio as v1 } from '@mcpgen/runtime/codegen/v1';\nexport const y = stdio + v1;\n",
    );
    const { found } = await check(dir, ['runtime', 'generator', 'generated', 'cli']);
    const byName = found
      .filter((f) => f.from === 'generator/by-name.ts' || f.from === 'generated/y/index.ts')
      .map((f) => `${f.rule}: ${f.from} → ${f.to}`);
    assert.equal(
      byName.sort(),
      [
        'generated-through-codegen-v1: generated/y/index.ts → runtime/transport/stdio.ts',
        'generator-is-pure: generator/by-name.ts → runtime/transport/stdio.ts',
      ],
      'imports by package specifier not resolved through exports',
    );
    const rules = new Set(found.map((f) => f.rule));
    const cycle = found.find((f) => f.rule === 'no-circular');
    assert.ok(cycle, `no cycle reported: ${JSON.stringify(found)}`);
    assert.ok([cycle.from, cycle.to].includes('runtime/engine/a.ts'), JSON.stringify(cycle));
    assert.ok(rules.has('runtime-jsonrpc-points-down'), `upward import not reported: ${[...rules]}`);
    assert.ok(rules.has('generator-is-pure'), `generator → runtime not reported: ${[...rules]}`);
    assert.ok(
      rules.has('generated-through-codegen-v1'),
      `generated → runtime past codegen/v1 not reported: ${[...rules]}`,
    );
    assert.ok(
      rules.has('cli-uses-the-runtime-package'),
      `cli → runtime by a relative path not reported: ${[...rules]}`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
