/**
 * Issue 11, finding 12 (first half): peer values are never stringified with their own members.
 * A stateless request whose `params.name` (or `uri`, `taskId`, or an `x-mcp-header` argument)
 * is an object with a `toString` member, an array of such objects, a number, null or a huge
 * string, and whose metadata header does not match it, gets HTTP 400 with -32020 (Header
 * mismatch) naming the value safely — never a 500 — against `mcpgen serve --http` (both eras'
 * endpoint) and the stateless handler used directly; the client's header builder and the
 * server's header check used directly never throw on such values.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  checkRequestHeaders,
  requestHeaders,
  type ParamHeader,
} from '../../runtime/transport/http/stateless/headers.js';
import { startServe, type Served } from '../runtime/tasks/serve-process.js';
import { startModern, type Running } from '../runtime/transport/http/stateless/helpers.js';
import { TASKS_EXTENSION, metaOf, postRaw, statelessHeaders } from './11-5-serve.js';

type Obj = Record<string, unknown>;

/** Values no string header can match; several make `String(v)` throw. */
const HOSTILE: Array<[string, unknown]> = [
  ['an object with a toString member', { toString: 1 }],
  ['an object with toString and valueOf members', { toString: {}, valueOf: {} }],
  ['an object with a string toString member', { toString: 'x', valueOf: 'x' }],
  ['an object with an own "__proto__" holding toString', JSON.parse('{"__proto__":{"toString":1,"valueOf":1}}')],
  ['an array holding an object with a toString member', [{ toString: 1 }]],
  ['an empty object', {}],
  ['a number', 42],
  ['true', true],
  ['null', null],
];
const LONG = 'y'.repeat(100_000);

/** The methods that carry Mcp-Name, and the params field it mirrors. */
const NAMED: Array<[string, string, Obj]> = [
  ['tools/call', 'name', { arguments: {} }],
  ['prompts/get', 'name', {}],
  ['resources/read', 'uri', {}],
  ['tasks/get', 'taskId', {}],
  ['tasks/update', 'taskId', { inputResponses: {} }],
  ['tasks/cancel', 'taskId', {}],
];

interface Answer {
  status: number;
  body: any;
}

/** POSTs one request whose `field` is `value`, with `Mcp-Name: x`. */
async function named(url: string, method: string, field: string, rest: Obj, value: unknown): Promise<Answer> {
  const params = { ...rest, [field]: value, _meta: metaOf({ extensions: { [TASKS_EXTENSION]: {} } }) };
  return postRaw(url, statelessHeaders({ method, params, mcpName: 'x' }), { jsonrpc: '2.0', id: 7, method, params });
}

function isMismatch(r: Answer, what: string): void {
  assert.is(r.status, 400, `${what}: ${r.status} ${JSON.stringify(r.body)?.slice(0, 300)}`);
  assert.is(r.body.id, 7, what);
  assert.is(r.body.error.code, -32020, what);
  assert.match(r.body.error.message, /does not match body value/, what);
  assert.ok(
    r.body.error.message.length < 400,
    `${what}: the message is short (${r.body.error.message.length} characters)`,
  );
}

async function checkEndpoint(url: string, xHeaderTool: { name: string; header: string; field: string }): Promise<void> {
  for (const [method, field, rest] of NAMED) {
    for (const [what, value] of HOSTILE)
      isMismatch(await named(url, method, field, rest, value), `${method} ${field}: ${what}`);
    const long = await named(url, method, field, rest, LONG);
    isMismatch(long, `${method} ${field}: a 100 000-character string`);
    assert.ok(long.body.error.message.includes(`'${'y'.repeat(80)}…'`), long.body.error.message);
  }
  // an x-mcp-header argument whose body value is not a string, number or boolean
  for (const [what, value] of HOSTILE.filter(([, v]) => typeof v === 'object' && v !== null)) {
    const params = { name: xHeaderTool.name, arguments: { [xHeaderTool.field]: value }, _meta: metaOf() };
    const headers = {
      ...statelessHeaders({ method: 'tools/call', params, mcpName: xHeaderTool.name }),
      [`Mcp-Param-${xHeaderTool.header}`]: 'x',
    };
    isMismatch(
      await postRaw(url, headers, { jsonrpc: '2.0', id: 7, method: 'tools/call', params }),
      `Mcp-Param-${xHeaderTool.header}: ${what}`,
    );
  }
  // the endpoint still serves
  const alive = await postRaw(url, statelessHeaders({ method: 'server/discover', params: {} }), {
    jsonrpc: '2.0',
    id: 8,
    method: 'server/discover',
    params: { _meta: metaOf() },
  });
  assert.is(alive.status, 200);
  assert.ok(alive.body.result.supportedVersions.includes('2026-07-28'));
}

let served: Served | undefined;

test('serve --http (draft): a params.name, uri or taskId that is an object with a toString member (or any non-string) and a mismatching Mcp-Name header gets 400 -32020, never 500', async () => {
  served = await startServe('--rev', 'draft');
  await checkEndpoint(served.url, { name: 'test_x_mcp_header', header: 'Region', field: 'region' });
  assert.is(served.proc.exitCode, null, 'the server process is alive');
});

let modern: Running | undefined;

test('the stateless handler used directly: the same values get 400 -32020, for Mcp-Name and Mcp-Param-*', async () => {
  modern = await startModern();
  await checkEndpoint(modern.url, { name: 'sql', header: 'Region', field: 'region' });
  // a nested annotated argument too
  const params = { name: 'sql', arguments: { query: 'q', opts: { tenant: { toString: 1 } } }, _meta: metaOf() };
  const headers = { ...statelessHeaders({ method: 'tools/call', params, mcpName: 'sql' }), 'Mcp-Param-Tenant': 'x' };
  isMismatch(
    await postRaw(modern.url, headers, { jsonrpc: '2.0', id: 7, method: 'tools/call', params }),
    'Mcp-Param-Tenant: an object with a toString member',
  );
});

test("checkRequestHeaders and requestHeaders never run a peer value's members and never throw", () => {
  const region: ParamHeader[] = [{ name: 'Region', path: ['region'], type: 'string' }];
  const headers = {
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': 'tools/call',
    'mcp-name': 'x',
    'mcp-param-region': 'x',
  };
  for (const [what, value] of [...HOSTILE, ['a long string', LONG] as [string, unknown]]) {
    const version = {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'x', _meta: { 'io.modelcontextprotocol/protocolVersion': value } },
    };
    const e1 = checkRequestHeaders(version, headers, region);
    assert.is(e1?.code, -32020, `protocol version ${what}`);
    assert.match(e1!.message, /MCP-Protocol-Version header value '2026-07-28' does not match body value /);
    const name = {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: value, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } },
    };
    assert.is(checkRequestHeaders(name, headers, region)?.code, -32020, `name ${what}`);
    const arg = {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name: 'x',
        arguments: { region: value },
        _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' },
      },
    };
    if (value !== null && typeof value === 'object')
      assert.is(checkRequestHeaders(arg, headers, region)?.code, -32020, `argument ${what}`);
    // the client mirrors only strings, numbers and booleans
    const out = requestHeaders(arg, () => region);
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
      assert.ok(out['Mcp-Param-Region'] !== undefined, what);
    else assert.is(out['Mcp-Param-Region'], undefined, `no Mcp-Param-Region for ${what}`);
    const noName = requestHeaders(name);
    assert.is(noName['Mcp-Name'], typeof value === 'string' ? value : undefined, what);
  }
});

test.after(async () => {
  await served?.stop();
  await modern?.close();
});

test.run();
