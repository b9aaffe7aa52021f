/**
 * The fetch client in a real browser: headless Chromium (Debian's `chromium`, driven by
 * puppeteer-core) loads a page served here on 127.0.0.1 whose script is the esbuild bundle
 * (`platform: 'browser'`) of ./fixtures/page.ts, and that page talks to real `mcpgen serve
 * --http` processes of both eras on another origin, allowed with `--cors-origin`: tools listed
 * and called, progress, an elicitation answered by the page, a call cancelled by an
 * AbortSignal. One browser serves every test.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { Browser, Page } from 'puppeteer-core';
import { bin, root, startHttpServeProcess, type Served } from '../runtime/tasks/serve-process.js';
import { launchChromium, requireChromium } from './chromium.js';

const entry = fileURLToPath(new URL('./fixtures/page.ts', import.meta.url));

let pageServer: Server | undefined;
let origin = '';
let browser: Browser | undefined;
let page: Page | undefined;
const served: Served[] = [];
let sessionsUrl = '';
let statelessUrl = '';

// Set-up gets generous limits: a loaded CI machine (load 4+ on 2 cores) can take most of a minute
// to start Chromium and the two servers. A set-up failure is kept and reported by every test that
// needs the browser (uvu prints no FAIL line for a failed `before` hook).
const SETUP_MS = 90_000;
let setupError: unknown;

/** Fails the calling test with the set-up error, if the set-up failed. */
function needSetup(): void {
  if (setupError === undefined) return;
  assert.unreachable(`browser set-up failed: ${String(setupError)}`);
}

async function setUp(): Promise<void> {
  requireChromium();
  const bundle = await build({
    entryPoints: [entry],
    bundle: true,
    platform: 'browser',
    format: 'esm',
    write: false,
    logLevel: 'silent',
  });
  const script = bundle.outputFiles[0].text;
  assert.not.match(script, /from\s*["']node:/, 'the browser bundle imports no node: module');
  const html =
    '<!doctype html><meta charset="utf-8"><title>loading</title><script type="module" src="/page.js"></script>';
  pageServer = createServer((req, res) => {
    if (req.url === '/page.js') res.writeHead(200, { 'Content-Type': 'text/javascript' }).end(script);
    else if (req.url === '/') res.writeHead(200, { 'Content-Type': 'text/html' }).end(html);
    else res.writeHead(404).end();
  });
  await new Promise<void>((r) => pageServer!.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(pageServer.address() as AddressInfo).port}`;
  const started = await Promise.allSettled([
    startHttpServeProcess(['--rev', '2025-11-25', '--cors-origin', origin]),
    startHttpServeProcess(['--rev', '2026-07-28', '--modern-only', '--cors-origin', origin]),
  ]);
  for (const s of started) if (s.status === 'fulfilled') served.push(s.value);
  for (const s of started) if (s.status === 'rejected') throw s.reason;
  const [sessions, stateless] = served;
  sessionsUrl = sessions.url;
  statelessUrl = stateless.url;
  browser = await launchChromium(SETUP_MS);
  page = await browser.newPage();
  await page.goto(`${origin}/`, { timeout: SETUP_MS });
  await page.waitForFunction(() => document.title === 'ready', { timeout: SETUP_MS });
}

test.before(async () => {
  try {
    await setUp();
  } catch (e) {
    setupError = e;
  }
});

test.after(async () => {
  await browser?.close();
  await Promise.all(served.map((s) => s.stop()));
  await new Promise((r) => (pageServer ? pageServer.close(r) : r(undefined)));
});

type Seen = {
  protocolVersion: string;
  sessionId: string | null;
  tools: string[];
  simple: string;
  progressResult: string;
  progress: number[];
  elicitation: string;
  elicited: string[];
  cancelled: string;
  cancelMs: number;
  after: string;
};
const runIn = (url: string, era: 'sessions' | 'stateless'): Promise<Seen> =>
  page!.evaluate(
    (u, e) => (globalThis as unknown as { mcpRun(u: string, e: string): Promise<Seen> }).mcpRun(u, e),
    url,
    era,
  );

test('the page and the servers are on different origins (CORS is needed)', () => {
  needSetup();
  assert.is.not(new URL(sessionsUrl).origin, origin);
  assert.is.not(new URL(statelessUrl).origin, origin);
});

test('2025-11-25 from Chromium: session, tools, progress, elicitation answered by the page, a cancelled call', async () => {
  needSetup();
  const seen = await runIn(sessionsUrl, 'sessions');
  assert.is(seen.protocolVersion, '2025-11-25');
  // the page read Mcp-Session-Id from the response: the header is exposed
  assert.match(seen.sessionId ?? '', /^[\x21-\x7e]+$/);
  for (const name of ['test_simple_text', 'test_tool_with_progress', 'test_elicitation', 'slow_compute'])
    assert.ok(seen.tools.includes(name), name);
  assert.is(seen.simple, 'This is a simple text response for testing.');
  assert.is(seen.progressResult, 'Progress completed');
  assert.equal(seen.progress, [0, 50, 100]);
  assert.equal(seen.elicited, ['Who is there?']);
  assert.is(seen.elicitation, 'User response: action=accept, content={"username":"page","email":"page@example.com"}');
  assert.match(seen.cancelled, /cancelled by the page/);
  assert.ok(seen.cancelMs < 5_000, `the cancelled call ended after ${seen.cancelMs} ms`);
  assert.is(seen.after, 'This is a simple text response for testing.');
});

test('2026-07-28 from Chromium: stateless, tools, progress, an input_required elicitation answered by the page, a cancelled call', async () => {
  needSetup();
  const seen = await runIn(statelessUrl, 'stateless');
  assert.is(seen.protocolVersion, '2026-07-28');
  assert.is(seen.sessionId, null);
  for (const name of [
    'test_simple_text',
    'test_tool_with_progress',
    'test_input_required_result_elicitation',
    'slow_compute',
  ])
    assert.ok(seen.tools.includes(name), name);
  assert.is(seen.simple, 'This is a simple text response for testing.');
  assert.is(seen.progressResult, 'Progress completed');
  assert.equal(seen.progress, [0, 50, 100]);
  assert.equal(seen.elicited, ['What is your name?']);
  assert.is(seen.elicitation, 'Hello, Chromium!');
  assert.match(seen.cancelled, /cancelled by the page/);
  assert.ok(seen.cancelMs < 5_000, `the cancelled call ended after ${seen.cancelMs} ms`);
  assert.is(seen.after, 'This is a simple text response for testing.');
});

test('CORS: a preflight asking for a header the endpoint does not allow is refused, and the browser blocks the call', async () => {
  needSetup();
  const outcome = await page!.evaluate(async (u) => {
    try {
      const r = await fetch(u, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          'X-Not-Allowed': '1',
        },
        body: '{}',
      });
      return `status ${r.status}`;
    } catch (e) {
      return (e as Error).name;
    }
  }, sessionsUrl);
  assert.is(outcome, 'TypeError');
  // the same request without that header passes the preflight and reaches the endpoint (400: no initialize)
  const status = await page!.evaluate(
    async (u) =>
      (
        await fetch(u, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
          body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
        })
      ).status,
    sessionsUrl,
  );
  assert.is(status, 400);
});

test('serve --cors-origin with something that is not an origin is a usage error (exit 2) naming the flag', async () => {
  const r = await new Promise<{ code: number; stderr: string }>((resolve) =>
    execFile(
      process.execPath,
      [bin, 'serve', '--http', '0', '--cors-origin', 'https://app.example/path'],
      { cwd: root, timeout: 30_000 },
      (e, _out, stderr) => resolve({ code: e ? Number(e.code) : 0, stderr }),
    ),
  );
  assert.is(r.code, 2);
  assert.match(
    r.stderr,
    /--cors-origin needs an origin like https:\/\/app\.example .*got https:\/\/app\.example\/path/,
  );
});

test.run();
