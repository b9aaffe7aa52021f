// docs/guide/stdio.md: a client spawns its server and talks to it over stdin/stdout, in both eras.
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import * as v2025 from '../../generated/2025-11-25/index.js';
import * as draft from '../../generated/draft/index.js';
import { RpcError } from '@mcpgen/runtime';
import { StdioClientTransport } from '@mcpgen/runtime/stdio';

// the servers are stdio.server.ts (2025-11-25) and stdio.server-draft.ts, run by this node (tsx compiles them)
const spawnServer = (file: string) =>
  new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', fileURLToPath(new URL(file, import.meta.url))],
  });

// 2025-11-25: connect() runs the initialize handshake
const client = new v2025.Client({ clientInfo: { name: 'app', version: '1.0.0' } });
const server = await client.connect(spawnServer('./stdio.server.ts'));
console.log(server.protocolVersion, server.serverInfo?.name); // 2025-11-25 adder
const sum = await client.callTool({ name: 'add', arguments: { a: 2, b: 40 } });
console.log(sum.content); // [ { type: 'text', text: '42' } ]
await client.close(); // closes the server's stdin; the server exits

assert.equal(server.protocolVersion, '2025-11-25');
assert.equal(server.serverInfo?.name, 'adder');
assert.deepEqual(sum.content, [{ type: 'text', text: '42' }]);

// draft: connect() sends server/discover; every request carries its own _meta
const modern = new draft.Client({ clientInfo: { name: 'app', version: '1.0.0' } });
const discovered = await modern.connect(spawnServer('./stdio.server-draft.ts'));
const result = await modern.callTool({ name: 'add', arguments: { a: 1, b: 2 } });
console.log(discovered.protocolVersion, result.content); // 2026-07-28 [ { type: 'text', text: '3' } ]

assert.equal(discovered.protocolVersion, draft.protocolVersion);
assert.deepEqual(result.content, [{ type: 'text', text: '3' }]);

// errors: arguments the tool's schema refuses are a tool error; an unknown tool is -32602
const invalid = await modern.callTool({ name: 'add', arguments: { a: 'x' } });
assert.equal(invalid.isError, true);
await assert.rejects(
  modern.callTool({ name: 'nope', arguments: {} }),
  (e: unknown) => e instanceof RpcError && e.code === -32602,
);
await modern.close();

console.log('ok stdio');
