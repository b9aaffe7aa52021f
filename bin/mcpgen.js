#!/usr/bin/env node
// mcpgen command-line entry: loads the TypeScript sources through tsx and runs the CLI.
import { register } from 'tsx/esm/api';

// A reader that stops early (`mcpgen diff … | head`) closes our stdout: stop quietly, as other
// command-line tools do, instead of an unhandled 'error' event. (serve's stdio transport
// handles its own stdout.)
if (process.argv[2] !== 'serve') {
  process.stdout.on('error', (e) => {
    if (e.code !== 'EPIPE') process.stderr.write(`mcpgen: stdout: ${e.message}\n`);
    process.exit(e.code === 'EPIPE' ? 0 : 1);
  });
}

register();
const { main } = await import('../cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
