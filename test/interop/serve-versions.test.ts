/**
 * Version negotiation of `mcpgen serve` (2025-11-25 basic/lifecycle, "Version Negotiation"):
 * the default serve (2025-11-25) answers `initialize` with the client's requested version for
 * every older generated handshake revision, alike on Streamable HTTP (/mcp), the 2024-11-05
 * HTTP+SSE endpoint (/sse) and stdio; `call --rev <old>` then lists the tools. A stateless
 * revision's dual-era serve does the same on its 2025-11-25 side.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile, spawn } from 'node:child_process';
import { type Served, bin, root, startServe } from '../runtime/tasks/serve-process.js';
import { httpClientTransport } from '../../cli/serve/http.js';
import { loadRevision } from '../../cli/revisions.js';
import { StdioClientTransport } from '../../runtime/transport/stdio.js';
import type { Transport } from '../../runtime/jsonrpc/transport.js';

const OLD = ['2024-11-05', '2025-03-26', '2025-06-18'];

let served: Served | undefined;
let url = '';

test.before(async () => {
  served = await startServe();
  url = served.url;
});

test.after(async () => {
  await served?.stop();
});

/** `mcpgen call …`; killed after 2 minutes (three at once, each starting Node twice over stdio, take
 * tens of seconds on a loaded runner), which then reads as exit code 1 with the reason in stderr. */
function call(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, 'call', ...args], { cwd: root, timeout: 120_000 }, (err, stdout, stderr) =>
      resolve({
        code: err ? (typeof err.code === 'number' ? err.code : 1) : 0,
        stdout,
        stderr: err?.killed ? `killed after 120 s (${err.signal}); ${stderr}` : stderr,
      }),
    );
  });
}

async function negotiated(rev: string, transport: Transport): Promise<{ version: string; tools: string[] }> {
  const mod = await loadRevision(rev);
  const client = new mod.Client({ clientInfo: { name: 't', version: '0' } });
  try {
    const info = (await client.connect(transport)) as unknown as { protocolVersion: string };
    const list = (await client.request('tools/list' as never, {} as never)) as unknown as { tools: { name: string }[] };
    return { version: info.protocolVersion, tools: list.tools.map((t) => t.name) };
  } finally {
    await client.close().catch(() => undefined);
  }
}

for (const rev of OLD) {
  test(`serve --http: a ${rev} client negotiates ${rev} on /mcp and /sse`, async () => {
    for (const at of [url, url.replace(/\/mcp$/, '/sse')]) {
      const r = await negotiated(rev, httpClientTransport(at));
      assert.is(r.version, rev, at);
      assert.ok(r.tools.includes('echo'), at);
    }
  });

  test(`serve --stdio: a ${rev} client negotiates ${rev}`, async () => {
    const r = await negotiated(
      rev,
      new StdioClientTransport({
        command: process.execPath,
        args: [bin, 'serve', '--stdio'],
        cwd: root,
        stderr: 'ignore',
      }),
    );
    assert.is(r.version, rev);
    assert.ok(r.tools.includes('echo'));
  });

  test(`call --rev ${rev} tools/list against the default serve: /mcp, /sse, --stdio`, async () => {
    const targets = [
      ['--url', url],
      ['--url', url.replace(/\/mcp$/, '/sse')],
      ['--stdio', `"${process.execPath}" "${bin}" serve --stdio`],
    ];
    const results = await Promise.all(targets.map((t) => call(...t, '--rev', rev, 'tools/list')));
    for (const [i, r] of results.entries()) {
      assert.is(r.code, 0, `${targets[i].join(' ')}: ${r.stderr}`);
      assert.ok((JSON.parse(r.stdout) as { tools: { name: string }[] }).tools.some((t) => t.name === 'echo'));
    }
  });
}

test('serve --rev draft (dual-era): its 2025-11-25 side negotiates the older revisions too, over HTTP and stdio', async () => {
  const draft = spawn(process.execPath, [bin, 'serve', '--rev', 'draft', '--http', '0'], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  try {
    let stderr = '';
    const at = await new Promise<string>((resolve, reject) => {
      draft.stderr!.on('data', (d: Buffer) => {
        stderr += d.toString();
        const m = /listening on (http:\/\/\S+)/.exec(stderr);
        if (m) resolve(m[1]);
      });
      draft.once('exit', (code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
    });
    for (const rev of OLD) {
      const r = await negotiated(rev, httpClientTransport(at));
      assert.is(r.version, rev);
      const s = await negotiated(
        rev,
        new StdioClientTransport({
          command: process.execPath,
          args: [bin, 'serve', '--stdio', '--rev', 'draft'],
          cwd: root,
          stderr: 'ignore',
        }),
      );
      assert.is(s.version, rev);
      assert.ok(s.tools.includes('echo'));
    }
  } finally {
    const exited = new Promise((r) => draft.once('exit', r));
    draft.kill('SIGTERM');
    await exited;
  }
});

test.run();
