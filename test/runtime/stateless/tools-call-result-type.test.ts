/**
 * A tools/call result of 2026-07-28 and the draft is checked by its `resultType` (basic/index,
 * ResultType): `"complete"` (or none, filled in as `"complete"`) must be a CallToolResult,
 * `"input_required"` an InputRequiredResult, and another `resultType` (an extension's, such as
 * the tasks extension's `"task"`) passes as before when the result has no `content`.
 * InputRequiredResult has only optional members besides `resultType` (any string), so the plain
 * union of the two let any object with a string `resultType` through: a server answered a
 * malformed CallToolResult, and a client took one as its result. Here: the generated validators, a server's answer -32603 (ServerFeatures' check, the
 * engine's for another handler) over the stateless HTTP endpoint on 127.0.0.1, and the generated
 * Client's InvalidResultError for a malformed result from a server on 127.0.0.1.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as v2026 from '../../../generated/2026-07-28/index.js';
import * as draft from '../../../generated/draft/index.js';
import { CallToolRequest$result as result2026 } from '../../../generated/2026-07-28/validators.gen.js';
import { CallToolRequest$result as resultDraft } from '../../../generated/draft/validators.gen.js';
import type { RequestHandler } from '../../../runtime/engine/peer.js';
import { InvalidResultError } from '../../../runtime/jsonrpc/errors.js';
import { ServerFeatures } from '../../../runtime/features/server-features.js';
import type { ProtocolTable } from '../../../runtime/protocol/table.js';
import { statelessServer } from './harness.js';
import { StatelessHttpClientTransport } from '../../../runtime/transport/http/stateless/node-client.js';

const text = [{ type: 'text', text: 'ok' }];
/** Malformed complete results: each passed as an InputRequiredResult before. */
const BAD_COMPLETE = [
  { resultType: 'complete', content: [{ type: 'txt', text: 'a' }] },
  { resultType: 'complete', content: 'ok' },
  { resultType: 'complete', content: [{ type: 'text' }], requestState: 'abc' },
  { resultType: 'later', content: 'ok' },
];

test('the validators: complete is a CallToolResult, input_required an InputRequiredResult, another resultType has no content', () => {
  for (const [rev, check] of [
    ['2026-07-28', result2026],
    ['draft', resultDraft],
  ] as const) {
    assert.ok(check({ resultType: 'complete', content: text }), `${rev}: a CallToolResult`);
    assert.ok(check({ resultType: 'input_required', requestState: 's' }), `${rev}: an InputRequiredResult`);
    for (const bad of BAD_COMPLETE) assert.not.ok(check(bad), `${rev}: ${JSON.stringify(bad)}`);
    assert.not.ok(check({ resultType: 'input_required', requestState: 5 }), `${rev}: requestState not a string`);
    assert.not.ok(check({ content: text }), `${rev}: no resultType (the runtime fills in "complete" first)`);
    assert.not.ok(check({ resultType: 'later', content: text }), `${rev}: content makes it a CallToolResult`);
    // an extension's result (the tasks extension's CreateTaskResult) passes as before
    assert.ok(check({ resultType: 'task', taskId: 't1', status: 'working', ttlMs: 60000 }), `${rev}: "task"`);
    // the shape left open (compact validators have no `not`): complete, no content
    assert.ok(check({ resultType: 'complete', requestState: 'abc' }), `${rev}: complete without content`);
    // the error names the failing member, as before
    check({ resultType: 'complete', content: [{ type: 'txt', text: 'a' }] });
    assert.ok(
      check.errors?.some((e) => e.instancePath.startsWith('/content/0')),
      JSON.stringify(check.errors),
    );
  }
});

for (const [rev, table] of [
  ['2026-07-28', v2026.serverTable],
  ['draft', draft.serverTable],
] as const) {
  test(`${rev} server: a malformed complete tools/call result is -32603 (ServerFeatures and a plain handler)`, async () => {
    const f = new ServerFeatures<draft.Protocol>({ logger: {} });
    let answer: unknown;
    f.tool({ name: 'good', handler: () => 'ok' });
    f.tool({ name: 'bad', handler: () => answer as never });
    const s = await statelessServer(table as unknown as ProtocolTable, f.handlers() as Record<string, RequestHandler>);
    let plainAnswer: unknown;
    const plain = await statelessServer(table as unknown as ProtocolTable, {
      'tools/list': () => ({ tools: [] }),
      'tools/call': () => plainAnswer,
    });
    try {
      assert.equal((await s.call(1, 'good')).result?.content, text);
      let id = 2;
      for (const bad of [...BAD_COMPLETE, { content: [{ type: 'txt', text: 'a' }] }]) {
        // a ServerFeatures tool's result without content gets `content: []` (tools.ts): only those with one here
        if ('content' in bad) {
          answer = bad;
          const out = await s.call(id++, 'bad');
          assert.is(out.error?.code, -32603, `${JSON.stringify(bad)} answered ${JSON.stringify(out)}`);
          assert.match(out.error?.message ?? '', /^Tool bad returned a result that is not a valid CallToolResult/);
        }
        plainAnswer = bad;
        const viaEngine = await plain.call(id++, 'x');
        assert.is(viaEngine.error?.code, -32603, `${JSON.stringify(bad)} answered ${JSON.stringify(viaEngine)}`);
      }
    } finally {
      await s.close();
      await plain.close();
    }
  });
}

/** An HTTP server on 127.0.0.1 answering server/discover, then each tools/call with `answer`. */
async function rawServer(protocolVersion: string, answer: () => unknown) {
  const http = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      const m = JSON.parse(body) as { id?: number | string; method?: string };
      if (m.id === undefined) {
        res.writeHead(202).end();
        return;
      }
      const result =
        m.method === 'server/discover'
          ? {
              resultType: 'complete',
              supportedVersions: [protocolVersion],
              capabilities: { tools: {} },
              serverInfo: { name: 'raw', version: '1' },
              ttlMs: 0,
              cacheScope: 'public',
            }
          : answer();
      res
        .writeHead(200, { 'Content-Type': 'application/json' })
        .end(JSON.stringify({ jsonrpc: '2.0', id: m.id, result }));
    });
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  const close = async () => {
    http.closeAllConnections();
    await new Promise<void>((r) => http.close(() => r()));
  };
  return { url, close };
}

for (const [rev, Client, protocolVersion] of [
  ['2026-07-28', v2026.Client, v2026.table.protocolVersion],
  ['draft', draft.Client, draft.table.protocolVersion],
] as const) {
  test(`${rev} client: a malformed complete tools/call result is an InvalidResultError`, async () => {
    let answer: unknown = { resultType: 'complete', content: text };
    const server = await rawServer(protocolVersion, () => answer);
    const client = new Client({ clientInfo: { name: 'c', version: '1' }, checkToolOutput: false });
    try {
      await client.connect(new StatelessHttpClientTransport({ url: server.url }));
      assert.equal((await client.callTool({ name: 'x', arguments: {} })).content, text);
      for (const bad of [...BAD_COMPLETE, { content: 'ok' }]) {
        answer = bad;
        const err = await client.callTool({ name: 'x', arguments: {} }).then(
          (r) => r,
          (e: unknown) => e,
        );
        assert.instance(err, InvalidResultError, `${JSON.stringify(bad)} gave ${JSON.stringify(err)}`);
      }
    } finally {
      await client.close();
      await server.close();
    }
  });
}

test.run();
