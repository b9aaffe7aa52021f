/**
 * A revision that `mcpgen generate` accepts is one the runtime serves: every draft snapshot of
 * $MCP_SPEC_DIR/history/draft, generated with `--unpinned`, runs end to end, its generated
 * Client against its generated Server (test/fixtures/snapshot-server.ts) over stdio (the server a
 * real process) and over HTTP (Streamable HTTP with sessions for a handshake revision, stateless
 * HTTP for a stateless one): connect (initialize or server/discover, the server's name where the
 * revision puts it), tools/list, tools/call (a result with `resultType` where the revision's
 * results carry it), an unknown tool answered -32602 as an RpcError, prompts/get, resources/read,
 * an input round where the revision lets tools/call be answered input_required (the handshake
 * draft of 2026-05-11 too), and, in a stateless revision, a client of another protocol version
 * refused with the revision's own code (-32602 in the 2026-05-14 draft, which exports no
 * UNSUPPORTED_PROTOCOL_VERSION) and `data.supported`.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { RpcError } from '../../runtime/jsonrpc/errors.js';
import type { ProtocolTable } from '../../runtime/protocol/table.js';
import type { Transport } from '../../runtime/jsonrpc/transport.js';
import { ClientSession } from '../../runtime/session/client.js';
import { StdioClientTransport } from '../../runtime/transport/stdio.js';
import { HttpClientTransport, createStreamableHttpHandler } from '../../runtime/transport/http/session/index.js';
import {
  StatelessHttpClientTransport,
  createStatelessHttpHandler,
} from '../../runtime/transport/http/stateless/index.js';
import { type GeneratedRevision, SERVER_INFO, snapshotServer } from '../fixtures/snapshot-server.js';
import { ROOT, SPEC_DIR, cli, tempOutput } from './support.js';

const test = suite('draft snapshots: each generates and runs end to end, client and server');

const SNAPSHOTS_DIR = join(SPEC_DIR, 'history', 'draft');
const snapshots = readdirSync(SNAPSHOTS_DIR)
  .filter((n) => statSync(join(SNAPSHOTS_DIR, n)).isDirectory())
  .sort();
const FIXTURE = join(ROOT, 'test', 'fixtures', 'snapshot-server.ts');

interface ClientLike {
  connect(transport: unknown): Promise<{ protocolVersion: string; serverInfo?: { name: string } }>;
  listTools(p: object): Promise<{ tools: { name: string }[] }>;
  callTool(p: object): Promise<Record<string, unknown>>;
  getPrompt(p: object): Promise<{ messages: { content: unknown }[] }>;
  readResource(p: object): Promise<{ contents: { text?: string }[] }>;
  close(): Promise<void>;
}
type Generated = GeneratedRevision & { Client: new (o: object) => ClientLike; protocolVersion: string };

const out = tempOutput();
const loaded = new Map<string, Generated>();

test.after(() => out.cleanup());

test('there are draft snapshots, among them the two of May 2026', () => {
  assert.ok(snapshots.includes('2026-05-11_c2037874'), snapshots.join(' '));
  assert.ok(snapshots.includes('2026-05-14_41173312'), snapshots.join(' '));
});

test('every draft snapshot generates', async () => {
  for (const snap of snapshots) {
    const res = await cli(['generate', '--unpinned', join(SNAPSHOTS_DIR, snap), '--out', out.out]);
    assert.is(res.code, 0, `${snap}: exit ${res.code}\n${res.stderr}`);
    loaded.set(snap, (await import(pathToFileURL(join(out.out, snap, 'index.ts')).href)) as Generated);
  }
});

const client = (g: Generated) =>
  new g.Client({
    clientInfo: { name: 'snapshot-client', version: '1.0.0' },
    capabilities: { elicitation: {} },
    handlers: { 'elicitation/create': () => ({ action: 'accept', content: { sure: true } }) },
  });

/** The calls every revision answers the same way, through `c` connected to the fixture server. */
async function exercise(
  snap: string,
  g: Generated,
  c: ClientLike,
  server: { protocolVersion: string; serverInfo?: { name: string } },
) {
  const model = JSON.parse(readFileSync(join(out.out, snap, 'model.json'), 'utf8')) as { protocolVersion: string };
  assert.is(server.protocolVersion, model.protocolVersion, `${snap}: negotiated version`);
  assert.is(server.serverInfo?.name, SERVER_INFO.name, `${snap}: the server's name, where the revision puts it`);
  const mrtr = !!g.table.requests.clientToServer['tools/call']?.inputRequired;
  const { tools } = await c.listTools({});
  assert.equal(tools.map((t) => t.name).sort(), mrtr ? ['add', 'confirm'] : ['add'], snap);
  const sum = await c.callTool({ name: 'add', arguments: { a: 1, b: 2 } });
  assert.equal(sum.content, [{ type: 'text', text: '3' }], snap);
  assert.is(sum.resultType, g.table.resultType ? 'complete' : undefined, `${snap}: resultType`);
  const unknown = await c.callTool({ name: 'nope', arguments: {} }).catch((e: unknown) => e);
  assert.ok(unknown instanceof RpcError, `${snap}: ${String(unknown)}`);
  assert.is(unknown.code, -32602, snap);
  assert.match(unknown.message, 'Unknown tool: nope');
  const prompt = await c.getPrompt({ name: 'greet', arguments: { who: 'Ada' } });
  assert.equal(prompt.messages[0].content, { type: 'text', text: 'Hello, Ada' }, snap);
  const read = await c.readResource({ uri: 'mem://note' });
  assert.is(read.contents[0].text, 'a note', snap);
  if (mrtr) {
    const confirmed = await c.callTool({ name: 'confirm', arguments: { what: 'deploy' } });
    assert.equal(confirmed.content, [{ type: 'text', text: 'deploy: accept true' }], `${snap}: input round`);
  }
}

/** A client of `g`'s revision that claims another protocol version: refused with the revision's code. */
async function otherVersion(snap: string, g: Generated, transport: unknown) {
  const table: ProtocolTable = { ...g.table, protocolVersion: 'DRAFT-0000-v0' };
  const session = new ClientSession(table, { clientInfo: { name: 'old', version: '0' } });
  const e = await session.connect(transport as Transport).catch((x: unknown) => x);
  assert.ok(e instanceof RpcError, `${snap}: ${String(e)}`);
  assert.is(e.code, g.table.errorCodes.UNSUPPORTED_PROTOCOL_VERSION, `${snap}: the revision's code`);
  assert.equal((e.data as { supported?: unknown }).supported, [g.protocolVersion], snap);
  await session.close();
}

for (const snap of snapshots) {
  test(`${snap}: client and server over stdio`, async () => {
    const g = loaded.get(snap);
    assert.ok(g, `${snap} was generated`);
    const spawnServer = () =>
      new StdioClientTransport({
        command: process.execPath,
        args: ['--import', 'tsx', FIXTURE, join(out.out, snap)],
        stderr: 'inherit',
      });
    const c = client(g);
    try {
      await exercise(snap, g, c, await c.connect(spawnServer()));
    } finally {
      await c.close();
    }
    if (g.table.lifecycle === 'stateless') await otherVersion(snap, g, spawnServer());
  });

  test(`${snap}: client and server over HTTP`, async () => {
    const g = loaded.get(snap);
    assert.ok(g, `${snap} was generated`);
    const make = snapshotServer(g);
    const stateless = g.table.lifecycle === 'stateless';
    const endpoint = stateless ? createStatelessHttpHandler({ tables: [g.table] }) : undefined;
    if (endpoint) await make().connect(endpoint.transport);
    const http = createServer(
      endpoint ?? createStreamableHttpHandler({ tables: [g.table], onSession: (t) => make().connect(t) }),
    );
    await new Promise<void>((done) => http.listen(0, '127.0.0.1', done));
    const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
    const transport = () => (stateless ? new StatelessHttpClientTransport({ url }) : new HttpClientTransport({ url }));
    const c = client(g);
    try {
      await exercise(snap, g, c, await c.connect(transport()));
      if (stateless) await otherVersion(snap, g, transport());
    } finally {
      await c.close();
      await endpoint?.close();
      http.closeAllConnections();
      await new Promise<void>((done) => http.close(() => done()));
    }
  });
}

test.run();
