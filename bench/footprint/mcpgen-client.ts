// A minimal stdio client: spawns the server named by argv, lists its tools, prints their names.
// Imported as a user's project does: the generated revision from its own tree, the runtime by
// its package name (./bundle.ts resolves that to the built package, or to the workspace sources).
import { Client } from '../../generated/2025-11-25/index.js';
import { StdioClientTransport } from '@mcpgen/runtime/stdio';

const [command, ...args] = process.argv.slice(2);
const client = new Client({ clientInfo: { name: 'footprint', version: '0.0.0' } });
await client.connect(new StdioClientTransport({ command: command!, args }));
const { tools } = await client.listTools();
console.log(JSON.stringify(tools.map((t) => t.name)));
await client.close();
