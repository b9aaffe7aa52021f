#!/usr/bin/env node
// mcpgen command-line entry. In a checkout (cli/main.ts is there) it runs the TypeScript
// sources through tsx, a devDependency; in the installed package it runs the compiled
// dist/mcpgen/cli/main.js with plain node (`npm run build` made it; tsx is not installed).
import { existsSync } from 'node:fs';

// A reader that stops early (`mcpgen diff … | head`) closes our stdout: stop quietly, as other
// command-line tools do, instead of an unhandled 'error' event. (serve's stdio transport
// handles its own stdout.)
if (process.argv[2] !== 'serve') {
  process.stdout.on('error', (e) => {
    if (e.code !== 'EPIPE') process.stderr.write(`mcpgen: stdout: ${e.message}\n`);
    process.exit(e.code === 'EPIPE' ? 0 : 1);
  });
}

const sources = new URL('../cli/main.ts', import.meta.url);
let main;
if (existsSync(sources)) {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import(sources.href));
} else {
  ({ main } = await import('../dist/mcpgen/cli/main.js'));
}
process.exitCode = await main(process.argv.slice(2));
