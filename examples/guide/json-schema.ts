// docs/guide/json-schema.md: JSON Schema 2020-12 in tool schemas (the spec's default dialect), checked by the runtime on both sides.
import assert from 'node:assert/strict';
import { Client, Server, type Protocol } from '../../generated/2025-11-25/index.js';
import { ServerFeatures } from '@mcpgen/runtime/features';
import { createMemoryPair } from '@mcpgen/runtime/memory';

// 2020-12 keywords: $defs and $ref, prefixItems, dependentRequired, unevaluatedProperties
const routeArguments = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  $defs: {
    point: { type: 'array', prefixItems: [{ type: 'number' }, { type: 'number' }], items: false, minItems: 2 },
  },
  properties: {
    path: { type: 'array', items: { $ref: '#/$defs/point' }, minItems: 2 },
    unit: { enum: ['km', 'mi'] },
    precision: { type: 'integer', minimum: 0 },
  },
  required: ['path'],
  dependentRequired: { precision: ['unit'] },
  unevaluatedProperties: false,
};

const features = new ServerFeatures<Protocol>();
features.tool({
  name: 'route',
  description: 'distance along a path of points',
  inputSchema: routeArguments,
  outputSchema: {
    type: 'object',
    properties: { distance: { type: 'number', minimum: 0 } },
    required: ['distance'],
  },
  handler: (args) => {
    const { path } = args as { path: [number, number][] };
    let distance = 0;
    for (let i = 1; i < path.length; i++)
      distance += Math.hypot(path[i][0] - path[i - 1][0], path[i][1] - path[i - 1][1]);
    return { content: [{ type: 'text', text: String(distance) }], structuredContent: { distance } };
  },
});

const server = new Server({
  serverInfo: { name: 'routes', version: '1.0.0' },
  capabilities: features.capabilities(),
  handlers: features.handlers(),
});
const client = new Client({ clientInfo: { name: 'app', version: '1.0.0' } });
const [clientSide, serverSide] = createMemoryPair();
await server.connect(serverSide);
await client.connect(clientSide);

const line = [
  [0, 0],
  [3, 4],
];
const ok = await client.callTool({ name: 'route', arguments: { path: line, unit: 'km' } });
console.log(ok.structuredContent); // { distance: 5 }

const problems = async (args: Record<string, unknown>) => {
  const r = await client.callTool({ name: 'route', arguments: args });
  return r.isError && r.content[0]?.type === 'text' ? r.content[0].text : 'accepted';
};
const bent = [[0, 0, 1], ...line.slice(1)];
console.log(await problems({ path: bent })); // a point with a third item: items: false
// Invalid arguments for tool route: path.0: must NOT have more than 2 items
console.log(await problems({ path: line, precision: 2 })); // precision needs unit: dependentRequired
// Invalid arguments for tool route: (arguments): must have property unit when property precision is present
console.log(await problems({ path: line, colour: 'red' })); // not a property: unevaluatedProperties
// Invalid arguments for tool route: (arguments): must NOT have unevaluated properties

assert.deepEqual(ok.structuredContent, { distance: 5 });
assert.equal(
  await problems({ path: bent }),
  'Invalid arguments for tool route: path.0: must NOT have more than 2 items',
);
assert.equal(
  await problems({ path: line, precision: 2 }),
  'Invalid arguments for tool route: (arguments): must have property unit when property precision is present',
);
assert.equal(
  await problems({ path: line, colour: 'red' }),
  'Invalid arguments for tool route: (arguments): must NOT have unevaluated properties',
);
assert.equal(await problems({ path: line, precision: 2, unit: 'mi' }), 'accepted');
// the tool's schema reaches the client as written
const [tool] = (await client.listTools({})).tools;
assert.equal(tool.inputSchema.$schema, 'https://json-schema.org/draft/2020-12/schema');

await client.close();
console.log('ok json-schema');
