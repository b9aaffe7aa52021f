/**
 * MCP Apps in headless Chromium (Debian's `chromium`, driven by puppeteer-core), over real pages
 * served on 127.0.0.1, every script an esbuild bundle for the browser:
 * - end to end: the example's host page (examples/apps/host.ts) calls the UI tool of the example's
 *   mcpgen server (examples/apps/server.ts, Streamable HTTP, another origin), renders the view it
 *   names (examples/apps/view.ts, an mcpgen App) in a sandboxed iframe under the resource's CSP,
 *   and the view draws the result, calls another server tool through the host, sends a message
 *   and its size; a screenshot of the view is read by OCR (tesseract) for the text it must show;
 * - hostile traffic: a page of another origin framed by the host posts a message and a tool call
 *   to the host and a forged tool result to the view; the view posts malformed messages: none
 *   reaches a handler; the view's call of a model-only tool is refused by the host and never
 *   reaches the server;
 * - interop: our view inside ext-apps' own AppBridge, and ext-apps' own App inside our host,
 *   each exchanging initialize, tool input, tool result, a server tool call, a message and a size.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { Browser, Frame, Page } from 'puppeteer-core';
import { startWeatherServer, type WeatherServer } from '../../examples/apps/server.js';
import type { HostRecord } from '../../examples/apps/host.js';
import { launchChromium, requireChromium } from '../web/chromium.js';

const TESSERACT = process.env.TESSERACT_PATH ?? '/usr/bin/tesseract';
const SETUP_MS = 90_000;
const at = (p: string) => fileURLToPath(new URL(p, import.meta.url));

async function bundle(entry: string): Promise<string> {
  const out = await build({
    entryPoints: [at(entry)],
    bundle: true,
    platform: 'browser',
    format: 'esm',
    write: false,
    logLevel: 'silent',
    // (the runtime's browser entry; the generated code's package import resolves through the workspace)
    conditions: ['browser'],
  });
  const text = out.outputFiles[0].text;
  assert.not.match(text, /from\s*["']node:/, `${entry}: the browser bundle imports no node: module`);
  return text;
}
/** A view document with `script` inline (as a UI resource carries it). */
const viewDocument = (script: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><style>body{font:34px/1.4 sans-serif;margin:16px;color:#111;background:#fff}</style></head><body><script type="module">${script.replace(/<\/script/gi, '<\\/script')}</script></body></html>`;

let browser: Browser | undefined;
const servers: Server[] = [];
const weather: WeatherServer[] = [];
let originA = '';
let originB = '';
let ourView = '';
let extView = '';
let setupError: unknown;
const tmp = mkdtempSync(join(tmpdir(), 'mcpgen-apps-'));

function needSetup(): void {
  if (setupError !== undefined) assert.unreachable(`browser set-up failed: ${String(setupError)}`);
}

async function serve(pages: Record<string, [string, string]>): Promise<string> {
  const s = createServer((req, res) => {
    const page = pages[req.url ?? ''];
    if (page) res.writeHead(200, { 'Content-Type': page[0] }).end(page[1]);
    else res.writeHead(404).end();
  });
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  servers.push(s);
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
}

test.before(async () => {
  try {
    requireChromium();
    const [e2e, extHost, evil, view, extapps] = await Promise.all([
      bundle('./fixtures/e2e-page.ts'),
      bundle('./fixtures/extapps-host.ts'),
      bundle('./fixtures/evil.ts'),
      bundle('../../examples/apps/view.ts'),
      bundle('./fixtures/extapps-view.ts'),
    ]);
    ourView = viewDocument(view);
    extView = viewDocument(extapps);
    const html = (script: string, body = '') =>
      `<!doctype html><meta charset="utf-8"><title>loading</title>${body}<script type="module" src="${script}"></script>`;
    originA = await serve({
      '/e2e.html': ['text/html', html('/e2e.js', '<div id="views"></div>')],
      '/e2e.js': ['text/javascript', e2e],
      '/extapps-host.html': ['text/html', html('/extapps-host.js')],
      '/extapps-host.js': ['text/javascript', extHost],
    });
    originB = await serve({
      '/evil.html': ['text/html', html('/evil.js')],
      '/evil.js': ['text/javascript', evil],
    });
    weather.push(await startWeatherServer({ viewHtml: ourView, corsOrigin: originA }));
    weather.push(await startWeatherServer({ viewHtml: extView, corsOrigin: originA }));
    browser = await launchChromium(SETUP_MS);
  } catch (e) {
    setupError = e;
  }
});

test.after(async () => {
  await browser?.close();
  await Promise.all(weather.map((w) => w.close()));
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  rmSync(tmp, { recursive: true, force: true });
});

async function open(path: string): Promise<Page> {
  const page = await browser!.newPage();
  await page.setViewport({ width: 900, height: 900 });
  await page.goto(`${originA}${path}`, { timeout: SETUP_MS });
  await page.waitForFunction(() => document.title === 'ready', { timeout: SETUP_MS });
  return page;
}
/** The view's frame (the sandboxed srcdoc iframe) once it shows `Done`. */
async function viewFrame(page: Page): Promise<Frame> {
  let frame: Frame | undefined;
  const until = Date.now() + 30_000;
  while (Date.now() < until) {
    frame = page.frames().find((f) => f.url() === 'about:srcdoc');
    if (
      frame &&
      (await frame.evaluate(() => document.getElementById('done')?.textContent ?? '').catch(() => '')) === 'Done'
    )
      return frame;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(
    `the view did not finish: ${frame ? await frame.evaluate(() => document.body.textContent) : 'no frame'}`,
  );
}
const texts = (frame: Frame) =>
  frame.evaluate(() =>
    Object.fromEntries([...document.querySelectorAll('p')].map((p) => [p.id, p.textContent ?? ''])),
  ) as Promise<Record<string, string>>;
const ocr = (png: string) =>
  new Promise<string>((resolve, reject) =>
    execFile(TESSERACT, [png, 'stdout'], { timeout: 60_000 }, (e, out) => (e ? reject(e) : resolve(out))),
  );

test('end to end: the UI tool of an mcpgen server called, its view rendered under the resource CSP, the view calls another tool through the host', async () => {
  needSetup();
  const page = await open('/e2e.html');
  try {
    await page.evaluate(
      (u) => (globalThis as unknown as { runE2E(u: string, c: string): Promise<boolean> }).runE2E(u, 'Paris'),
      weather[0].url,
    );
    const frame = await viewFrame(page);
    const seen = await texts(frame);
    assert.is(seen.host, 'Host weather-host');
    assert.is(seen.input, 'Asked for Paris');
    assert.is(seen.now, 'Paris Sunny 21C');
    assert.is(seen.fresh, 'Later Cloudy 19C');
    const record = (await page.evaluate(() => (globalThis as unknown as { record: HostRecord }).record)) as HostRecord;
    assert.equal(record.messages, ['Paris is cloudy']);
    assert.ok(record.sizes.length >= 1 && (record.sizes.at(-1)!.height ?? 0) > 100, JSON.stringify(record.sizes));
    // the model sees show_weather and delete_history, not the app-only refresh_weather
    assert.equal(record.modelTools.sort(), ['delete_history', 'show_weather']);
    assert.match(
      record.csp,
      /^default-src 'none'; script-src 'self' 'unsafe-inline'; .*connect-src 'none'; frame-src 'none'; object-src 'none'; base-uri 'self'$/,
    );
    // the frame: sandboxed without allow-same-origin, the CSP first in its document
    const attrs = await page.evaluate(() => {
      const f = document.querySelector('iframe')!;
      return { sandbox: f.getAttribute('sandbox'), head: f.srcdoc.slice(0, 90) };
    });
    assert.is(attrs.sandbox, 'allow-scripts');
    assert.match(
      attrs.head,
      /^<!doctype html><meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;|^<!doctype html><meta http-equiv="Content-Security-Policy" content="default-src 'none'/,
    );
    // the CSP holds: the view may not fetch anything (connect-src 'none')
    const fetched = await frame.evaluate(() =>
      fetch('http://127.0.0.1:9/').then(
        () => 'fetched',
        (e: Error) => e.name,
      ),
    );
    assert.is(fetched, 'TypeError');
    assert.equal(weather[0].calls, ['show_weather Paris', 'refresh_weather Paris']);

    // the screenshot of the view, read back by OCR
    const png = join(tmp, 'view.png');
    const el = await page.$('iframe');
    await el!.screenshot({ path: png });
    const text = (await ocr(png)).replace(/\s+/g, ' ');
    if (process.env.MCPGEN_SHOW_OCR) console.log(text);
    for (const words of ['Paris Sunny 21C', 'Later Cloudy 19C', 'Asked for Paris'])
      assert.ok(text.includes(words), `OCR of the view: ${JSON.stringify(text)} lacks ${words}`);
  } finally {
    await page.close();
  }
});

test('hostile postMessage traffic is refused: another origin framed by the host, malformed messages from the view; a hidden tool is refused', async () => {
  needSetup();
  const page = await open('/e2e.html');
  try {
    await page.evaluate(
      (u) => (globalThis as unknown as { runE2E(u: string, c: string): Promise<boolean> }).runE2E(u, 'Lyon'),
      weather[0].url,
    );
    const frame = await viewFrame(page);
    // the view's call of a tool for the model only: refused by the host, never sent to the server
    assert.is(
      (await texts(frame)).hidden,
      'refused: Tool delete_history is not callable from apps (visibility: model)',
    );
    const before = weather[0].calls.length;
    // a page of another origin, framed by the host page
    await page.evaluate(async (src) => {
      const f = document.createElement('iframe');
      f.src = src;
      document.body.appendChild(f);
      await new Promise((r) => f.addEventListener('load', r));
    }, `${originB}/evil.html`);
    await new Promise((r) => setTimeout(r, 300));
    // the view sends what is not JSON-RPC 2.0, and a ui/message with params its schema refuses
    const answer = await frame.evaluate(
      () =>
        new Promise<unknown>((resolve) => {
          addEventListener('message', (e) => {
            if ((e.data as { id?: number }).id === 77) resolve(e.data);
          });
          parent.postMessage('not json-rpc', '*');
          parent.postMessage({ jsonrpc: '1.0', id: 76, method: 'ui/message', params: {} }, '*');
          parent.postMessage({ jsonrpc: '2.0', id: 78, method: 'ui/message', result: {}, params: {} }, '*');
          parent.postMessage(
            { jsonrpc: '2.0', id: 77, method: 'ui/message', params: { role: 'admin', content: 'x' } },
            '*',
          );
        }),
    );
    assert.is((answer as { error: { code: number } }).error.code, -32602);
    await new Promise((r) => setTimeout(r, 200));
    const record = (await page.evaluate(() => (globalThis as unknown as { record: HostRecord }).record)) as HostRecord;
    assert.equal(record.messages, ['Lyon is cloudy'], 'no forged message reached the host');
    assert.equal(record.refused, ['Tool delete_history is not callable from apps (visibility: model)']);
    assert.is(weather[0].calls.length, before, 'no call reached the server');
    assert.not.ok(weather[0].calls.includes('delete_history'));
    // the forged tool result did not reach the view
    assert.is((await texts(frame)).now, 'Lyon Sunny 21C');
    // what the host's transport refused, before any handler
    assert.equal(record.transportRefusals.sort(), [
      'not a JSON-RPC 2.0 message',
      'not a JSON-RPC 2.0 message',
      'not a JSON-RPC 2.0 message',
      'the message comes from another window',
      'the message comes from another window',
    ]);
  } finally {
    await page.close();
  }
});

test("interop: our view (mcpgen App) inside ext-apps' own AppBridge", async () => {
  needSetup();
  const page = await open('/extapps-host.html');
  try {
    await page.evaluate(
      (html) => (globalThis as unknown as { runBridge(h: string): Promise<boolean> }).runBridge(html),
      ourView,
    );
    const frame = await viewFrame(page);
    const seen = await texts(frame);
    assert.is(seen.host, 'Host ext-apps-bridge');
    assert.is(seen.input, 'Asked for Oslo');
    assert.is(seen.now, 'Oslo Sunny 21C');
    assert.is(seen.fresh, 'Later Cloudy 17C');
    const rec = (await page.evaluate(() => (globalThis as unknown as { bridgeRecord: unknown }).bridgeRecord)) as {
      calls: string[];
      messages: string[];
      sizes: Array<{ height?: number }>;
      appInfo: { name: string };
    };
    assert.equal(rec.appInfo, { name: 'weather-view', version: '1.0.0' });
    assert.equal(rec.calls, ['refresh_weather', 'delete_history']);
    assert.equal(rec.messages, ['Oslo is cloudy']);
    assert.ok(rec.sizes.length >= 1 && (rec.sizes.at(-1)!.height ?? 0) > 100, JSON.stringify(rec.sizes));
  } finally {
    await page.close();
  }
});

test("interop: ext-apps' own App as a view inside our host bridge, on an mcpgen server", async () => {
  needSetup();
  const page = await open('/e2e.html');
  try {
    await page.evaluate(
      (u) => (globalThis as unknown as { runE2E(u: string, c: string): Promise<boolean> }).runE2E(u, 'Rome'),
      weather[1].url,
    );
    const frame = await viewFrame(page);
    const seen = await texts(frame);
    assert.is(seen.host, 'Host weather-host');
    assert.is(seen.input, 'Asked for Rome');
    assert.is(seen.now, 'Rome Sunny 21C');
    assert.is(seen.fresh, 'Later Cloudy 19C');
    const record = (await page.evaluate(() => (globalThis as unknown as { record: HostRecord }).record)) as HostRecord;
    assert.equal(record.messages, ['ext-apps view: Rome']);
    assert.equal(record.sizes, [{ width: 320, height: 240 }]);
    assert.equal(weather[1].calls, ['show_weather Rome', 'refresh_weather Rome']);
  } finally {
    await page.close();
  }
});

test.run();
