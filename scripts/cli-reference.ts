/**
 * `npm run docs:cli [-- --check]`: writes docs/cli.md, the reference of every mcpgen command, from
 * the command records of cli/commands/ (the ones the parser and `mcpgen <command> --help` read:
 * cli/help.ts `cliReference`). With `--check` it writes nothing and exits 1 when docs/cli.md is not
 * current (test/cli/help.test.ts checks the same).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { cliReference } from '../cli/help.js';
import { COMMANDS } from '../cli/main.js';

/** The reference's path in the checkout. */
export const CLI_REFERENCE = fileURLToPath(new URL('../docs/cli.md', import.meta.url));

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const text = cliReference(COMMANDS);
  if (process.argv.includes('--check')) {
    let current = '';
    try {
      current = readFileSync(CLI_REFERENCE, 'utf8');
    } catch {}
    if (current !== text) {
      console.error('docs/cli.md is not current: run npm run docs:cli');
      process.exit(1);
    }
  } else writeFileSync(CLI_REFERENCE, text);
}
