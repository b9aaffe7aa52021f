/**
 * The breaking-change rules of generator/diff.ts on small inline models: each test changes one
 * thing and checks the change's kind, path and who it breaks.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  type Change,
  type DiffReport,
  diffModels,
  firstLineDiff,
  renderJson,
  renderMarkdown,
} from '../../../generator/diff.js';
import { type MethodSpec, obj, ref, tinyModel } from './support.js';

const test = suite('diff: breaking rules');

/** Diffs two one-request models that differ only as `a` and `b` say. */
function diffRequest(
  a: Partial<MethodSpec>,
  b: Partial<MethodSpec>,
  types: Record<string, Record<string, unknown>> = {},
): DiffReport {
  const base: MethodSpec = { method: 'things/do' };
  return diffModels(
    tinyModel({ requests: [{ ...base, ...a }], types }),
    tinyModel({ requests: [{ ...base, ...b }], types }),
  );
}

/** The single change at `subject` (fails when there is none or more than one). */
function only(r: DiffReport, subject: string, kind?: Change['kind']): Change {
  const cs = r.changes.filter((c) => c.subject === subject && (!kind || c.kind === kind));
  assert.is(
    cs.length,
    1,
    `one change at ${subject}${kind ? ` (${kind})` : ''}; got:\n${r.changes.map((c) => `${c.kind} ${c.subject}`).join('\n')}`,
  );
  return cs[0];
}
const breaks = (c: Change) => `${c.breaking.client ? 'client' : '-'}/${c.breaking.server ? 'server' : '-'}`;

test('identical models: no changes', () => {
  const m = tinyModel({ requests: [{ method: 'a/b', params: obj({ x: { type: 'string' } }, ['x']) }] });
  const r = diffModels(m, structuredClone(m));
  assert.is(r.changes.length, 0);
  assert.is(r.summary.total, 0);
});

test('params field optional → required breaks clients (they must send it), not servers', () => {
  const r = diffRequest(
    { params: obj({ name: { type: 'string' } }) },
    { params: obj({ name: { type: 'string' } }, ['name']) },
  );
  const c = only(r, 'things/do params.name');
  assert.is(c.kind, 'optional-to-required');
  assert.is(c.section, 'params');
  assert.is(breaks(c), 'client/-');
});

test('the same in a server → client request breaks servers', () => {
  const r = diffRequest(
    { direction: 'serverToClient', params: obj({ name: { type: 'string' } }) },
    { direction: 'serverToClient', params: obj({ name: { type: 'string' } }, ['name']) },
  );
  assert.is(breaks(only(r, 'things/do params.name')), '-/server');
});

test('params field required → optional breaks servers (they may no longer get it)', () => {
  const r = diffRequest(
    { params: obj({ name: { type: 'string' } }, ['name']) },
    { params: obj({ name: { type: 'string' } }) },
  );
  const c = only(r, 'things/do params.name');
  assert.is(c.kind, 'required-to-optional');
  assert.is(breaks(c), '-/server');
});

test('optional field added to a result breaks nobody; a required one breaks the server that sends it', () => {
  const opt = diffRequest({ result: obj({}) }, { result: obj({ extra: { type: 'string' } }) });
  const c = only(opt, 'things/do result.extra');
  assert.is(c.kind, 'field-added');
  assert.is(c.section, 'results');
  assert.is(breaks(c), '-/-');
  const req = diffRequest({ result: obj({}) }, { result: obj({ extra: { type: 'string' } }, ['extra']) });
  assert.is(breaks(only(req, 'things/do result.extra')), '-/server');
});

test('result field removed breaks the clients that read it; a closed object breaks the sender too', () => {
  const open = diffRequest({ result: obj({ gone: { type: 'string' } }) }, { result: obj({}) });
  const c = only(open, 'things/do result.gone');
  assert.is(c.kind, 'field-removed');
  assert.is(breaks(c), 'client/-');
  const closed = diffRequest(
    { result: obj({ gone: { type: 'string' } }) },
    { result: obj({}, [], { additionalProperties: false }) },
  );
  assert.is(breaks(only(closed, 'things/do result.gone', 'field-removed')), 'client/server');
});

test('params field added required breaks clients; params field removed breaks servers', () => {
  const added = diffRequest({ params: obj({}) }, { params: obj({ must: { type: 'string' } }, ['must']) });
  assert.is(breaks(only(added, 'things/do params.must')), 'client/-');
  const removed = diffRequest({ params: obj({ was: { type: 'string' } }) }, { params: obj({}) });
  assert.is(breaks(only(removed, 'things/do params.was')), '-/server');
});

test('number → integer narrows (breaks the sender); integer → number widens (breaks the receiver)', () => {
  const narrow = diffRequest({ params: obj({ n: { type: 'number' } }) }, { params: obj({ n: { type: 'integer' } }) });
  const c = only(narrow, 'things/do params.n');
  assert.is(c.kind, 'type');
  assert.is(c.detail, 'number → integer');
  assert.is(breaks(c), 'client/-');
  const wide = diffRequest({ result: obj({ n: { type: 'integer' } }) }, { result: obj({ n: { type: 'number' } }) });
  assert.is(breaks(only(wide, 'things/do result.n')), 'client/-');
  const other = diffRequest({ params: obj({ n: { type: 'string' } }) }, { params: obj({ n: { type: 'object' } }) });
  assert.is(breaks(only(other, 'things/do params.n')), 'client/server');
});

test('string → enum narrows; enum values added widen, removed narrow', () => {
  const toEnum = diffRequest(
    { params: obj({ e: { type: 'string' } }) },
    { params: obj({ e: { type: 'string', enum: ['a', 'b'] } }) },
  );
  const c = only(toEnum, 'things/do params.e');
  assert.is(c.kind, 'enum');
  assert.is(breaks(c), 'client/-');
  const added = diffRequest(
    { result: obj({ e: { type: 'string', enum: ['a'] } }) },
    { result: obj({ e: { type: 'string', enum: ['a', 'b'] } }) },
  );
  const a = only(added, 'things/do result.e');
  assert.match(a.detail, 'values added: "b"');
  assert.is(breaks(a), 'client/-');
  const removed = diffRequest(
    { result: obj({ e: { type: 'string', enum: ['a', 'b'] } }) },
    { result: obj({ e: { type: 'string', enum: ['a'] } }) },
  );
  assert.is(breaks(only(removed, 'things/do result.e')), '-/server');
});

test('const change breaks both sides', () => {
  const r = diffRequest(
    { params: obj({ k: { type: 'string', const: 'x' } }) },
    { params: obj({ k: { type: 'string', const: 'y' } }) },
  );
  const c = only(r, 'things/do params.k');
  assert.is(c.kind, 'const');
  assert.is(c.detail, 'const "x" → "y"');
  assert.is(breaks(c), 'client/server');
});

test('constraints: maxItems added narrows, minimum lowered widens', () => {
  const r = diffRequest(
    { result: obj({ list: { type: 'array', items: { type: 'string' } }, n: { type: 'integer', minimum: 5 } }) },
    {
      result: obj({
        list: { type: 'array', items: { type: 'string' }, maxItems: 10 },
        n: { type: 'integer', minimum: 0 },
      }),
    },
  );
  assert.is(breaks(only(r, 'things/do result.list', 'constraint')), '-/server');
  assert.is(breaks(only(r, 'things/do result.n', 'constraint')), 'client/-');
});

test('fields are found through $refs, allOf, array items and map values', () => {
  const types = (leaf: Record<string, unknown>) => ({
    Leaf: obj({ v: leaf }),
    Mid: { allOf: [ref('Base'), obj({ leaves: { type: 'array', items: ref('Leaf') } })] },
    Base: obj({ id: { type: 'string' } }, ['id']),
  });
  const a = tinyModel({
    requests: [{ method: 'x/y', result: obj({ m: { type: 'object', additionalProperties: ref('Mid') } }) }],
    types: types({ type: 'string' }),
  });
  const b = tinyModel({
    requests: [{ method: 'x/y', result: obj({ m: { type: 'object', additionalProperties: ref('Mid') } }) }],
    types: types({ type: 'boolean' }),
  });
  const r = diffModels(a, b);
  const c = only(r, 'x/y result.m{}.leaves[].v');
  assert.is(c.detail, 'string → boolean');
});

test('recursive types terminate (cycle guard) and the depth limit stops the walk', () => {
  const node = (leafType: string) => ({
    Node: obj({ label: { type: leafType }, children: { type: 'array', items: ref('Node') } }),
  });
  const a = tinyModel({
    requests: [{ method: 'tree/get', result: obj({ root: ref('Node') }) }],
    types: node('string'),
  });
  const b = tinyModel({
    requests: [{ method: 'tree/get', result: obj({ root: ref('Node') }) }],
    types: node('integer'),
  });
  const r = diffModels(a, b);
  assert.equal(
    r.changes.filter((c) => c.section === 'results').map((c) => c.subject),
    ['tree/get result.root.label'],
  );
  const shallow = diffModels(a, b, { maxDepth: 0 });
  assert.is(shallow.changes.filter((c) => c.section === 'results').length, 0);
});

test('union members: added widens, removed narrows, a rename with the same discriminator is no change', () => {
  const member = (name: string, kind: string) => ({
    [name]: obj({ type: { type: 'string', const: kind }, v: { type: 'string' } }, ['type']),
  });
  const content = (...names: string[]) => ({ anyOf: names.map(ref) });
  const a = tinyModel({
    requests: [{ method: 'c/get', result: obj({ content: content('Text', 'OldRef') }) }],
    types: { ...member('Text', 'text'), ...member('OldRef', 'ref'), ...member('Image', 'image') },
  });
  const b = tinyModel({
    requests: [{ method: 'c/get', result: obj({ content: content('Text', 'NewRef', 'Image') }) }],
    types: { ...member('Text', 'text'), ...member('NewRef', 'ref'), ...member('Image', 'image') },
  });
  const r = diffModels(a, b);
  const results = r.changes.filter((c) => c.section === 'results');
  assert.equal(
    results.map((c) => `${c.kind} ${c.subject}`),
    ['variant-added c/get result.content<Image>'],
  );
  assert.is(breaks(results[0]), 'client/-');
});

test('an unconstrained value and a union of every JSON type are the same', () => {
  const jsonValue = {
    anyOf: [
      ref('JSONObject'),
      { type: 'array', items: ref('JSONValue') },
      { type: ['string', 'number', 'boolean', 'null'] },
    ],
  };
  const types = { JSONValue: jsonValue, JSONObject: { type: 'object', additionalProperties: ref('JSONValue') } };
  const a = tinyModel({ requests: [{ method: 'v/get', result: obj({ v: {} }) }], types });
  const b = tinyModel({ requests: [{ method: 'v/get', result: obj({ v: ref('JSONValue') }) }], types });
  assert.is(diffModels(a, b).changes.filter((c) => c.section === 'results').length, 0);
  // an object matches the union's object member; the other members are new
  const c = tinyModel({ requests: [{ method: 'v/get', result: obj({ v: { type: 'object' } }) }], types });
  const widened = diffModels(c, b).changes.filter((x) => x.section === 'results');
  assert.equal(
    widened.map((x) => `${x.kind} ${x.subject} ${breaks(x)}`),
    [
      'variant-added v/get result.v<array> client/-',
      'variant-added v/get result.v<boolean | null | number | string> client/-',
    ],
  );
});

test('requests: removed breaks the caller; added breaks the receiver only when no capability gates it', () => {
  const none = tinyModel({});
  const ungated = tinyModel({ requests: [{ method: 'new/thing' }] });
  const gated = tinyModel({ requests: [{ method: 'new/thing', capability: ['things'] }] });
  assert.is(breaks(only(diffModels(ungated, none), 'new/thing', 'method-removed')), 'client/-');
  assert.is(breaks(only(diffModels(none, ungated), 'new/thing', 'method-added')), '-/server');
  assert.is(breaks(only(diffModels(none, gated), 'new/thing', 'method-added')), '-/-');
  const s2c = tinyModel({ requests: [{ method: 'new/thing', direction: 'serverToClient' }] });
  assert.is(breaks(only(diffModels(s2c, none), 'new/thing', 'method-removed')), '-/server');
});

test('direction change, embedding, capability gate and alternative results', () => {
  const both = tinyModel({ requests: [{ method: 'p/ing' }, { method: 'p/ing', direction: 'serverToClient' }] });
  const one = tinyModel({ requests: [{ method: 'p/ing' }] });
  const d = only(diffModels(both, one), 'p/ing', 'direction');
  assert.is(d.detail, 'clientToServer + serverToClient → clientToServer');
  assert.is(breaks(d), '-/server');
  assert.is(diffModels(both, one).changes.filter((c) => c.kind === 'method-removed').length, 0);

  const e = diffRequest({ direction: 'serverToClient' }, { direction: 'serverToClient', embedded: true });
  assert.is(breaks(only(e, 'things/do', 'embedded')), 'client/server');

  const gateAdded = diffRequest({ capability: null }, { capability: ['things'] });
  assert.is(breaks(only(gateAdded, 'things/do', 'capability-gate')), 'client/server');
  const gateRemoved = diffRequest({ capability: ['things'] }, { capability: null });
  assert.is(breaks(only(gateRemoved, 'things/do', 'capability-gate')), '-/server');

  const types = { InputRequiredResult: obj({ resultType: { type: 'string' } }) };
  const alt = diffRequest({}, { altResultTypes: ['InputRequiredResult'] }, types);
  const c = only(alt, 'things/do', 'alt-result-added');
  assert.is(c.after, 'InputRequiredResult');
  assert.is(breaks(c), 'client/-');
  assert.is(
    breaks(
      only(diffRequest({ altResultTypes: ['InputRequiredResult'] }, {}, types), 'things/do', 'alt-result-removed'),
    ),
    '-/server',
  );
});

test('params presence: params becoming required breaks the caller', () => {
  const r = diffRequest({ paramsRequired: false }, { paramsRequired: true });
  const c = only(r, 'things/do params', 'optional-to-required');
  assert.is(breaks(c), 'client/-');
});

test('notifications: removed breaks the receiver, added breaks nobody, params walked', () => {
  const a = tinyModel({
    notifications: [
      { method: 'notifications/old' },
      { method: 'notifications/x', params: obj({ n: { type: 'number' } }) },
    ],
  });
  const b = tinyModel({
    notifications: [
      { method: 'notifications/new' },
      { method: 'notifications/x', params: obj({ n: { type: 'integer' } }) },
    ],
  });
  const r = diffModels(a, b);
  assert.is(breaks(only(r, 'notifications/old', 'notification-removed')), 'client/-');
  assert.is(breaks(only(r, 'notifications/new', 'notification-added')), '-/-');
  assert.is(breaks(only(r, 'notifications/x params.n')), '-/server');
});

test('capabilities: a server capability removed breaks clients, one added breaks nobody', () => {
  const caps = (props: Record<string, unknown>) => ({
    ServerCapabilities: obj(props as never),
    ClientCapabilities: obj({}),
  });
  const a = tinyModel({
    types: caps({ logging: { type: 'object' }, tools: obj({ listChanged: { type: 'boolean' } }) }),
  });
  const b = tinyModel({
    types: caps({ tools: obj({ listChanged: { type: 'boolean' } }), extensions: { type: 'object' } }),
  });
  const r = diffModels(a, b);
  const removed = only(r, 'ServerCapabilities.logging');
  assert.is(removed.section, 'capabilities');
  assert.is(breaks(removed), 'client/-');
  assert.is(breaks(only(r, 'ServerCapabilities.extensions')), '-/-');
});

test('named types, error codes, lifecycle and protocol version', () => {
  const a = tinyModel({
    types: { Old: obj({}) },
    errorCodes: { GONE: -32001, MOVED: -32002 },
    lifecycle: 'handshake',
    protocolVersion: '2025-01-01',
  });
  const b = tinyModel({
    types: { New: obj({}) },
    errorCodes: { NEW: -32003, MOVED: -32004 },
    lifecycle: 'stateless',
    protocolVersion: '2026-01-01',
  });
  const r = diffModels(a, b);
  assert.is(breaks(only(r, 'Old', 'type-removed')), '-/-');
  assert.is(breaks(only(r, 'New', 'type-added')), '-/-');
  assert.is(breaks(only(r, 'GONE', 'error-code-removed')), 'client/server');
  assert.is(breaks(only(r, 'NEW', 'error-code-added')), '-/-');
  assert.is(only(r, 'MOVED', 'error-code-changed').detail, 'error code -32002 → -32004');
  assert.is(breaks(only(r, 'lifecycle', 'lifecycle')), 'client/server');
  assert.is(breaks(only(r, 'protocolVersion', 'protocol-version')), '-/-');
  assert.equal(r.from, { revision: 'inline', protocolVersion: '2025-01-01', lifecycle: 'handshake' });
});

test('output is deterministic and independent of input order', () => {
  const mk = (flip: boolean) => {
    const reqs: MethodSpec[] = [
      { method: 'b/two', result: obj({ y: { type: 'string' } }) },
      { method: 'a/one', params: obj({ x: { type: 'number' } }) },
    ];
    return tinyModel({
      requests: flip ? reqs.reverse() : reqs,
      types: flip ? { Z: obj({}), A: obj({}) } : { A: obj({}), Z: obj({}) },
    });
  };
  const b = tinyModel({
    requests: [{ method: 'a/one', params: obj({ x: { type: 'integer' } }) }],
    types: { A: obj({ k: { type: 'string' } }) },
  });
  const one = renderJson(diffModels(mk(false), b));
  const two = renderJson(diffModels(mk(true), b));
  assert.is(one, two);
  assert.is(renderMarkdown(diffModels(mk(false), b)), renderMarkdown(diffModels(mk(true), b)));
  const parsed = JSON.parse(one) as DiffReport;
  const keys = parsed.changes.map((c) => `${c.section} ${c.subject}`);
  assert.ok(keys.indexOf('methods b/two') < keys.indexOf('params a/one params.x'), 'sections in report order');
});

test('markdown escapes table cells and shows the breaking flags', () => {
  const r = diffRequest(
    { params: obj({ u: { type: 'string' } }) },
    { params: obj({ u: { type: ['string', 'null'] } }) },
  );
  const md = renderMarkdown(r);
  assert.match(md, '| `things/do params.u` | client → server | type | string → null \\| string | · | **breaking** |');
  assert.match(md, '## Params fields (1)');
});

test('firstLineDiff shows the first differing region with context', () => {
  assert.equal(firstLineDiff('a\nb\n', 'a\nb\n'), []);
  const d = firstLineDiff('1\n2\n3\n4\n5\n6\n', '1\n2\n3\nFOUR\n5\n6\n', { context: 1 });
  assert.equal(d, ['@@ -3,3 +3,3 @@', ' 3', '-4', '+FOUR', ' 5']);
  const long = firstLineDiff('x\n', `${Array.from({ length: 20 }, (_, i) => `l${i}`).join('\n')}\n`, { maxLines: 2 });
  assert.ok(long.includes('+… 18 more line(s)'), long.join('\n'));
});

test.run();
