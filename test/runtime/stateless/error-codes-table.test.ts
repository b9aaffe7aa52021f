/**
 * MCP error codes are revision facts read from the table (`table.errorCodes`, the constants of
 * the revision's schema.ts): a stateless server session answers an unsupported protocol version
 * and a missing client capability (requireClientCapabilities, an input request the client cannot
 * take) with the codes of its table. A table with other values changes the codes on the wire.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as draft from '../../../generated/draft/index.js';
import { ServerSession } from '../../../runtime/session/server.js';
import { errorCodeOf, type ProtocolMaps, type ProtocolTable } from '../../../runtime/protocol/table.js';
import { inputRequest, inputRequired, requireClientCapabilities } from '../../../runtime/stateless/mrtr.js';
import type { RequestContext } from '../../../runtime/engine/context.js';
import { createMemoryPair } from '../../../runtime/transport/memory.js';
import type { JSONRPCMessage } from '../../../runtime/jsonrpc/transport.js';

const approve = {
  mode: 'form',
  message: 'Approve?',
  requestedSchema: { type: 'object', properties: { approved: { type: 'boolean' } } },
};

async function raw(table: ProtocolTable) {
  const [a, b] = createMemoryPair();
  const handlers = {
    'tools/call': (p: { name: string }, ctx: RequestContext) => {
      if (p.name === 'needs-roots') requireClientCapabilities(ctx, { roots: {} });
      if (p.name === 'asks') return inputRequired({ inputRequests: { ok: inputRequest.elicit(approve as never) } });
      return { resultType: 'complete', content: [] };
    },
  };
  const server = new ServerSession<ProtocolMaps>(table, {
    serverInfo: { name: 's', version: '1' },
    capabilities: { tools: {} },
    handlers: handlers as never,
  });
  await server.connect(a);
  const waiting = new Map<unknown, (m: JSONRPCMessage) => void>();
  await b.start({
    onMessage: (m) => {
      if (m.id !== undefined && !('method' in m)) waiting.get(m.id)?.(m);
    },
    onClose: () => undefined,
  });
  let next = 0;
  const call = (name: string, version = table.protocolVersion): Promise<JSONRPCMessage> => {
    const id = ++next;
    const got = new Promise<JSONRPCMessage>((r) => waiting.set(id, r));
    const _meta = {
      'io.modelcontextprotocol/protocolVersion': version,
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    void b.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {}, _meta } });
    return got;
  };
  return { call, close: () => server.close() };
}

const codeOf = (m: JSONRPCMessage) => (m.error as { code: number } | undefined)?.code;

test("the draft table's codes go out: -32022 unsupported version, -32021 missing client capability", async () => {
  const s = await raw(draft.table);
  assert.is(codeOf(await s.call('x', '1999-01-01')), errorCodeOf(draft.table, 'UNSUPPORTED_PROTOCOL_VERSION'));
  assert.is(errorCodeOf(draft.table, 'UNSUPPORTED_PROTOCOL_VERSION'), -32022);
  assert.is(codeOf(await s.call('needs-roots')), -32021);
  assert.is(codeOf(await s.call('asks')), -32021);
  await s.close();
});

test('a table with other values: those codes go out instead', async () => {
  const table: ProtocolTable = {
    ...draft.table,
    errorCodes: {
      ...draft.table.errorCodes,
      UNSUPPORTED_PROTOCOL_VERSION: -32099,
      MISSING_REQUIRED_CLIENT_CAPABILITY: -32098,
    },
  };
  const s = await raw(table);
  assert.is(codeOf(await s.call('x', '1999-01-01')), -32099);
  assert.is(codeOf(await s.call('needs-roots')), -32098);
  assert.is(codeOf(await s.call('asks')), -32098);
  const ok = await s.call('plain');
  assert.equal(ok.result, { resultType: 'complete', content: [] });
  await s.close();
});

test('errorCodeOf: own members only; a code the revision does not define throws RangeError', () => {
  assert.throws(
    () => errorCodeOf(draft.table, 'URL_ELICITATION_REQUIRED'),
    (e: unknown) => e instanceof RangeError,
  );
  assert.throws(
    () => errorCodeOf(draft.table, 'constructor'),
    (e: unknown) => e instanceof RangeError,
  );
  assert.is(errorCodeOf(draft.table, 'HEADER_MISMATCH'), -32020);
});

test.run();
