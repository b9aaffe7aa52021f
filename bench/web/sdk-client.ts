// Bundle-size probe: the same browser client with the official SDK v2.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const client = new Client({ name: 'app', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
await client.connect(new StreamableHTTPClientTransport(new URL(`${location.origin}/mcp`)));
console.log(await client.callTool({ name: 'add', arguments: { a: 1, b: 2 } }));
