// Bundle-size probe: a browser app's MCP client (stateless revision, dual-era fallback off) with mcpgen.
import { Client } from '../../generated/2026-07-28/index.js';
import { StatelessHttpClientTransport } from '../../runtime/web.js';

const client = new Client({ clientInfo: { name: 'app', version: '1' } });
await client.connect(new StatelessHttpClientTransport({ url: `${location.origin}/mcp` }));
console.log(await client.callTool({ name: 'add', arguments: { a: 1, b: 2 } }));
