/**
 * The runtime package's export conditions, as a bundler resolves them: for a browser (esbuild
 * `platform: 'browser'`, condition `browser`) and a worker (condition `workerd`), `@mcpgen/runtime`,
 * `…/http` and `…/http/stateless` are the fetch forms, with no `node:` import in the bundle, and
 * the node-only subpaths (`…/stdio`, `…/http/legacy-sse`, `…/auth/loopback`) do not resolve;
 * `…/auth` is its web-standard entry (no loopback redirect); for Node they are the `node:http`
 * forms, and `…/auth` has the loopback redirect.
 */
import { build, type Metafile } from 'esbuild';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ROOT } from '../generator/support.js';

const dir = mkdtempSync(join(tmpdir(), 'mcpgen-conditions-'));

async function bundle(
  code: string,
  options: { platform: 'browser' | 'node' | 'neutral'; conditions?: readonly string[] },
): Promise<{ inputs: string[]; text: string }> {
  const entry = join(dir, `entry-${Math.random().toString(36).slice(2)}.ts`);
  writeFileSync(entry, code);
  const r = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: 'esm',
    logLevel: 'silent',
    metafile: true,
    platform: options.platform,
    ...(options.conditions ? { conditions: [...options.conditions] } : {}),
    // resolve the workspace package the way an app in this checkout does
    nodePaths: [join(ROOT, 'node_modules')],
    absWorkingDir: ROOT,
  });
  return { inputs: Object.keys((r.metafile as Metafile).inputs), text: r.outputFiles[0].text };
}

const CLIENTS = `
import { HttpClientTransport } from '@mcpgen/runtime/http';
import { StatelessHttpClientTransport } from '@mcpgen/runtime/http/stateless';
import { createStatelessHttpHandler } from '@mcpgen/runtime';
console.log(HttpClientTransport.name, StatelessHttpClientTransport.name, typeof createStatelessHttpHandler);
`;

for (const [name, options] of [
  ['browser', { platform: 'browser' }],
  ['workerd', { platform: 'neutral', conditions: ['workerd', 'worker'] }],
] as const) {
  test(`${name}: @mcpgen/runtime, …/http and …/http/stateless are the fetch forms; no node: import`, async () => {
    const { inputs, text } = await bundle(CLIENTS, options);
    assert.ok(inputs.includes('runtime/transport/http/session/fetch-client.ts'), inputs.join('\n'));
    assert.ok(inputs.includes('runtime/transport/http/stateless/fetch-client.ts'));
    assert.ok(inputs.includes('runtime/web.ts'));
    for (const node of [
      'runtime/transport/http/session/node-client.ts',
      'runtime/transport/http/io/node-request.ts',
      'runtime/index.ts',
      'runtime/transport/stdio.ts',
    ]) {
      assert.not.ok(inputs.includes(node), `${node} is in the ${name} bundle`);
    }
    assert.not.match(text, /from\s*["']node:/);
  });

  test(`${name}: @mcpgen/runtime/auth is web-standard (the resource check and the OAuth client, no node: import)`, async () => {
    const { inputs, text } = await bundle(
      `import { bearerAuth, oauthFetch, DPoPVerifier, MemoryReplayStore } from '@mcpgen/runtime/auth';
console.log(typeof bearerAuth, typeof oauthFetch, typeof DPoPVerifier, typeof MemoryReplayStore);`,
      options,
    );
    assert.ok(inputs.includes('runtime/auth/web.ts'), inputs.join('\n'));
    assert.ok(inputs.includes('runtime/auth/resource.ts'));
    assert.not.ok(
      inputs.includes('runtime/auth/loopback-redirect.ts'),
      `the loopback redirect is in the ${name} bundle`,
    );
    assert.not.match(text, /from\s*["']node:/);
  });

  test(`${name}: the node-only subpaths do not resolve`, async () => {
    for (const subpath of ['stdio', 'http/legacy-sse', 'auth/loopback']) {
      const failed = await bundle(`import * as m from '@mcpgen/runtime/${subpath}'; console.log(m);`, options).then(
        () => undefined,
        (e: Error) => e.message,
      );
      assert.ok(failed, `@mcpgen/runtime/${subpath} resolved for ${name}`);
      assert.match(failed, /Could not resolve|not exported|is not exported|null/i);
    }
  });
}

test('node: the same subpaths are the node:http forms', async () => {
  const { inputs } = await bundle(CLIENTS, { platform: 'node' });
  assert.ok(inputs.includes('runtime/transport/http/session/node-client.ts'), inputs.join('\n'));
  assert.ok(inputs.includes('runtime/transport/http/stateless/node-client.ts'));
  assert.ok(inputs.includes('runtime/index.ts'));
  const auth = await bundle(
    `import { startLoopbackRedirect } from '@mcpgen/runtime/auth';
import * as loopback from '@mcpgen/runtime/auth/loopback';
console.log(typeof startLoopbackRedirect, loopback.startLoopbackRedirect === startLoopbackRedirect);`,
    { platform: 'node' },
  );
  assert.ok(auth.inputs.includes('runtime/auth/index.ts'));
  assert.ok(auth.inputs.includes('runtime/auth/loopback-redirect.ts'));
});

test('cleanup', () => rmSync(dir, { recursive: true, force: true }));

test.run();
