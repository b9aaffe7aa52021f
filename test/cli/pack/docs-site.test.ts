/**
 * The runtime's API docs (`npm run docs` site `runtime`): built once per run, in process, into a
 * temporary folder with typedoc's JSON model beside the HTML.
 * - every export (not `@internal`) of every public subpath of runtime/package.json (read by the TypeScript
 *   checker from the entry file, independently of typedoc) is a member of that subpath's module
 *   in the output, and carries a doc comment (on itself or on a signature);
 * - every module is named by its specifier and filed under its layer;
 * - the manual (README.md, docs/, the policies) is the site's first category of documents, the
 *   feature guide (docs/guide/) its second;
 * - no link of the site is broken, and the link checker does report a broken page, anchor and
 *   spec page (checked on a site written here).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { checkLinks, guidePages, manualPages, runtimeEntries } from '../../../scripts/docs.js';
import { runtimeSite } from '../../docs/runtime-site.js';
import { SPEC_DIR, tempDir } from '../../generator/support.js';

const test = suite('docs: the runtime package, every public subpath');

interface JsonReflection {
  name: string;
  kind: number;
  comment?: { summary: { text: string }[] };
  signatures?: JsonReflection[];
  getSignature?: JsonReflection;
  children?: JsonReflection[];
  categories?: { title: string; children: number[] }[];
  id: number;
  /** Of a reference (an export documented under another subpath): the reflection it names. */
  target?: number;
  /** Of the project: the documents (the guide's pages). */
  documents?: JsonReflection[];
}

/** Every reflection of the model by id. */
function byId(root: JsonReflection, map = new Map<number, JsonReflection>()): Map<number, JsonReflection> {
  map.set(root.id, root);
  for (const c of [...(root.children ?? []), ...(root.documents ?? [])]) byId(c, map);
  return map;
}

/** The shared build (test/docs/runtime-site.ts), its model typed as this file reads it. */
async function build() {
  const r = await runtimeSite();
  return { ...r, project: r.project as JsonReflection };
}

/** The names each entry file exports, by the TypeScript checker. */
function exportsByFile(files: string[]): Map<string, string[]> {
  const program = ts.createProgram(files, {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    skipLibCheck: true,
    noEmit: true,
    types: ['node'],
  });
  const checker = program.getTypeChecker();
  const out = new Map<string, string[]>();
  for (const file of files) {
    const source = program.getSourceFile(file);
    assert.ok(source, `${file} not in the program`);
    const symbol = checker.getSymbolAtLocation(source);
    assert.ok(symbol, `${file}: not a module`);
    // `@internal` ones are for the runtime's own files (excludeInternal): not public
    const internal = (s: ts.Symbol): boolean => {
      const target = s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s;
      return (target.declarations ?? []).some((d) => ts.getJSDocTags(d).some((t) => t.tagName.text === 'internal'));
    };
    out.set(
      file,
      checker
        .getExportsOfModule(symbol)
        .filter((s) => !internal(s))
        .map((s) => s.name)
        .sort(),
    );
  }
  return out;
}

const documented = (r: JsonReflection): boolean =>
  Boolean(r.comment?.summary.some((p) => p.text.trim())) ||
  Boolean(r.signatures?.some(documented)) ||
  Boolean(r.getSignature && documented(r.getSignature));

test('typedoc builds the runtime with no warning and no error', async () => {
  const r = await build();
  assert.ok(r.ok, `${r.errors} error(s), ${r.warnings} warning(s)`);
  assert.is(r.warnings, 0);
});

test('every export of every public subpath is in the output, with a doc comment', async () => {
  const { project } = await build();
  const entries = runtimeEntries();
  assert.ok(entries.length >= 18, `only ${entries.length} subpaths`);
  const byFile = exportsByFile(entries.map((e) => e.file));
  const ids = byId(project);
  const missing: string[] = [];
  const undocumented: string[] = [];
  let total = 0;
  for (const entry of entries) {
    const mod = project.children?.find((c) => c.name === entry.specifier);
    assert.ok(mod, `no module ${entry.specifier}`);
    assert.ok(documented(mod), `${entry.specifier}: no module comment`);
    const names = byFile.get(entry.file)!;
    assert.ok(names.length > 0, `${entry.specifier} exports nothing`);
    for (const name of names) {
      total++;
      const found = mod.children?.find((c) => c.name === name);
      // the same declaration exported by two subpaths is documented once, referenced from the other
      const r = found?.target !== undefined ? ids.get(found.target) : found;
      if (!r) missing.push(`${entry.specifier}: ${name}`);
      else if (!documented(r)) undocumented.push(`${entry.specifier}: ${name}`);
    }
  }
  assert.ok(total > 300, `only ${total} exports`);
  assert.equal(missing, [], 'exports missing from the docs');
  assert.equal(undocumented, [], 'exports without a doc comment');
});

test('modules are named by specifier and filed by layer; the README introduces the site', async () => {
  const { project } = await build();
  const ids = byId(project); // modules, and the guide's documents
  const categories = new Map(
    (project.categories ?? []).map((c) => [c.title, c.children.map((id) => ids.get(id)!.name)]),
  );
  assert.equal(categories.get('transport')?.sort(), [
    '@mcpgen/runtime/http',
    '@mcpgen/runtime/http/legacy-sse',
    '@mcpgen/runtime/http/stateless',
    '@mcpgen/runtime/memory',
    '@mcpgen/runtime/stdio',
  ]);
  assert.equal(categories.get('stores')?.sort(), ['@mcpgen/runtime/stores', '@mcpgen/runtime/stores/redis']);
  const index = readFileSync(join((await build()).html, 'index.html'), 'utf8');
  assert.match(index, 'The runtime of the code');
  // the introduction's table names every public subpath
  for (const e of runtimeEntries())
    assert.ok(index.includes(`<code>${e.specifier}</code>`), `${e.specifier} not in the introduction`);
  for (const name of ['StdioClientTransport', 'ServerFeatures', 'createStreamableHttpHandler']) {
    const hits = project.children!.filter((m) => m.children?.some((c) => c.name === name)).map((m) => m.name);
    assert.ok(hits.length > 0, `${name} on no page`);
  }
});

test('the manual is in the site: README.md, docs/ in the order of its index, then the policies, each a document titled by its heading, in the first category', async () => {
  const { project } = await build();
  const pages = manualPages();
  assert.equal(
    pages.slice(0, 3).map((p) => p.title),
    ['mcpgen', 'The mcpgen manual', 'Quick start, step by step'],
  );
  assert.ok(pages.some((p) => p.file.endsWith('/TIER.md')) && pages.some((p) => p.file.endsWith('/docs/cli.md')));
  const first = project.categories?.[0];
  assert.is(first?.title, 'manual');
  const ids = byId(project);
  assert.equal(
    first!.children.map((id) => ids.get(id)?.name),
    pages.map((p) => p.title),
  );
});

test('the guide is in the site: each page of docs/guide/ a document titled by its heading, in the second category, in the order of the index', async () => {
  const { project } = await build();
  const pages = guidePages();
  assert.ok(pages.length >= 10, `only ${pages.length} guide pages`);
  assert.is(pages[0].title, 'The mcpgen guide');
  const second = project.categories?.[1];
  assert.is(second?.title, 'guide');
  const ids = byId(project);
  assert.equal(
    second!.children.map((id) => ids.get(id)?.name),
    pages.map((p) => p.title),
  );
  // the index lists stdio before tools, tools before progress
  const titles = pages.map((p) => p.title);
  const at = (slug: string) => pages.findIndex((p) => p.file.endsWith(`/${slug}.md`));
  assert.ok(at('stdio') > 0 && at('stdio') < at('tools') && at('tools') < at('progress'), titles.join(' | '));
  const documents = join((await build()).html, 'documents');
  const stdio = readdirSync(documents)
    .map((f) => readFileSync(join(documents, f), 'utf8'))
    .find((html) => html.includes(`<title>${pages[at('stdio')].title} |`));
  assert.ok(stdio, 'no page of the stdio guide');
  assert.match(stdio!, 'StdioClientTransport');
});

test('no broken link in the runtime site', async () => {
  const r = await build();
  assert.ok(r.ok);
  const { broken } = checkLinks(r.html, SPEC_DIR);
  assert.equal(broken, []);
});

test('the link checker reports a missing page, a missing anchor, a site path and a missing spec page', () => {
  const t = tempDir('mcpgen-docs-links-');
  try {
    mkdirSync(join(t.dir, 'classes'));
    writeFileSync(join(t.dir, 'classes', 'A.html'), '<h2 id="ok">A</h2>');
    writeFileSync(
      join(t.dir, 'index.html'),
      [
        '<a href="classes/A.html#ok">fine</a>',
        '<a href="classes/B.html">gone</a>',
        '<a href="classes/A.html#nope">no anchor</a>',
        '<a href="/specification/2025-11-25/basic/index#meta">site path</a>',
        '<a href="https://modelcontextprotocol.io/specification/2025-11-25/basic#meta">fine</a>',
        '<a href="https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/progress">fine</a>',
        '<a href="https://modelcontextprotocol.io/specification/2025-11-25/server/nothing-here">no page</a>',
        '<a href="https://modelcontextprotocol.io/specification/1999-01-01/basic">no pages offline</a>',
      ].join('\n'),
    );
    const { broken, unchecked } = checkLinks(t.dir, SPEC_DIR);
    assert.equal(
      broken.map((b) => b.href),
      [
        'classes/B.html',
        'classes/A.html#nope',
        '/specification/2025-11-25/basic/index#meta',
        'https://modelcontextprotocol.io/specification/2025-11-25/server/nothing-here',
      ],
    );
    assert.equal([...unchecked], [['1999-01-01', 1]]);
  } finally {
    t.cleanup();
  }
});

test.run();
