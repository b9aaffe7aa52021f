// A minimal stdio client: spawns the server named by argv, lists its tools, prints their names.
import { Client, StdioClientTransport } from './mcpgen.js';

const [command, ...args] = process.argv.slice(2);
const client = new Client({ clientInfo: { name: 'footprint', version: '0.0.0' } });
await client.connect(new StdioClientTransport({ command: command!, args }));
const { tools } = await client.listTools();
console.log(JSON.stringify(tools.map((t) => t.name)));
await client.close();
