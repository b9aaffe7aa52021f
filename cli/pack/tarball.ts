/**
 * The tarball of a package the way npm lays it out (`package/…`), deterministically: files in the
 * order given (the caller sorts them in code-unit order), fixed mtime (npm's
 * 1985-10-26T08:15:00Z), mode 0644, owner 0, ustar headers, gzip level 9. Used by `mcpgen pack`
 * (./build.ts) and by the tests that pack the runtime package.
 */
import { gzipSync } from 'node:zlib';

/** The package could not be built or packed (a compile error, an undeclared dependency, a path too long for tar). */
export class PackError extends Error {}

/** npm's fixed mtime for tarball entries: 1985-10-26T08:15:00Z. */
const MTIME = Date.UTC(1985, 9, 26, 8, 15, 0) / 1000;

function octal(n: number, width: number): string {
  return `${n.toString(8).padStart(width - 1, '0')}\0`;
}

/** One ustar header for a regular file. */
function tarHeader(path: string, size: number): Buffer {
  const h = Buffer.alloc(512);
  let name = path;
  let prefix = '';
  if (Buffer.byteLength(name) > 100) {
    const cut = path.lastIndexOf('/', 155);
    if (cut <= 0 || Buffer.byteLength(path.slice(cut + 1)) > 100)
      throw new PackError(`${path}: path too long for a tar header`);
    prefix = path.slice(0, cut);
    name = path.slice(cut + 1);
  }
  h.write(name, 0, 100);
  h.write(octal(0o644, 8), 100);
  h.write(octal(0, 8), 108);
  h.write(octal(0, 8), 116);
  h.write(octal(size, 12), 124);
  h.write(octal(MTIME, 12), 136);
  h.write('        ', 148);
  h.write('0', 156);
  h.write('ustar\0', 257);
  h.write('00', 263);
  h.write(prefix, 345, 155);
  let sum = 0;
  for (const b of h) sum += b;
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
  return h;
}

/** A gzipped tar of `files` under `package/`, in the given order. */
export function tarball(files: Map<string, Buffer>): Buffer {
  const parts: Buffer[] = [];
  for (const [p, data] of files) {
    parts.push(tarHeader(`package/${p}`, data.length), data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  parts.push(Buffer.alloc(1024));
  return gzipSync(Buffer.concat(parts), { level: 9 });
}

/** `@mcpgen/mcp-2025-11-25`, `1.0.0-rc.1+2025-11-25` → `mcpgen-mcp-2025-11-25-1.0.0-rc.1+2025-11-25.tgz` (npm's name). */
export function tarballName(name: string, version: string): string {
  return `${name.replace(/^@/, '').replace('/', '-')}-${version}.tgz`;
}
