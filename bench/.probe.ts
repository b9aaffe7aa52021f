import * as V from '../generated/2025-11-25/validators.gen.js';
import { ajvValidators } from '../generator/emit/validators.js';
import { formats } from '../runtime/protocol/formats.js';
import { readFileSync } from 'node:fs';
const v = V as any;
const model = JSON.parse(readFileSync('generated/2025-11-25/model.json', 'utf8'));
const b = ajvValidators(model, undefined, undefined, formats);
const A = (n: string) => b.ajv.getSchema(b.exports[n]!)! as any;
const params = { name: 'echo', arguments: { text: 'hello world' } };
const result = { content: [{ type: 'text', text: 'hello world' }] };
const req = { jsonrpc: '2.0', id: 7, method: 'tools/call', params };
function cpu(f: () => unknown) {
  for (let i = 0; i < 50000; i++) f();
  const u = process.cpuUsage();
  for (let i = 0; i < 500000; i++) f();
  const d = process.cpuUsage(u);
  return `${(((d.user + d.system) / 500000) * 1000).toFixed(1)}ns`;
}
for (const n of process.argv.slice(2)) {
  const data =
    n.includes('params') || n.endsWith('Params') ? params : n.includes('Request') && !n.includes('$') ? req : result;
  console.log(
    n,
    'compact',
    cpu(() => v[n](data)),
    'ajv',
    cpu(() => A(n)(data)),
    v[n](data),
    A(n)(data),
  );
}
