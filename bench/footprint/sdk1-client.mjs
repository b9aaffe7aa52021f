// The minimal stdio client of ./mcpgen-client.ts on @modelcontextprotocol/sdk 1.x.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const [command, ...args] = process.argv.slice(2);
const client = new Client({ name: 'footprint', version: '0.0.0' });
await client.connect(new StdioClientTransport({ command, args }));
const { tools } = await client.listTools();
console.log(JSON.stringify(tools.map((t) => t.name)));
await client.close();
