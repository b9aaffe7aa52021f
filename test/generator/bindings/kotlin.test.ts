/**
 * Kotlin binding: compile-only. Debian's kotlinc (1.3) compiles the plain data classes; Debian
 * ships no Kotlin JSON library to round-trip them with (see BINDING_LANGUAGES.kotlin).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BINDING_LANGUAGES } from '../../../generator/emit/bindings/index.js';
import { generate, requireTool, run } from './harness.js';

test('kotlin binding is compile-only, as the table says', () => {
  assert.is(BINDING_LANGUAGES.kotlin.test.kind, 'compile-only');
});

test('kotlin binding compiles with kotlinc', async () => {
  requireTool('kotlin', 'kotlinc');
  const { dir } = await generate('kotlin');
  run('kotlinc', ['-nowarn', 'bindings/kotlin/McpTypes.kt', '-d', 'classes'], { cwd: dir });
  assert.ok(
    existsSync(join(dir, 'classes', 'mcp', 'types', 'AudioContent.class')),
    'kotlinc wrote no AudioContent.class',
  );
});

test.run();
