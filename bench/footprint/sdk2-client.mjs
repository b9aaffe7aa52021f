// The minimal stdio client of ./mcpgen-client.ts on @modelcontextprotocol/client 2.x.
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const [command, ...args] = process.argv.slice(2);
const client = new Client({ name: 'footprint', version: '0.0.0' });
await client.connect(new StdioClientTransport({ command, args }));
const { tools } = await client.listTools();
console.log(JSON.stringify(tools.map((t) => t.name)));
await client.close();
