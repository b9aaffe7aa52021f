/**
 * The Go language target of the conformance runner (test/conformance/run.ts): its reference
 * server is `mcpgen-reference --rev <rev> --http 0` (go/reference/cmd/mcpgen-reference), its
 * client `conformance-client` (go/reference/cmd/conformance-client), both built from the
 * reference module on the generated packages of go/generate.ts.
 */
import { type LanguageTarget, commandServer } from '../conformance/language.js';
import { buildGoCommand } from './support.js';

export const GO: LanguageTarget = {
  name: 'go',
  async startServer(revision) {
    const bin = await buildGoCommand('mcpgen-reference');
    const served = await commandServer(bin, ['--rev', revision ?? '2025-11-25', '--http', '0']);
    return { url: served.url, stop: served.stop };
  },
  async clientCommand() {
    return buildGoCommand('conformance-client');
  },
};
