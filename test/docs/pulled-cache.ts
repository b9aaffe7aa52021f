/**
 * A user cache as `mcpgen pull` leaves it, made offline: the pull of every pinned revision
 * (schema/resolve.ts `pull`, what `mcpgen pull --rev all` runs, here in this process: no CLI
 * start-up) downloads the pinned files from a mirror of `$MCP_SPEC_DIR` (the upstream
 * repository's layout, served by node:http on 127.0.0.1) into a temporary folder, verifying each
 * sha256 as it does from GitHub. The guide's pages and examples get it as `MCPGEN_CACHE`.
 */
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, normalize, sep } from 'node:path';
import { loadPins, pull } from '../../schema/resolve.js';

/** The folder `pull` filled (`<dir>/<commit>/schema/<rev>/schema.{json,ts}`), and its removal. */
export async function pulledCache(specDir: string): Promise<{ dir: string; cleanup: () => void }> {
  const dir = mkdtempSync(join(tmpdir(), 'mcpgen-guide-cache-'));
  // a mirror of the spec folder: GET /<path> of a file under schema/, else 404
  const mirror = createServer((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url ?? '/', 'http://mirror').pathname)).slice(1);
    if (req.method !== 'GET' || !path.startsWith(`schema${sep}`) || path.includes('..')) {
      res.writeHead(404).end();
      return;
    }
    readFile(join(specDir, path)).then(
      (body) => res.writeHead(200, { 'content-type': 'text/plain' }).end(body),
      () => res.writeHead(404).end(),
    );
  });
  await new Promise<void>((ready) => mirror.listen(0, '127.0.0.1', ready));
  const { port } = mirror.address() as AddressInfo;
  try {
    await pull(Object.keys(loadPins().revisions), { cacheDir: dir, baseUrl: `http://127.0.0.1:${port}/{path}` });
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  } finally {
    mirror.close();
    mirror.closeAllConnections();
  }
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
