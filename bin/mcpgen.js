#!/usr/bin/env node
// mcpgen command-line entry: loads the TypeScript sources through tsx and runs the CLI.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../generator/cli.ts');
process.exitCode = await main(process.argv.slice(2));
