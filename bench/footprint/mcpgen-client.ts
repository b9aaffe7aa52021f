// A minimal stdio client: spawns the server named by argv, lists its tools, prints their names.
// The two import specifiers are the only lines to change for a build from the installed packages
// (the generated revision in the user's tree, the runtime by its package name).
import { Client } from '../../generated/2025-11-25/index.js';
import { StdioClientTransport } from '../../runtime/transport/stdio.js';

const [command, ...args] = process.argv.slice(2);
const client = new Client({ clientInfo: { name: 'footprint', version: '0.0.0' } });
await client.connect(new StdioClientTransport({ command: command!, args }));
const { tools } = await client.listTools();
console.log(JSON.stringify(tools.map((t) => t.name)));
await client.close();
