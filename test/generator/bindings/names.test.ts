/**
 * Snapshot of the top-level type names each binding declares for the test revision, one file per
 * language under test/generator/bindings/names/. A rename shows up as a diff here; after checking it,
 * update the snapshot with UPDATE_SNAPSHOTS=1 node --import tsx test/run.ts bindings/names
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  BINDING_LANGUAGE_IDS,
  BINDING_LANGUAGES,
  emitBindings,
  emittedTypeNames,
} from '../../../generator/emit/bindings/index.js';
import { REVISION, TEST_HEADER, loadDefinitions } from './harness.js';

const snapshotDir = fileURLToPath(new URL('./names/', import.meta.url));
const update = process.env.UPDATE_SNAPSHOTS === '1';

const files = await emitBindings(
  { revision: REVISION, types: loadDefinitions(), header: TEST_HEADER },
  { languages: BINDING_LANGUAGE_IDS },
);

for (const language of BINDING_LANGUAGE_IDS) {
  test(`${language} type names match the snapshot`, () => {
    const { fileNames, dir } = BINDING_LANGUAGES[language];
    const texts = [...files]
      .filter(([path]) => (dir !== undefined ? path.startsWith(`${dir}/`) : fileNames.includes(path)))
      .map(([, text]) => text);
    assert.ok(texts.length > 0, `${language}: no files emitted`);
    const names = emittedTypeNames(language, texts);
    const path = join(snapshotDir, `${language}.txt`);
    const actual = `${names.join('\n')}\n`;
    if (update) {
      mkdirSync(snapshotDir, { recursive: true });
      writeFileSync(path, actual);
      return;
    }
    assert.ok(existsSync(path), `${language}: no snapshot ${path}; create it with UPDATE_SNAPSHOTS=1`);
    const expected = readFileSync(path, 'utf8')
      .split('\n')
      .filter((line) => line !== '');
    const added = names.filter((n) => !expected.includes(n));
    const removed = expected.filter((n) => !names.includes(n));
    assert.ok(
      added.length === 0 && removed.length === 0,
      `${language}: emitted type names changed (+ new, - gone):\n${[...added.map((n) => `  + ${n}`), ...removed.map((n) => `  - ${n}`)].join('\n')}\n` +
        'If the change is intended, update the snapshot: UPDATE_SNAPSHOTS=1 node --import tsx test/run.ts bindings/names',
    );
  });
}

test.run();
