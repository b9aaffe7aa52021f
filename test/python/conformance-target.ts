/**
 * The Python language target of the conformance runner (test/conformance/run.ts): its reference
 * server is `python -m mcpgen_reference --rev <rev> --http 0` (python/reference), its client
 * `python -m mcpgen_reference.conformance_client`, both in the environment of python/venv.sh on
 * the generated packages of python/generate.ts.
 */
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type LanguageTarget, commandServer } from '../conformance/language.js';
import { pythonBin, pythonChildEnv, pythonPath } from './support.js';

export const PYTHON: LanguageTarget = {
  name: 'python',
  async startServer(revision) {
    const served = await commandServer(
      pythonBin(),
      ['-m', 'mcpgen_reference', '--rev', revision ?? '2025-11-25', '--http', '0'],
      pythonChildEnv(),
    );
    return { url: served.url, stop: served.stop };
  },
  async clientCommand(work) {
    // one script, so the suite's command line stays a plain path
    const script = join(work, 'python-conformance-client.sh');
    writeFileSync(
      script,
      `#!/bin/sh\nPYTHONPATH=${JSON.stringify(pythonPath())} PYTHONDONTWRITEBYTECODE=1 exec ${JSON.stringify(pythonBin())} -m mcpgen_reference.conformance_client "$@"\n`,
    );
    chmodSync(script, 0o755);
    return script;
  },
};
