/**
 * MCP Apps as a generator input: the extension's schema read from the pinned package
 * (@modelcontextprotocol/ext-apps, installed as a devDependency at the pinned version, or pulled
 * from the npm registry's tarball into the cache), checked against its pin, ingested (directions,
 * result pairing, capability gates, what rides on MCP), emitted beside revisions (`--ext apps`,
 * `"extensions": ["apps"]`), pinned (`pin apps --version`), and diffed between two published
 * versions (`diff apps@2.0.0 apps@2.0.4`). The registry tests download two tarballs (~0.3 MB each).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ingestExtension } from '../../generator/extension/ingest.js';
import type { ExtensionModel } from '../../generator/extension/model.js';
import { extensionPin, resolveExtension } from '../../schema/extensions.js';
import { PinError, loadPins } from '../../schema/resolve.js';
import { ROOT, SPEC_DIR, cli, tempDir } from '../generator/support.js';

const PINS = loadPins();
/** The files of ext-apps 2.0.0 (they differ from 2.0.4 in schema.json only). */
const V200 = {
  'schema.json': 'e9af2289956641a266d99273facb746c2023bae48567d64bb83c63aadecb856f',
  'spec.types.d.ts': 'ae365459e08e0e4819230fc98f62237ff1176f8889eee3b6ce1a880490c34870',
};

let model: ExtensionModel;
test.before(() => {
  model = ingestExtension(resolveExtension('apps', PINS, { projectDir: ROOT }));
});

test('the shipped pin names the package, the version and both files; the installed devDependency matches it', () => {
  const pin = extensionPin(PINS, 'apps');
  assert.is(pin.identifier, 'io.modelcontextprotocol/ui');
  assert.is(pin.package, '@modelcontextprotocol/ext-apps');
  const installed = JSON.parse(
    readFileSync(join(ROOT, 'node_modules/@modelcontextprotocol/ext-apps/package.json'), 'utf8'),
  ) as { version: string };
  assert.is(installed.version, pin.version);
  const r = resolveExtension('apps', PINS, { projectDir: ROOT });
  assert.is(r.source, 'node_modules');
  assert.is(r.files['schema.json'].sha256, pin.files['schema.json'].sha256);
  assert.is(r.files['spec.types.d.ts'].size, pin.files['spec.types.d.ts'].size);
});

test('an installed package whose file differs from the pin is refused, naming the file and both hashes', () => {
  const t = tempDir();
  try {
    const pkg = join(t.dir, 'node_modules/@modelcontextprotocol/ext-apps');
    cpSync(join(ROOT, 'node_modules/@modelcontextprotocol/ext-apps/package.json'), join(pkg, 'package.json'));
    mkdirSync(join(pkg, 'dist/src/generated'), { recursive: true });
    const original = readFileSync(join(ROOT, 'node_modules/@modelcontextprotocol/ext-apps/dist/src/spec.types.d.ts'));
    writeFileSync(join(pkg, 'dist/src/spec.types.d.ts'), original);
    const schema = readFileSync(
      join(ROOT, 'node_modules/@modelcontextprotocol/ext-apps/dist/src/generated/schema.json'),
      'utf8',
    );
    writeFileSync(join(pkg, 'dist/src/generated/schema.json'), schema.replace('"ui/open-link"', '"ui/open-lynx"'));
    const e = (() => {
      try {
        resolveExtension('apps', PINS, { projectDir: t.dir, cacheDir: join(t.dir, 'cache') });
      } catch (x) {
        return x;
      }
    })();
    assert.instance(e, PinError);
    assert.match(
      String((e as Error).message),
      /schema\.json: sha256 [0-9a-f]{64} \(\d+ bytes\) does not match the pin 3823abdec2ab/,
    );
  } finally {
    t.cleanup();
  }
});

test('ingest: every message with its direction from the declarations, view → host and host → view', () => {
  const dir = (m: string, kind: 'requests' | 'notifications') =>
    model[kind].filter((x) => x.method === m).map((x) => x.direction);
  for (const m of [
    'ui/initialize',
    'ui/message',
    'ui/open-link',
    'ui/download-file',
    'ui/request-display-mode',
    'ui/update-model-context',
  ])
    assert.equal(dir(m, 'requests'), ['clientToServer'], m);
  assert.equal(dir('ui/resource-teardown', 'requests'), ['serverToClient']);
  for (const m of ['initialized', 'size-changed', 'request-teardown', 'sandbox-proxy-ready'])
    assert.equal(dir(`ui/notifications/${m}`, 'notifications'), ['clientToServer'], m);
  for (const m of [
    'tool-input',
    'tool-input-partial',
    'tool-result',
    'tool-cancelled',
    'host-context-changed',
    'sandbox-resource-ready',
  ])
    assert.equal(dir(`ui/notifications/${m}`, 'notifications'), ['serverToClient'], m);
  assert.is(model.requests.length, 7);
  assert.is(model.notifications.length, 10);
  assert.equal(model.extension.parties, { client: 'view', server: 'host' });
  assert.is(model.protocolVersion, '2026-01-26');
});

test('ingest: results paired by name, capability gates from the receiver capabilities, the MCP riders', () => {
  const req = (m: string) => model.requests.find((r) => r.method === m)!;
  assert.is(req('ui/initialize').resultType, 'McpUiInitializeResult');
  assert.is(req('ui/open-link').resultType, 'McpUiOpenLinkResult');
  assert.equal(req('ui/open-link').capability, ['openLinks']);
  assert.equal(req('ui/message').capability, ['message']);
  assert.equal(req('ui/download-file').capability, ['downloadFile']);
  assert.equal(req('ui/update-model-context').capability, ['updateModelContext']);
  assert.is(req('ui/request-display-mode').capability, null);
  // no McpUiUpdateModelContextResult in the schema: any result object, said in a warning
  assert.is(req('ui/update-model-context').resultType, 'Result');
  assert.ok(model.warnings.some((w) => /no McpUiUpdateModelContextResult/.test(w)));
  assert.equal(model.mcp, {
    metaKey: 'ui',
    toolMeta: 'McpUiToolMeta',
    resourceMeta: 'McpUiResourceMeta',
    clientCapabilities: 'McpUiClientCapabilities',
  });
  // each entry's local $defs (JSON values in a tool's inputSchema) hoisted once, references rewritten
  assert.ok(model.types.McpUiHostContext_schema0);
  assert.match(JSON.stringify(model.types.McpUiInitializeResult.schema), /#\/\$defs\/McpUiHostContext_schema0/);
  assert.not.match(JSON.stringify(model.types), /"\$schema"|#\/\$defs\/__schema0/);
});

test('generate --ext apps: <rev>/apps/ beside each revision, byte-identical on a second run; check --ext apps passes', async () => {
  const t = tempDir();
  try {
    const out = join(t.dir, 'gen');
    const args = ['generate', '--rev', '2025-11-25,2026-07-28', '--ext', 'apps', '--out', out];
    const r = await cli(args, { MCP_SPEC_DIR: SPEC_DIR });
    assert.is(r.code, 0, r.stderr);
    for (const rev of ['2025-11-25', '2026-07-28'])
      for (const f of ['index.ts', 'types.gen.ts', 'validators.gen.js', 'validators.gen.d.ts', 'protocol.gen.ts'])
        assert.ok(existsSync(join(out, rev, 'apps', f)), `${rev}/apps/${f}`);
    const protocol = readFileSync(join(out, '2025-11-25/apps/protocol.gen.ts'), 'utf8');
    assert.match(protocol, /^\/\/ @generated by mcpgen [^ ]+ from 2025-11-25 \+ apps@2\.0\.4 \(sha256 [0-9a-f]{12}\)/);
    assert.match(protocol, /export type ViewRequests = \{/);
    assert.match(
      protocol,
      /'tools\/call': \{ params: OnChannel<R\.CallToolRequest\['params'\]>; result: R\.CallToolResult/,
    );
    assert.match(protocol, /export type AppTool = R\.Tool & \{ _meta\?: \{ 'ui'\?: T\.McpUiToolMeta/);
    assert.match(
      protocol,
      /export type AppClientCapabilities = R\.ClientCapabilities & \{\n\s+extensions\?: \{ 'io\.modelcontextprotocol\/ui'\?: T\.McpUiClientCapabilities/,
    );
    // 2026-07-28 requires _meta on tools/call params: the channel does not check them against it
    const modern = readFileSync(join(out, '2026-07-28/apps/protocol.gen.ts'), 'utf8');
    assert.match(
      modern,
      /'tools\/call': \{ requestType: 'CallToolRequest'[^}]*result: RV\.CallToolResult, capability: \['serverTools'\] \}/,
    );
    assert.not.match(modern, /'tools\/call': \{[^}]*params: RV\./);
    const first = readFileSync(join(out, '2025-11-25/apps/validators.gen.js'), 'utf8');
    const again = await cli(args, { MCP_SPEC_DIR: SPEC_DIR });
    assert.is(again.code, 0, again.stderr);
    assert.is(readFileSync(join(out, '2025-11-25/apps/validators.gen.js'), 'utf8'), first);
    const check = await cli(['check', '--rev', '2025-11-25,2026-07-28', '--ext', 'apps', '--out', out], {
      MCP_SPEC_DIR: SPEC_DIR,
    });
    assert.is(check.code, 0, check.stdout + check.stderr);
    // without the extension the folder is drift
    const without = await cli(['check', '--rev', '2025-11-25', '--out', out], { MCP_SPEC_DIR: SPEC_DIR });
    assert.is(without.code, 1);
    assert.match(without.stdout, /removed +\S*2025-11-25\/apps\/protocol\.gen\.ts/);
  } finally {
    t.cleanup();
  }
});

test('"extensions" in mcpgen.config.json: an unknown one is a config error naming the field', async () => {
  const t = tempDir();
  try {
    writeFileSync(
      join(t.dir, 'mcpgen.config.json'),
      JSON.stringify({ revisions: ['2025-11-25'], extensions: ['widgets'] }),
    );
    const r = await cli(['generate'], { MCP_SPEC_DIR: SPEC_DIR }, t.dir);
    assert.is(r.code, 2);
    assert.match(r.stderr, /mcpgen\.config\.json: extensions\[0\]: "widgets" is not pinned \(pinned: apps\)/);
  } finally {
    t.cleanup();
  }
});

test('pull --ext apps from the npm registry into the cache (tarball integrity and each sha256 checked), then generate from there', async () => {
  const t = tempDir();
  try {
    const cache = join(t.dir, 'cache');
    writeFileSync(
      join(t.dir, 'mcpgen.config.json'),
      JSON.stringify({ revisions: ['2025-11-25'], extensions: ['apps'], out: 'src/mcp' }),
    );
    const pulled = await cli(['pull', '--ext', 'apps'], { MCP_SPEC_DIR: SPEC_DIR, MCPGEN_CACHE: cache }, t.dir);
    assert.is(pulled.code, 0, pulled.stderr);
    assert.match(
      pulled.stdout,
      /pulled @modelcontextprotocol\/ext-apps@2\.0\.4\/dist\/src\/generated\/schema\.json \(221278 bytes, sha256 3823abdec2ab\)/,
    );
    assert.ok(existsSync(join(cache, 'npm/@modelcontextprotocol/ext-apps@2.0.4/dist/src/spec.types.d.ts')));
    // the project has no node_modules: the inputs come from the cache
    const r = await cli(['generate'], { MCP_SPEC_DIR: SPEC_DIR, MCPGEN_CACHE: cache }, t.dir);
    assert.is(r.code, 0, r.stderr);
    assert.ok(existsSync(join(t.dir, 'src/mcp/2025-11-25/apps/protocol.gen.ts')));
    // a damaged cached file is refused
    const cached = join(cache, 'npm/@modelcontextprotocol/ext-apps@2.0.4/dist/src/spec.types.d.ts');
    writeFileSync(cached, `${readFileSync(cached, 'utf8')}\n`);
    const bad = await cli(['generate'], { MCP_SPEC_DIR: SPEC_DIR, MCPGEN_CACHE: cache }, t.dir);
    assert.is(bad.code, 3);
    assert.match(
      bad.stderr,
      /spec\.types\.d\.ts: sha256 [0-9a-f]{64} \(29361 bytes\) does not match the pin ae365459e08e/,
    );
  } finally {
    t.cleanup();
  }
});

test('pin apps --version 2.0.0 moves the pin in the lock, from the registry; diff apps@2.0.0 apps@2.0.4 lists the changes with breaking classes', async () => {
  const t = tempDir();
  try {
    const cache = join(t.dir, 'cache');
    const env = { MCP_SPEC_DIR: SPEC_DIR, MCPGEN_CACHE: cache };
    const pinned = await cli(['pin', 'apps', '--version', '2.0.0'], env, t.dir);
    assert.is(pinned.code, 0, pinned.stderr);
    assert.match(
      pinned.stdout,
      /apps: moved from @modelcontextprotocol\/ext-apps@2\.0\.4: @modelcontextprotocol\/ext-apps@2\.0\.0/,
    );
    const lock = JSON.parse(readFileSync(join(t.dir, 'mcpgen.lock.json'), 'utf8')) as {
      extensions: Record<string, { version: string; integrity: string; files: Record<string, { sha256: string }> }>;
    };
    assert.is(lock.extensions.apps.version, '2.0.0');
    assert.match(lock.extensions.apps.integrity, /^sha512-/);
    assert.is(lock.extensions.apps.files['schema.json'].sha256, V200['schema.json']);
    assert.is(lock.extensions.apps.files['spec.types.d.ts'].sha256, V200['spec.types.d.ts']);
    // pinning the same version again verifies it
    const again = await cli(['pin', 'apps'], env, t.dir);
    assert.is(again.code, 0, again.stderr);
    assert.match(again.stdout, /apps: verified: @modelcontextprotocol\/ext-apps@2\.0\.0/);

    // the project's pin (2.0.0) against the version installed in the checkout (2.0.4)
    const d = await cli(['diff', 'apps', 'apps@2.0.4', '--format', 'json'], env, t.dir);
    assert.is(d.code, 0, d.stderr);
    const report = JSON.parse(d.stdout) as {
      from: { revision: string };
      to: { revision: string };
      changes: Array<{
        kind: string;
        subject: string;
        direction: string;
        breaking: { client: boolean; server: boolean };
      }>;
      summary: { total: number; breaking: number };
    };
    assert.is(report.from.revision, 'apps@2.0.0');
    assert.is(report.to.revision, 'apps@2.0.4');
    assert.is(report.summary.total, 17);
    assert.ok(report.changes.every((c) => c.kind === 'constraint' && c.breaking.client && c.breaking.server));
    const subjects = report.changes.map((c) => `${c.direction} ${c.subject}`);
    assert.ok(
      subjects.includes(
        'serverToClient ui/notifications/tool-result params.content[]<type=text>.annotations.lastModified',
      ),
    );
    assert.ok(subjects.includes('clientToServer ui/message params.content[]<type=image>.annotations.lastModified'));
    const md = await cli(['diff', 'apps@2.0.0', 'apps@2.0.4', '--fail-on', 'breaking'], env, ROOT);
    assert.is(md.code, 1, md.stderr);
    assert.match(
      md.stdout,
      /^# MCP extension diff \(io\.modelcontextprotocol\/ui, @modelcontextprotocol\/ext-apps\): apps@2\.0\.0 → apps@2\.0\.4/,
    );
    assert.match(md.stdout, /\*\*17 change\(s\)\*\*, 17 breaking: 17 for views, 17 for hosts\./);
    assert.match(md.stdout, /\| Subject \| Direction \| Change \| Detail \| View \| Host \|/);
    assert.match(
      md.stdout,
      /\| `ui\/update-model-context params\.content\[\]<type=text>\.annotations\.lastModified` \| view → host \| constraint \|/,
    );
    const same = await cli(['diff', 'apps@2.0.4', 'apps'], env, ROOT);
    assert.is(same.code, 0, same.stderr);
    assert.match(same.stdout, /No semantic differences\./);
  } finally {
    t.cleanup();
  }
});

test.run();
