/**
 * An outputSchema naming a format the schema compiler does not know: ajv ignores the format and
 * warns; the warning goes through the client's `logger`, once per format per process (it went to
 * stderr through console, once per compile), and nothing is written to stderr. Over a memory pair
 * with a 2025-11-25 server whose tools use the format `no-such-format` in two schemas. The set of
 * formats warned of starts afresh with the compiled-schema cache, so it cannot grow past it.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Client, Server } from '../../../generated/2025-11-25/index.js';
import { createMemoryPair } from '../../../runtime/transport/memory.js';
import { compileSchema } from '../../../runtime/protocol/json-schema.js';
import { schemaWarnings } from '../../../runtime/protocol/schema-warnings.js';

const schema = (key: string) => ({
  type: 'object' as const,
  properties: { [key]: { type: 'string', format: 'no-such-format' } },
});

test('an unknown format in outputSchemas: one warning through the logger, stderr empty, results still checked', async () => {
  const [a, b] = createMemoryPair();
  await new Server({
    serverInfo: { name: 's', version: '1' },
    capabilities: { tools: {} },
    handlers: {
      'tools/list': () => ({
        tools: [
          { name: 'a', inputSchema: { type: 'object' }, outputSchema: schema('x') },
          { name: 'b', inputSchema: { type: 'object' }, outputSchema: schema('y') },
        ],
      }),
      'tools/call': (p) => ({ content: [], structuredContent: p.name === 'a' ? { x: 'any text' } : { y: 5 } }),
    },
  }).connect(b);
  const warnings: unknown[][] = [];
  const client = new Client({
    clientInfo: { name: 'c', version: '1' },
    logger: { warn: (...args: unknown[]) => warnings.push(args) },
  });
  await client.connect(a);
  const stderr: string[] = [];
  const write = process.stderr.write;
  const warn = console.warn;
  process.stderr.write = ((chunk: string | Uint8Array) => (stderr.push(String(chunk)), true)) as typeof write;
  console.warn = (...args: unknown[]) => stderr.push(args.join(' '));
  let bad: unknown;
  try {
    await client.callTool({ name: 'a' });
    await client.callTool({ name: 'a' });
    bad = await client.callTool({ name: 'b' }).catch((e: unknown) => e);
  } finally {
    process.stderr.write = write;
    console.warn = warn;
  }
  assert.equal(stderr, []);
  assert.equal(warnings, [['unknown format "no-such-format" ignored in schema at path "#/properties/x"']]);
  // the rest of the schema is still met: b's y must be a string
  assert.is((bad as Error).name, 'OutputSchemaError');
  await client.close();
});

test('the formats warned of are forgotten with the compiled schemas (bounded by the cache, 1000 schemas)', () => {
  const warnings: unknown[] = [];
  schemaWarnings.logger = { warn: (message: unknown) => warnings.push(message) };
  try {
    compileSchema({ type: 'string', format: 'bounded-format' }, 'first');
    compileSchema({ type: 'string', format: 'bounded-format', minLength: 1 }, 'same format');
    assert.is(warnings.length, 1);
    // 1000 more schemas: the cache starts afresh, and the warned formats with it
    for (let i = 0; i <= 1000; i++) compileSchema({ type: 'integer', minimum: i }, `filler ${i}`);
    compileSchema({ type: 'string', format: 'bounded-format', maxLength: 9 }, 'after');
    assert.is(warnings.length, 2);
  } finally {
    schemaWarnings.logger = undefined;
  }
});

test.run();
