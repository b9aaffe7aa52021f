// size: the typedoc build of the revisions and the runtime site, with its link repairs
/**
 * `npm run docs [-- <rev>… ] [--generated DIR] [--out DIR]`: typedoc HTML for the runtime package
 * (`runtime`: every public subpath of runtime/package.json `exports`, introduced by
 * runtime/README.md, navigation by layer, with the feature guide docs/guide/ as its documents) and for each generated revision (default: `runtime`
 * and every folder of `generated/` holding an `index.ts`), into `docs-html/<name>/`. Warnings
 * count as errors, and so does a link of the output that does not resolve (a page or anchor of
 * the site; a spec page missing from `$MCP_SPEC_DIR/docs/<rev>/`): a site with any fails, and
 * the run exits 1 after trying every one.
 *
 * Each revision compiles on its own: a temporary tsconfig extends the project's and lists only
 * the revision's index.ts, so typedoc sees the revision and the runtime it imports, nothing else.
 * Source links are off (generated code is not committed).
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseFlags } from '../cli/command.js';
import { OutputError, prepareOutDir } from '../cli/inputs.js';
import {
  Application,
  type CommentDisplayPart,
  CommentTag,
  type Context,
  Converter,
  type DocumentReflection,
  JSX,
  OptionDefaults,
  ReflectionKind,
  type ProjectReflection,
  type TypeDocOptions,
} from 'typedoc';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

/**
 * JSON Schema keywords the spec's JSDoc carries as block tags (`@maxItems 100` in schema.ts),
 * kept in the generated types: known to typedoc so they render instead of warning.
 */
const SCHEMA_TAGS = [
  '@minItems',
  '@maxItems',
  '@uniqueItems',
  '@minLength',
  '@maxLength',
  '@pattern',
  '@format',
  '@minimum',
  '@maximum',
  '@exclusiveMinimum',
  '@exclusiveMaximum',
  '@multipleOf',
  '@minProperties',
  '@maxProperties',
] as const;

export interface DocsOptions {
  /** Folder holding `<rev>/index.ts` (default `generated`). */
  generated?: string;
  /** Output root; each revision goes to `<out>/<rev>` (default `docs-html`). */
  out?: string;
  log?: (line: string) => void;
}

export interface DocsResult {
  revision: string;
  out: string;
  ok: boolean;
  errors: number;
  warnings: number;
}

/** Generated revisions under `dir`: folders holding an index.ts, in code-unit order. */
export function generatedRevisions(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && existsSync(join(dir, e.name, 'index.ts')))
    .map((e) => e.name)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Where a spec link of generated JSDoc points: the published page of the revision. */
export const SPEC_SITE = 'https://modelcontextprotocol.io';

/**
 * `[text](/specification/<rev>/basic/index#meta)`: how schema.ts links spec pages, by site path.
 * Rewritten to the published page (`https://modelcontextprotocol.io/specification/<rev>/basic#meta`;
 * an `index` page is published at its folder), so the link works outside the spec's own site.
 */
const SITE_PATH_LINK = /\]\(\/specification\/([^)\s#]+?)(\/index)?(#[^)\s]*)?\)/g;

/** Rewrites the site-path spec links of every comment of `project`; returns how many. */
function publishSpecLinks(project: ProjectReflection): number {
  let rewritten = 0;
  const fix = (parts: readonly CommentDisplayPart[]) => {
    for (const part of parts) {
      if (part.kind !== 'text' && part.kind !== 'code') continue;
      part.text = part.text.replace(SITE_PATH_LINK, (_m, path: string, _index, hash = '') => {
        rewritten++;
        return `](${SPEC_SITE}/specification/${path}${hash})`;
      });
    }
  };
  for (const r of Object.values(project.reflections)) {
    if (!r.comment) continue;
    fix(r.comment.summary);
    for (const tag of r.comment.blockTags) fix(tag.content);
  }
  return rewritten;
}

/** A public entry point of the runtime package: its specifier and its source file. */
export interface RuntimeEntry {
  /** `@mcpgen/runtime/http`, `@mcpgen/runtime` for `.`. */
  specifier: string;
  /** Absolute path of the TypeScript source the subpath maps to. */
  file: string;
  /** The runtime folder (layer) the source sits in: `transport`, `stores`, … (`runtime` for the root files). */
  layer: string;
}

/**
 * The public subpaths of runtime/package.json `exports` that map to TypeScript sources (not
 * `./package.json`), in the order the package lists them.
 * @throws Error naming runtime/package.json when `exports` is missing or a target does not exist.
 */
export function runtimeEntries(runtimeDir = join(ROOT, 'runtime')): RuntimeEntry[] {
  const manifest = join(runtimeDir, 'package.json');
  const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as { name: string; exports?: Record<string, unknown> };
  if (!pkg.exports || typeof pkg.exports !== 'object') throw new Error(`${manifest}: no "exports" map`);
  const entries: RuntimeEntry[] = [];
  for (const [subpath, conditional] of Object.entries(pkg.exports)) {
    // a condition map is documented by its Node form (`default`); the web forms have their own subpath (./web)
    const target =
      conditional && typeof conditional === 'object' ? (conditional as Record<string, unknown>).default : conditional;
    if (typeof target !== 'string' || !target.endsWith('.ts')) continue;
    const file = resolve(runtimeDir, target);
    if (!existsSync(file)) throw new Error(`${manifest}: exports["${subpath}"] names ${target}, which does not exist`);
    const rel = relative(runtimeDir, file).split(sep);
    entries.push({
      specifier: subpath === '.' ? pkg.name : `${pkg.name}/${subpath.slice(2)}`,
      file,
      layer: rel.length > 1 ? rel[0] : 'runtime',
    });
  }
  return entries;
}

/**
 * Types public signatures of the runtime use without the package exporting them: mapped-type
 * helpers and aliases (`Obj`, `Filled`), and options or results that belong to one function.
 * Listed by file so a new unexported type in another file still warns.
 */
const INTERNAL_TYPES = [
  'auth/discovery.ts:DiscoveryOptions',
  'auth/discovery.ts:ResourceMetadata',
  'stateless/dual-era.ts:EraSide',
  // the lifecycle strategy the generated tables hand the client session (codegen/v1 exports the factories only)
  'session/lifecycle/strategy.ts:ClientLifecycle',
  'session/lifecycle/strategy.ts:ClientHost',
  'features/typed.ts:Expressions',
  'features/typed.ts:Filled',
  'features/typed.ts:Without',
  'transport/http/session/session-state.ts:Id',
  'protocol/json-schema.ts:JsonSchema',
  'engine/outbound.ts:Lane',
  'tasks/extension-wire.ts:Obj',
  'tasks/extension.ts:Obj',
  'transport/http/stateless/headers.ts:Obj',
  'transport/http/io/cors.ts:PreflightAnswer',
  // what a reply's body is read into, in chunks or whole (the HTTP client transports' own; not part of the public surface)
  'transport/http/io/request.ts:BodySink',
  'transport/http/io/request.ts:TextTaker',
  // what the batch dispatch the generated tables carry needs of the engine (a Peer, structurally)
  'engine/batch.ts:BatchHost',
  // the apps view's and host's lookups of a message's params and result in the generated maps
  'apps/view.ts:Params',
  'apps/view.ts:Result',
  'apps/view.ts:InitResult',
  'apps/view.ts:HostNote',
  'apps/host.ts:HostNote',
  'apps/host.ts:ViewNote',
  'apps/host.ts:Callback',
  'features/app-ui.ts:Obj',
].map((entry) => `runtime/${entry}`);

/** The navigation category of the guide's pages in the runtime site. */
const GUIDE_CATEGORY = 'guide';

/** The navigation category of the manual's pages (the front page, docs/, the policies) in the runtime site. */
const MANUAL_CATEGORY = 'manual';

/** The project's files beside README.md that the site carries after the manual, in this order. */
const POLICY_FILES = [
  'TIER.md',
  'VERSIONING.md',
  'CHANGELOG.md',
  'DEPENDENCY_POLICY.md',
  'ROADMAP.md',
  'SECURITY.md',
  'CONTRIBUTING.md',
];

/** A page of the feature guide: its file and its title (its first `# ` heading, else its file name). */
export interface GuidePage {
  file: string;
  title: string;
}

/**
 * The pages of the feature guide in `dir` (default docs/guide/): the index README.md first,
 * then the pages in the order the index links them, then any page it does not link, by name.
 * Empty when there is no index.
 */
export function guidePages(dir = join(ROOT, 'docs', 'guide')): GuidePage[] {
  const index = join(dir, 'README.md');
  if (!existsSync(index)) return [];
  const slugs = readdirSync(dir)
    .filter((f) => f.endsWith('.md') && f !== 'README.md')
    .map((f) => f.slice(0, -3))
    .sort();
  const listed = [...readFileSync(index, 'utf8').matchAll(/\]\((?:\.\/)?([a-z0-9][a-z0-9-]*)\.md\)/g)]
    .map((m) => m[1])
    .filter((s) => slugs.includes(s));
  const files = [index, ...new Set([...listed, ...slugs])].map((s) => (s === index ? index : join(dir, `${s}.md`)));
  return files.map((file) => ({ file, title: titleOf(file) }));
}

/** A markdown file's title: its first `# ` heading, else its file name. */
function titleOf(file: string): string {
  return /^# +(.+?) *$/m.exec(readFileSync(file, 'utf8'))?.[1] ?? basename(file, '.md');
}

/**
 * The pages of the manual: the front page README.md, the manual's index docs/README.md, the pages
 * of docs/ in the order the index links them (then any it does not link, by name), and the
 * policy files ({@link POLICY_FILES}) that exist. The feature guide (docs/guide/) is
 * {@link guidePages}.
 */
export function manualPages(root = ROOT): GuidePage[] {
  const docs = join(root, 'docs');
  const index = join(docs, 'README.md');
  const slugs = existsSync(docs)
    ? readdirSync(docs)
        .filter((f) => f.endsWith('.md') && f !== 'README.md')
        .map((f) => f.slice(0, -3))
        .sort()
    : [];
  const listed = existsSync(index)
    ? [...readFileSync(index, 'utf8').matchAll(/\]\((?:\.\/)?([a-z0-9][a-z0-9-]*)\.md(?:#[^)]*)?\)/g)]
        .map((m) => m[1])
        .filter((s) => slugs.includes(s))
    : [];
  const files = [
    join(root, 'README.md'),
    ...(existsSync(index) ? [index] : []),
    ...[...new Set([...listed, ...slugs])].map((s) => join(docs, `${s}.md`)),
    ...POLICY_FILES.map((f) => join(root, f)),
  ].filter((f) => existsSync(f));
  return files.map((file) => ({ file, title: titleOf(file) }));
}

/** Options of {@link buildRuntimeDocs}. */
export interface RuntimeDocsOptions {
  /** Output folder of the HTML (default `docs-html/runtime`). */
  out?: string;
  /** Also writes typedoc's JSON model there (for the docs tests). */
  json?: string;
}

/**
 * Builds the docs of the runtime package: one module per public subpath (named by its
 * specifier, in a category named by its layer), runtime/README.md as the introduction, the
 * manual's pages ({@link manualPages}) as documents in the first category, `manual`, and the
 * guide's ({@link guidePages}) in the second, `guide`. Each document is titled by its first
 * heading; titles must be unique (they name the pages).
 * Warnings count as errors, like {@link buildDocs}.
 * @throws Error naming both files when two pages have one title.
 */
export async function buildRuntimeDocs(options: RuntimeDocsOptions = {}): Promise<DocsResult> {
  const out = resolve(options.out ?? join(ROOT, 'docs-html', 'runtime'));
  const entries = runtimeEntries();
  const manual = manualPages();
  const guide = guidePages();
  const pages = [
    ...manual.map((p) => ({ ...p, category: MANUAL_CATEGORY })),
    ...guide.map((p) => ({ ...p, category: GUIDE_CATEGORY })),
  ];
  const byTitle = new Map<string, (typeof pages)[number]>();
  for (const p of pages) {
    const seen = byTitle.get(p.title);
    if (seen)
      throw new Error(`${relative(ROOT, seen.file)} and ${relative(ROOT, p.file)} have one title, "${p.title}"`);
    byTitle.set(p.title, p);
  }
  return buildSite({
    revision: 'runtime',
    out,
    entryPoints: entries.map((e) => e.file),
    compilerOptions: { typeRoots: [join(ROOT, 'node_modules', '@types')] },
    json: options.json,
    options: {
      name: '@mcpgen/runtime',
      readme: join(ROOT, 'runtime', 'README.md'),
      // the manual (README.md, docs/, the policies), then the feature guide (docs/guide/), each in
      // the order its index lists the pages
      projectDocuments: pages.map((g) => g.file),
      // the languages the guide's pages show besides TypeScript (the bindings page)
      highlightLanguages: [...OptionDefaults.highlightLanguages, 'python', 'go', 'rust', 'toml'],
      // helper types public signatures mention but the package does not export (rendered inline by name)
      intentionallyNotExported: INTERNAL_TYPES,
      categorizeByGroup: false,
      defaultCategory: 'runtime',
      categoryOrder: [MANUAL_CATEGORY, GUIDE_CATEGORY, '*'],
      navigation: {
        includeCategories: true,
        includeGroups: false,
        includeFolders: false,
        compactFolders: false,
        excludeReferences: false,
      },
    },
    rewrittenLink: true,
    setup: (app) => {
      // each page: titled by its heading (found in its text: several pages are README.md), in its
      // category (the manual's first in the navigation, the guide's second)
      app.converter.on(Converter.EVENT_CREATE_DOCUMENT, (_context: undefined, doc: DocumentReflection) => {
        const text = doc.content.map((part) => part.text).join('');
        const page = byTitle.get(/^# +(.+?) *$/m.exec(text)?.[1] ?? '');
        if (!page) return;
        doc.name = page.title;
        doc.frontmatter.category = page.category;
      });
      // each entry module: named by its package specifier, in its layer's category
      app.converter.on(
        Converter.EVENT_RESOLVE_BEGIN,
        (context: Context) => {
          for (const mod of context.project.getReflectionsByKind(ReflectionKind.Module)) {
            const entry = entries.find((e) => moduleName(e.file) === mod.name);
            if (!entry) continue;
            mod.name = entry.specifier;
            mod.comment?.blockTags.push(new CommentTag('@category', [{ kind: 'text', text: entry.layer }]));
          }
        },
        1000,
      );
    },
  });
}

/** One typedoc site: what {@link buildRuntimeDocs} and {@link buildDocs} differ in. */
interface SiteSpec {
  /** `runtime` or the revision id, for the result. */
  revision: string;
  /** Absolute output folder. */
  out: string;
  entryPoints: string[];
  /** The compiler options of the site's tsconfig (it extends the project's, holding only the entry points). */
  compilerOptions: Record<string, unknown>;
  /** The options of this site; the ones every site shares are {@link buildSite}'s. */
  options: Partial<TypeDocOptions>;
  /** typedoc's `validation.rewrittenLink`: whether a link typedoc rewrote warns. */
  rewrittenLink: boolean;
  /** Registers the site's converter hooks. */
  setup: (app: Application) => void;
  /** Also writes typedoc's JSON model there. */
  json?: string;
}

/**
 * Converts, validates and renders one site with the options every site shares: no sources, no
 * private or internal members, warnings as errors, every validation but `notDocumented`. Never
 * throws for a typedoc failure: the result counts its errors and warnings.
 */
async function buildSite(spec: SiteSpec): Promise<DocsResult> {
  const { revision, out } = spec;
  const tmp = mkdtempSync(join(tmpdir(), 'mcpgen-docs-'));
  try {
    const tsconfig = join(tmp, 'tsconfig.json');
    writeFileSync(
      tsconfig,
      JSON.stringify({
        extends: join(ROOT, 'tsconfig.json'),
        compilerOptions: spec.compilerOptions,
        include: [],
        files: spec.entryPoints,
      }),
    );
    const app = await Application.bootstrapWithPlugins({
      entryPoints: spec.entryPoints,
      tsconfig,
      out,
      ...spec.options,
      disableSources: true,
      excludePrivate: true,
      excludeInternal: true,
      treatWarningsAsErrors: true,
      validation: {
        notExported: true,
        invalidLink: true,
        invalidPath: true,
        rewrittenLink: spec.rewrittenLink,
        notDocumented: false,
        unusedMergeModuleWith: true,
      },
      githubPages: false,
      plugin: [],
    });
    spec.setup(app);
    // every page links the home of the one site (`<root>/index.html`, one level above each site's folder)
    app.renderer.hooks.on('content.begin', (context) =>
      JSX.createElement(
        'nav',
        { class: 'mcpgen-home', 'aria-label': 'mcpgen documentation' },
        JSX.createElement('a', { href: context.relativeURL('../index.html') }, '← mcpgen documentation'),
      ),
    );
    const fail = (): DocsResult => ({
      revision,
      out,
      ok: false,
      errors: app.logger.errorCount,
      warnings: app.logger.warningCount,
    });
    if (app.logger.hasErrors() || app.logger.hasWarnings()) return fail();
    const project = await app.convert();
    if (!project || app.logger.hasErrors() || app.logger.hasWarnings()) return fail();
    app.validate(project);
    if (app.logger.hasErrors() || app.logger.hasWarnings() || app.logger.validationWarningCount) return fail();
    await app.generateOutputs(project);
    if (spec.json) await app.generateJson(project, spec.json);
    if (app.logger.hasErrors() || app.logger.hasWarnings()) return fail();
    return { revision, out, ok: true, errors: 0, warnings: 0 };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** What {@link writeHome} links: the sites of one `npm run docs` output folder. */
export interface HomeSites {
  /** Whether `<root>/runtime/` holds the runtime site (with the manual and the guide). */
  runtime: boolean;
  /** The revisions whose reference is in `<root>/<rev>/`. */
  revisions: string[];
}

const escapeHtml = (s: string) =>
  s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');
const unescapeHtml = (s: string) =>
  s
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&quot;', '"')
    .replaceAll('&#39;', "'")
    .replaceAll('&amp;', '&');

/**
 * The document pages of the runtime site in `site` (typedoc's `documents/*.html`), by title
 * (each page's `<title>` up to its ` | ` suffix), as paths relative to `site`.
 */
export function documentPages(site: string): Map<string, string> {
  const dir = join(site, 'documents');
  const out = new Map<string, string>();
  if (!existsSync(dir)) return out;
  for (const f of readdirSync(dir).sort()) {
    if (!f.endsWith('.html')) continue;
    const m = /<title>(.*?) \| [^<]*<\/title>/.exec(readFileSync(join(dir, f), 'utf8'));
    if (m) out.set(unescapeHtml(m[1]), `documents/${f}`);
  }
  return out;
}

/**
 * Writes `<root>/index.html`, the home of the one docs site: the manual's pages (in
 * {@link manualPages} order), the guide's index, and the API reference of the runtime and of each
 * revision, every link relative (the folder can be served anywhere, or opened as files).
 * @throws Error when a manual page has no document page in `<root>/runtime/`.
 */
export function writeHome(root: string, sites: HomeSites): string {
  const items: string[] = [];
  const link = (href: string, text: string) => `<li><a href="${escapeHtml(href)}">${escapeHtml(text)}</a></li>`;
  if (sites.runtime) {
    const docs = documentPages(join(root, 'runtime'));
    const pageOf = (title: string) => {
      const page = docs.get(title);
      if (!page) throw new Error(`no document page "${title}" in ${join(root, 'runtime', 'documents')}`);
      return `runtime/${page}`;
    };
    items.push('<h2>Manual</h2>', '<ul>', ...manualPages().map((p) => link(pageOf(p.title), p.title)), '</ul>');
    const guide = guidePages();
    if (guide.length)
      items.push('<h2>Feature guide</h2>', '<ul>', ...guide.map((p) => link(pageOf(p.title), p.title)), '</ul>');
  }
  items.push('<h2>API reference</h2>', '<ul>');
  if (sites.runtime) items.push(link('runtime/modules.html', '@mcpgen/runtime: every public subpath'));
  for (const rev of sites.revisions) items.push(link(`${rev}/index.html`, `MCP ${rev}: the generated code`));
  items.push('</ul>');
  const html = [
    '<!doctype html>',
    '<html lang="en">',
    '<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
    '<title>mcpgen documentation</title>',
    '<style>body{font:16px/1.5 system-ui,sans-serif;max-width:48rem;margin:2rem auto;padding:0 1rem}h2{margin-top:2rem}</style>',
    '</head>',
    '<body>',
    '<h1 id="mcpgen-documentation">mcpgen documentation</h1>',
    '<p>The manual, the feature guide and the API reference of mcpgen, a schema-first code generator for the Model Context Protocol.</p>',
    ...items,
    '</body>',
    '</html>',
    '',
  ].join('\n');
  const file = join(root, 'index.html');
  writeFileSync(file, html);
  return file;
}

/** A link of the HTML output that does not resolve. */
export interface BrokenLink {
  /** The page holding it, relative to the site folder. */
  page: string;
  href: string;
  why: string;
}

/**
 * Checks every `href` of every page under `site`, offline: a relative link must name a file of the
 * site (and its `#anchor` an `id` of that page); a link to a spec page
 * (`https://modelcontextprotocol.io/specification/<rev>/<path>`) must name a page of
 * `<specDir>/docs/<rev>/` (`<path>.mdx`, `<path>.md` or `<path>/index.mdx`; anchors not checked).
 * Other absolute links are not followed. Spec links of a revision `specDir` holds no pages for
 * (the inputs carry docs for some revisions only) cannot be checked offline: they are counted
 * in `unchecked`, by revision. `only` limits the check to those pages (paths relative to `site`).
 * The link every page has to the home of the one site (`<site>/../index.html`, written once
 * every site built, then checked by the Chromium test) is not checked here.
 */
export function checkLinks(
  site: string,
  specDir: string,
  only?: readonly string[],
): { broken: BrokenLink[]; unchecked: Map<string, number> } {
  const broken: BrokenLink[] = [];
  const unchecked = new Map<string, number>();
  const ids = new Map<string, Set<string>>();
  const idsOf = (file: string): Set<string> => {
    let set = ids.get(file);
    if (!set) {
      set = new Set([...readFileSync(file, 'utf8').matchAll(/\sid="([^"]+)"/g)].map((m) => m[1]));
      ids.set(file, set);
    }
    return set;
  };
  const home = resolve(site, '..', 'index.html');
  const pages = only ?? readdirSync(site, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.html'));
  for (const page of pages) {
    const file = join(site, page);
    for (const m of readFileSync(file, 'utf8').matchAll(/\shref="([^"]*)"/g)) {
      const href = m[1].replaceAll('&amp;', '&');
      const spec = /^https:\/\/modelcontextprotocol\.io\/specification\/([^/#?]+)\/?([^#?]*)/.exec(href);
      if (spec) {
        const [, rev, path] = spec;
        if (!existsSync(join(specDir, 'docs', rev))) {
          unchecked.set(rev, (unchecked.get(rev) ?? 0) + 1);
          continue;
        }
        const base = join(specDir, 'docs', rev, path.replace(/\/$/, ''));
        const found =
          ['.mdx', '.md', '/index.mdx', '/index.md'].some((ext) => existsSync(base + ext)) &&
          !path.split('/').includes('..');
        if (!found)
          broken.push({ page, href, why: `no spec page ${rev}/${path || 'index'} under ${join(specDir, 'docs')}` });
        continue;
      }
      if (/^[a-z][a-z0-9+.-]*:/i.test(href)) continue;
      if (href.startsWith('/')) {
        broken.push({ page, href, why: 'a site-absolute path, outside the docs' });
        continue;
      }
      const [path, anchor] = href.split('#', 2) as [string, string | undefined];
      const target = path ? resolve(dirname(file), decodeURIComponent(path)) : file;
      // the home of the one site, one level above each site's folder, is written after every site built
      if (target === home && !anchor) continue;
      if (!existsSync(target)) {
        broken.push({ page, href, why: 'no such page' });
        continue;
      }
      // hierarchy.html draws its entries (and their ids) from assets/hierarchy.js in the browser
      if (
        anchor &&
        target.endsWith('.html') &&
        basename(target) !== 'hierarchy.html' &&
        !idsOf(target).has(decodeURIComponent(anchor))
      ) {
        broken.push({ page, href, why: `no id "${anchor}" on that page` });
      }
    }
  }
  return { broken, unchecked };
}

/** The module name typedoc derives for a runtime entry file: its path under runtime/, no `.ts`, no `/index`. */
function moduleName(file: string): string {
  return relative(join(ROOT, 'runtime'), file)
    .split(sep)
    .join('/')
    .replace(/\.ts$/, '')
    .replace(/\/index$/, '');
}

/** Builds the docs of one revision; never throws for a typedoc failure, reports it instead. */
export async function buildDocs(revision: string, options: DocsOptions = {}): Promise<DocsResult> {
  const generated = resolve(options.generated ?? join(ROOT, 'generated'));
  const out = resolve(options.out ?? join(ROOT, 'docs-html'), revision);
  const entry = join(generated, revision, 'index.ts');
  if (!existsSync(entry)) throw new Error(`${entry}: no generated revision ${revision} (run npm run generate)`);
  return buildSite({
    revision,
    out,
    entryPoints: [entry],
    // the runtime's own dependencies (ajv, …) resolve from mcpgen's node_modules wherever the output is
    compilerOptions: {
      rootDir: '/',
      typeRoots: [join(ROOT, 'node_modules', '@types')],
      paths: { '*': [join(ROOT, 'node_modules', '*')] },
    },
    options: { name: `MCP ${revision}`, readme: 'none', blockTags: [...OptionDefaults.blockTags, ...SCHEMA_TAGS] },
    // links into members of inline object types (`ClientCapabilities.sampling.tools`) go to
    // the nearest documented anchor (`sampling`): typedoc gives such members no page anchor
    rewrittenLink: false,
    setup: (app) => {
      // before the link resolver (priority -300)
      app.converter.on(Converter.EVENT_RESOLVE_END, (context: Context) => void repairFusedLinks(context), 100);
      app.converter.on(Converter.EVENT_RESOLVE_END, (context: Context) => void publishSpecLinks(context.project), 100);
    },
  });
}

/**
 * `{@link CallToolRequesttools/call}`: how the descriptions of schema.json (2026-07-28, draft)
 * carry schema.ts's `{@link CallToolRequest | tools/call}`, the separator lost. Matched only
 * when the type is documented in the revision; any other broken link still warns.
 */
const FUSED_LINK = /^([A-Z][A-Za-z0-9]*?(?:Request|Notification|Result))([a-z][A-Za-z0-9_]*(?:\/[A-Za-z0-9_]+)+)$/;

/** Restores the separator of fused links before typedoc resolves them; returns how many. */
function repairFusedLinks(context: Context): number {
  const project = context.project;
  let repaired = 0;
  const fix = (parts: readonly CommentDisplayPart[]) => {
    for (const part of parts) {
      if (part.kind !== 'inline-tag' || part.tag !== '@link') continue;
      const m = FUSED_LINK.exec(part.text.trim());
      if (m && project.getChildByName(m[1])) {
        part.text = `${m[1]} | ${m[2]}`;
        repaired++;
      }
    }
  };
  for (const r of Object.values(project.reflections)) {
    if (!r.comment) continue;
    fix(r.comment.summary);
    for (const tag of r.comment.blockTags) fix(tag.content);
  }
  return repaired;
}

async function main(argv: string[]): Promise<number> {
  let parsed: ReturnType<typeof parseFlags>;
  try {
    parsed = parseFlags(argv, { generated: { type: 'string' }, out: { type: 'string' }, rev: { type: 'string' } });
    if (parsed.values.out !== undefined)
      prepareOutDir(`--out ${String(parsed.values.out)}`, parsed.values.out as string);
  } catch (e) {
    if (e instanceof OutputError) {
      console.error(`docs: ${e.message}`);
      return 3;
    }
    console.error(
      `docs: ${(e as Error).message}\nusage: npm run docs -- [<rev>…|--rev <rev>[,<rev>…]] [--generated DIR] [--out DIR]`,
    );
    return 2;
  }
  const { positionals } = parsed;
  const values = parsed.values as { generated?: string; out?: string; rev?: string };
  const generated = resolve(values.generated ?? join(ROOT, 'generated'));
  const named = [...positionals, ...(values.rev ? values.rev.split(',') : [])];
  const specDir = resolve(process.env.MCP_SPEC_DIR ?? join(ROOT, '..', 'mcp-spec'));
  const revisions = named.length ? named : ['runtime', ...generatedRevisions(generated)];
  if (!revisions.length) {
    console.error(`docs: no generated revisions in ${generated} (run npm run generate)`);
    return 1;
  }
  let failed = 0;
  for (const rev of revisions) {
    const t0 = performance.now();
    const took = () => `${(performance.now() - t0).toFixed(0)}ms`;
    let r: DocsResult;
    try {
      r =
        rev === 'runtime'
          ? await buildRuntimeDocs(values.out ? { out: join(resolve(values.out), 'runtime') } : {})
          : await buildDocs(rev, { generated, out: values.out });
      if (r.ok) {
        const { broken, unchecked } = checkLinks(r.out, specDir);
        for (const [specRev, n] of unchecked)
          console.log(
            `${rev}: ${n} link(s) to ${specRev} spec pages not checked (no ${join(specDir, 'docs', specRev)})`,
          );
        for (const b of broken) console.error(`${rev}: broken link in ${b.page}: ${b.href} (${b.why})`);
        if (broken.length) r = { ...r, ok: false, errors: r.errors + broken.length };
      }
    } catch (e) {
      failed++;
      console.error(`${rev}: FAILED: ${(e as Error).message}`);
      continue;
    }
    if (!r.ok) failed++;
    console.log(
      r.ok
        ? `${rev}: ${r.out} (${took()})`
        : `${rev}: FAILED with ${r.errors} error(s), ${r.warnings} warning(s) (${took()})`,
    );
  }
  if (!failed) {
    // the home of the one site: links to every site the output folder holds (this run's, and any
    // revision an earlier run built there), link-checked like the rest
    const root = resolve(values.out ?? join(ROOT, 'docs-html'));
    const built = readdirSync(root, { withFileTypes: true })
      .filter((e) => e.isDirectory() && existsSync(join(root, e.name, 'index.html')))
      .map((e) => e.name)
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    try {
      const home = writeHome(root, {
        runtime: built.includes('runtime'),
        revisions: built.filter((n) => n !== 'runtime'),
      });
      const { broken } = checkLinks(root, specDir, ['index.html']);
      for (const b of broken) console.error(`home: broken link in ${b.page}: ${b.href} (${b.why})`);
      if (broken.length) failed++;
      else console.log(`home: ${home}`);
    } catch (e) {
      failed++;
      console.error(`home: FAILED: ${(e as Error).message}`);
    }
  }
  console.log(
    failed
      ? `docs: ${failed} of ${revisions.length} revision(s) (or the home page) failed`
      : `docs: ${revisions.length} revision(s), no warnings; the site's home is ${join(resolve(values.out ?? join(ROOT, 'docs-html')), 'index.html')}`,
  );
  return failed ? 1 : 0;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await main(process.argv.slice(2));
}
