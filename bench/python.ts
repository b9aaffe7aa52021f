/**
 * `npm run bench:python [-- --quick]`: the Python benchmark (python/bench/bench.py) in the
 * environment of python/venv.sh, on the generated Python packages: `tools/call` → echo over stdio
 * (64 in flight) and Streamable HTTP (16 clients), ours (mcpgen_runtime and the generated
 * package), the official Python SDK (`mcp`) and a bare asyncio JSON-RPC echo, side by side.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { PYTHON_DIR, pythonBin, pythonChildEnv } from '../test/python/support.js';

const child = spawn(pythonBin(), [join(PYTHON_DIR, 'bench', 'bench.py'), ...process.argv.slice(2)], {
  stdio: 'inherit',
  env: pythonChildEnv(),
});
child.on('exit', (code) => process.exit(code ?? 1));
