// What the footprint entries import from mcpgen: the only specifiers to change once they are
// built from the installed packages (the generated revision in the user's tree, the runtime by
// its package name).
export { Client, Server, table } from '../../generated/2025-11-25/index.js';
export { StdioClientTransport, StdioServerTransport } from '../../runtime/transport/stdio.js';
export { ServerFeatures } from '../../runtime/features/server-features.js';
