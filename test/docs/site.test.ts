/**
 * The docs site in a real browser: headless Chromium (Debian's `chromium`, driven by
 * puppeteer-core, as test/web/browser.test.ts) loads, over HTTP from 127.0.0.1, the home page
 * of the site `npm run docs` builds, the runtime site's index and module list, and every page of
 * the manual and the guide (test/docs/runtime-site.ts builds them once per run). Each page must
 * answer 200, run its scripts without an error (no `pageerror`, no console error, no failed
 * request), and every link on it as the browser resolves it (the navigation typedoc's script
 * draws included) must name a page or file of the site, and its `#anchor` an element of that
 * page (for a rendered page, once its scripts ran; for the API pages it links, in their HTML).
 * Every page of the runtime site links back to the home.
 */
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, sep } from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { documentPages, guidePages, manualPages } from '../../scripts/docs.js';
import { type RuntimeSite, runtimeSite } from './runtime-site.js';
import { launchChromium, requireChromium } from '../web/chromium.js';

const test = suite('docs site: every page renders in headless Chromium, every link and anchor resolves');

// a loaded runner (load 20+ on 2 cores) takes most of a minute to start Chromium
const SETUP_MS = 120_000;
const PAGE_MS = 60_000;

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.svg': 'image/svg+xml',
  '.json': 'application/json',
};

let site: RuntimeSite | undefined;
let server: Server | undefined;
let origin = '';
let browser: Browser | undefined;
let setupError: unknown;
/** Every request the pages made that did not answer 2xx/3xx: `path status`. */
const failedRequests: string[] = [];

/** A static server of `root`: GET of a file below it, 404 otherwise (no listing, nothing outside). */
function serve(root: string): Server {
  return createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    const file = normalize(join(root, path.endsWith('/') ? `${path}index.html` : path));
    const inside = file === root || file.startsWith(root + sep);
    if (req.method !== 'GET' || !inside || !existsSync(file) || !statSync(file).isFile()) {
      // Chromium asks every origin for /favicon.ico on its own: not a link of the site
      if (path !== '/favicon.ico') failedRequests.push(`${path} ${req.method === 'GET' ? 404 : 405}`);
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream' });
    res.end(readFileSync(file));
  });
}

test.before(async () => {
  try {
    requireChromium();
    site = await runtimeSite();
    if (!site.ok) throw new Error(`the site did not build: ${site.errors} error(s), ${site.warnings} warning(s)`);
    server = serve(site.root);
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await launchChromium(SETUP_MS);
  } catch (e) {
    setupError = e;
  }
});

test.after(async () => {
  await browser?.close();
  await new Promise((r) => (server ? server.close(r) : r(undefined)));
});

/** What one page showed in the browser. */
interface Visit {
  path: string;
  status: number | undefined;
  errors: string[];
  /** Every same-origin link of the page, resolved: pathname and hash. */
  links: { path: string; hash: string }[];
  /** The ids of the page's elements once its scripts ran. */
  ids: Set<string>;
}

async function visit(page: Page, path: string): Promise<Visit> {
  const errors: string[] = [];
  const onConsole = (m: { type(): string; text(): string; location(): { url?: string } }) => {
    if (m.type() === 'error' && !m.location().url?.endsWith('/favicon.ico')) errors.push(`console: ${m.text()}`);
  };
  const onError = (e: unknown) => errors.push(`pageerror: ${String(e)}`);
  page.on('console', onConsole);
  page.on('pageerror', onError);
  try {
    const response = await page.goto(`${origin}/${path}`, { waitUntil: 'load', timeout: PAGE_MS });
    // typedoc's script draws the navigation from assets/navigation.js after load
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0))));
    const found = await page.evaluate(() => ({
      links: [...document.querySelectorAll('a[href]')].map((a) => (a as HTMLAnchorElement).href),
      ids: [...document.querySelectorAll('[id]')].map((e) => e.id),
    }));
    const links = found.links
      .map((href) => new URL(href))
      .filter((u) => u.origin === origin)
      .map((u) => ({ path: decodeURIComponent(u.pathname), hash: decodeURIComponent(u.hash.slice(1)) }));
    return { path, status: response?.status(), errors, links, ids: new Set(found.ids) };
  } finally {
    page.off('console', onConsole);
    page.off('pageerror', onError);
  }
}

/** The pages visited: the home, the runtime site's index and module list, every document page. */
function pagesToVisit(s: RuntimeSite): string[] {
  return [
    'index.html',
    'runtime/index.html',
    'runtime/modules.html',
    ...[...documentPages(s.html).values()].map((p) => `runtime/${p}`),
  ];
}

/** What {@link checkPages} found: problems, and what it looked at. */
interface Checked {
  problems: string[];
  visited: number;
  loaded: number;
  links: number;
  /** The visited pages of a site (not the home itself) without a link to the home, `/index.html`. */
  withoutHome: string[];
}

/**
 * Visits `paths` (relative to the site root) and checks them: status 200, no error, and every
 * same-origin link a page of the site or an existing file (an asset), its `#anchor` an element id
 * of that page: after its scripts ran for a visited page; in its HTML for the others (the API
 * pages the navigation links: hundreds, whose ids typedoc writes statically).
 */
async function checkPages(page: Page, root: string, paths: string[]): Promise<Checked> {
  const visited = new Map<string, Visit>();
  for (const path of paths) visited.set(`/${path}`, await visit(page, path));
  const problems: string[] = [];
  for (const v of visited.values()) {
    if (v.status !== 200) problems.push(`${v.path}: status ${v.status}`);
    problems.push(...v.errors.map((e) => `${v.path}: ${e}`));
  }
  const pathOf = (p: string) => (p.endsWith('/') ? `${p}index.html` : p);
  const targets = new Map<string, Pick<Visit, 'status' | 'ids'> | undefined>(visited);
  for (const v of visited.values())
    for (const l of v.links) {
      const path = pathOf(l.path);
      if (targets.has(path) || !path.endsWith('.html')) continue;
      const file = join(root, path);
      const html = existsSync(file) ? readFileSync(file, 'utf8') : undefined;
      targets.set(path, {
        status: html === undefined ? 404 : 200,
        ids: new Set(html === undefined ? [] : [...html.matchAll(/\sid="([^"]+)"/g)].map((m) => m[1])),
      });
    }
  let links = 0;
  for (const v of visited.values())
    for (const l of v.links) {
      links++;
      const path = pathOf(l.path);
      const target = targets.get(path);
      if (!target) {
        // an asset (a stylesheet, the icon sprite, a copied example file): it must exist; the
        // sprite's fragments (icons.svg#icon-x) name symbols, not page anchors
        if (!existsSync(join(root, path))) problems.push(`${v.path}: link to ${path}: no such file`);
        continue;
      }
      if (target.status !== 200) problems.push(`${v.path}: link to ${path}: status ${target.status}`);
      else if (l.hash && !target.ids.has(l.hash))
        problems.push(`${v.path}: link to ${path}#${l.hash}: no element with that id`);
    }
  const withoutHome = [...visited.values()]
    .filter((v) => v.path !== 'index.html' && !v.links.some((l) => l.path === '/index.html'))
    .map((v) => v.path);
  return { problems, visited: visited.size, loaded: targets.size - visited.size, links, withoutHome };
}

test('every page of the manual and the guide loads in Chromium without an error, and every link and anchor on it resolves', async () => {
  if (setupError !== undefined) assert.unreachable(`set-up failed: ${String(setupError)}`);
  const page = await browser!.newPage();
  const t0 = performance.now();
  try {
    const r = await checkPages(page, site!.root, pagesToVisit(site!));
    console.log(
      `  docs site: ${r.visited} pages rendered, ${r.loaded} linked pages read, ${r.links} links checked in ${((performance.now() - t0) / 1000).toFixed(1)}s`,
    );
    // the home, the runtime's index and module list, and a page per manual and guide page
    assert.is(r.visited, 3 + manualPages().length + guidePages().length);
    assert.ok(r.links > 1000, `only ${r.links} links`);
    assert.equal(r.problems, []);
    assert.equal(r.withoutHome, [], 'pages without a link back to the home of the site');
    assert.equal(failedRequests, [], 'requests of the pages that failed');
  } finally {
    await page.close();
  }
});

test('the check reports a missing page, a missing anchor and a script error (a page written here)', async () => {
  if (setupError !== undefined) assert.unreachable(`set-up failed: ${String(setupError)}`);
  const bad = join(site!.root, 'bad.html');
  writeFileSync(
    bad,
    [
      '<!doctype html><title>bad</title><h1 id="top">bad</h1>',
      '<a href="#top">fine</a> <a href="runtime/index.html">fine</a>',
      '<a href="runtime/documents/no-such-page.html">gone</a>',
      '<a href="runtime/index.html#no-such-anchor">no anchor</a>',
      '<a href="runtime/no-such-asset.css">no asset</a>',
      '<script>undefinedFunction()</script>',
    ].join('\n'),
  );
  const page = await browser!.newPage();
  const before = failedRequests.length;
  try {
    const r = await checkPages(page, site!.root, ['bad.html']);
    assert.equal(r.problems.sort(), [
      'bad.html: link to /runtime/documents/no-such-page.html: status 404',
      'bad.html: link to /runtime/index.html#no-such-anchor: no element with that id',
      'bad.html: link to /runtime/no-such-asset.css: no such file',
      'bad.html: pageerror: ReferenceError: undefinedFunction is not defined',
    ]);
    // the missing page was checked on disk; the browser asked for nothing that failed
    assert.equal(failedRequests.splice(before), []);
  } finally {
    await page.close();
    rmSync(bad);
  }
});

test.run();
