/**
 * `serve --http` without the CLI around it: the 2025-11-25 reference server over Streamable
 * HTTP (and the old HTTP+SSE endpoints) on an ephemeral loopback port, URL on stdout. The
 * runtime's own footprint, for bench/http.ts's idle-session memory (the `mcpgen` CLI also loads
 * the generator: TypeScript, handlebars). The revision is imported statically, so
 * the script bundles into one plain JS file that runs without a TypeScript loader (bench/http.ts
 * builds it with esbuild); `node --import tsx bench/serve-http-server.ts` runs it from source.
 */
import { Server, table } from '../generated/2025-11-25/index.js';
import type { ServerClass } from '../reference/server.js';
import { serveHttp } from '../cli/serve/http.js';

const served = await serveHttp({ Server: Server as unknown as ServerClass, table }, { port: 0 });
console.log(served.url);
const stop = (): void => void served.close().then(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
