// node:fs with a globSync covering the patterns the conformance suites use (`**/name`, `*`,
// `?`, literal segments), matched against paths relative to `options.cwd`; see ./glob-shim.mjs.
import fs from 'node:fs';
import path from 'node:path';

export * from 'node:fs';
export default fs;

function toRegExp(pattern) {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '*' && pattern[i + 1] === '*') {
      i++;
      if (pattern[i + 1] === '/') {
        i++;
        re += '(?:.*/)?';
      } else re += '.*';
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

function walk(root, rel, out) {
  let entries;
  try {
    entries = fs.readdirSync(path.join(root, rel), { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) {
    const p = rel ? `${rel}/${e.name}` : e.name;
    out.push(p);
    if (e.isDirectory()) walk(root, p, out);
  }
}

export function globSync(patterns, options = {}) {
  const cwd = options.cwd ? String(options.cwd) : process.cwd();
  const res = (Array.isArray(patterns) ? patterns : [patterns]).map(toRegExp);
  const all = [];
  walk(cwd, '', all);
  return all.filter((p) => res.some((r) => r.test(p))).map((p) => p.split('/').join(path.sep));
}
