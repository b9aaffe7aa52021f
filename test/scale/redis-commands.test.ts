/**
 * The Redis stores (sessions, events, tasks) define their Lua scripts as commands on one shared
 * ioredis client: a name defined twice is silently the last store's script (the event store's
 * claim release once replaced the session store's release of busy marks, so no Redis session
 * ever went idle). Every name must be defined once across runtime/stores/redis.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const DIR = fileURLToPath(new URL('../../runtime/stores/redis/', import.meta.url));

/** Each `defineCommand('<name>'` of the files of the Redis stores, as `<file>: <name>`. */
function definitions(files: Record<string, string>): Map<string, string[]> {
  const byName = new Map<string, string[]>();
  for (const [file, text] of Object.entries(files)) {
    for (const m of text.matchAll(/defineCommand\(\s*['"]([^'"]+)['"]/g)) {
      byName.set(m[1]!, [...(byName.get(m[1]!) ?? []), file]);
    }
  }
  return byName;
}

const twice = (byName: Map<string, string[]>) =>
  [...byName].filter(([, files]) => files.length > 1).map(([name, files]) => `${name}: ${files.join(', ')}`);

test('each Lua command name is defined once across the Redis stores', () => {
  const files = Object.fromEntries(
    readdirSync(DIR)
      .filter((f) => f.endsWith('.ts'))
      .map((f) => [f, readFileSync(join(DIR, f), 'utf8')]),
  );
  const byName = definitions(files);
  assert.ok(byName.size >= 8, `found ${byName.size} command names: the pattern no longer matches the stores`);
  assert.equal(twice(byName), []);
});

test('the check finds a name defined by two stores', () => {
  const byName = definitions({
    'sessions.ts': "client.defineCommand('mcpRelease', { numberOfKeys: 1, lua: RELEASE });",
    'events.ts': "client.defineCommand('mcpRelease', { numberOfKeys: 3, lua: RELEASE });",
  });
  assert.equal(twice(byName), ['mcpRelease: sessions.ts, events.ts']);
});

test.run();
