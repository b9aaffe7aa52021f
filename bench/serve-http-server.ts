/**
 * `serve --http` without the CLI around it: the 2025-11-25 reference server over Streamable
 * HTTP (and the old HTTP+SSE endpoints) on an ephemeral loopback port, URL on stdout. The
 * runtime's own footprint, for bench/http.ts's idle-session RSS (the `mcpgen` CLI also loads
 * the generator: TypeScript, quicktype, handlebars). `node --import tsx bench/serve-http-server.ts`.
 */
import { loadRevision } from '../generator/commands/serve.js';
import { serveHttp } from '../generator/commands/serve-http.js';

const served = await serveHttp(await loadRevision('2025-11-25'), { port: 0 });
console.log(served.url);
const stop = (): void => void served.close().then(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
