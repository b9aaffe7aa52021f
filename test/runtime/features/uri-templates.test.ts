/**
 * RFC 6570 URI templates in ServerFeatures (runtime/features/resources.ts): matching through
 * uri-template-matcher, levels 1–4 as far as matching is defined (the RFC's own examples, section
 * 1.2 and 3.2), over `resources/read` and `completion/complete` of a server child process, and the
 * library loaded as ESM with code generation from strings turned off (no `eval`).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { compileUriTemplate, expandUriTemplate, uriTemplateVariables } from '../../../runtime/features/resources.js';
import { RpcError } from '../../../runtime/jsonrpc/errors.js';
import { StdioClientTransport } from '../../../runtime/transport/stdio.js';
import { Client } from '../../../generated/2025-11-25/index.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));

/** RFC 6570 variables (section 3.2) and, per level, template → URI → the variables matched back. */
const LEVELS: Record<string, [string, string, Record<string, string>][]> = {
  'level 1 (simple)': [
    ['{var}', 'value', { var: 'value' }],
    ['{hello}', 'Hello%20World%21', { hello: 'Hello World!' }],
  ],
  'level 2 (reserved, fragment)': [
    ['{+var}', 'value', { var: 'value' }],
    ['{+hello}', 'Hello%20World!', { hello: 'Hello World!' }],
    ['{+path}/here', '/foo/bar/here', { path: '/foo/bar' }],
    ['here?ref={+path}', 'here?ref=/foo/bar', { path: '/foo/bar' }],
    ['X{#var}', 'X#value', { var: 'value' }],
    ['X{#hello}', 'X#Hello%20World!', { hello: 'Hello World!' }],
  ],
  'level 3 (multiple variables, operators)': [
    ['map?{x,y}', 'map?1024,768', { x: '1024', y: '768' }],
    ['{x,hello,y}', '1024,Hello%20World%21,768', { x: '1024', hello: 'Hello World!', y: '768' }],
    ['{+x,hello,y}', '1024,Hello%20World!,768', { x: '1024', hello: 'Hello World!', y: '768' }],
    ['{+path,x}/here', '/foo/bar,1024/here', { path: '/foo/bar', x: '1024' }],
    ['{#x,hello,y}', '#1024,Hello%20World!,768', { x: '1024', hello: 'Hello World!', y: '768' }],
    ['X{.var}', 'X.value', { var: 'value' }],
    ['X{.x,y}', 'X.1024.768', { x: '1024', y: '768' }],
    ['{/var}', '/value', { var: 'value' }],
    ['{;x,y}', ';x=1024;y=768', { x: '1024', y: '768' }],
    ['{?x,y}', '?x=1024&y=768', { x: '1024', y: '768' }],
    ['{?x,y,empty}', '?x=1024&y=768&empty=', { x: '1024', y: '768', empty: '' }],
    ['?fixed=yes{&x}', '?fixed=yes&x=1024', { x: '1024' }],
    ['{&x,y,empty}', '&x=1024&y=768&empty=', { x: '1024', y: '768', empty: '' }],
  ],
  'level 4 (prefix, explode)': [
    ['{var:3}', 'val', { var: 'val' }],
    ['{/list}', '/red,green,blue', { list: 'red,green,blue' }],
  ],
};

for (const [level, cases] of Object.entries(LEVELS)) {
  test(`RFC 6570 ${level}: the examples match back to their variables`, () => {
    for (const [template, uri, vars] of cases)
      assert.equal(compileUriTemplate(template)(uri), vars, `${template} on ${uri}`);
  });
}

test('RFC 6570 expansion of the same examples (levels 1–4)', () => {
  const v = {
    var: 'value',
    hello: 'Hello World!',
    path: '/foo/bar',
    x: '1024',
    y: '768',
    empty: '',
    list: ['red', 'green', 'blue'],
    keys: { semi: ';', dot: '.', comma: ',' },
  };
  assert.is(expandUriTemplate('{hello}', v), 'Hello%20World%21');
  assert.is(expandUriTemplate('{+path}/here', v), '/foo/bar/here');
  assert.is(expandUriTemplate('{?x,y,empty}', v), '?x=1024&y=768&empty=');
  assert.is(expandUriTemplate('{var:3}', v), 'val');
  assert.is(expandUriTemplate('{/list*}', v), '/red/green/blue');
  assert.is(expandUriTemplate('{?list*}', v), '?list=red&list=green&list=blue');
  assert.is(expandUriTemplate('mem://search{?q,limit}', { q: 'x', limit: 3 }), 'mem://search?q=x&limit=3');
});

test('non-matching URIs give undefined; variables stop at their delimiters', () => {
  assert.is(compileUriTemplate('mem://{a}')('mem://x/y'), undefined);
  assert.is(compileUriTemplate('mem://{a}/{b}{.ext}')('other://x/y.json'), undefined);
  assert.equal(uriTemplateVariables('mem://{a}/{b}{.ext}{?q,limit}'), ['a', 'b', 'ext', 'q', 'limit']);
  // a peer's URI naming a prototype member is a value like any other, held as an own property
  const vars = compileUriTemplate('mem://{a}')('mem://__proto__')!;
  assert.ok(Object.hasOwn(vars, 'a'));
  assert.is(vars.a, '__proto__');
});

test('the library loads as ESM with code generation from strings disallowed (no eval)', () => {
  const script =
    "import { UriTemplateMatcher } from 'uri-template-matcher'; const m = new UriTemplateMatcher(); m.add('mem://{a}/{b}{.ext}'); m.add('mem://search{?q,limit}'); console.log(JSON.stringify([m.match('mem://x/y.json').params, m.match('mem://search?q=x&limit=3').params]));";
  const r = spawnSync(
    process.execPath,
    ['--disallow-code-generation-from-strings', '--input-type=module', '-e', script],
    { cwd: root, encoding: 'utf8' },
  );
  assert.is(r.status, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout), [
    { a: 'x', b: 'y', ext: 'json' },
    { q: 'x', limit: '3' },
  ]);
});

test('resources/read and completion over a server child process (stdio)', async () => {
  const client = new Client({ clientInfo: { name: 'uri-templates', version: '1.0.0' }, timeout: 30_000 });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', 'test/fixtures/uri-template-server.ts'],
      cwd: root,
      stderr: 'ignore',
    }),
  );
  try {
    const read = async (uri: string) =>
      JSON.parse(((await client.readResource({ uri })).contents[0] as { text: string }).text);
    assert.equal(await read('mem://search?q=x&limit=3'), { q: 'x', limit: '3' });
    assert.equal(await read('mem://search?q=x'), { q: 'x' });
    assert.equal(await read('mem://x/y.json'), { a: 'x', b: 'y', ext: 'json' });
    assert.equal(await read('file:///a/b%20c'), { path: 'a/b c' });
    try {
      await client.readResource({ uri: 'mem://x' });
      assert.unreachable('mem://x matches no template');
    } catch (e) {
      assert.instance(e, RpcError);
      assert.is((e as RpcError).code, -32002);
    }
    const ref = { type: 'ref/resource', uri: 'mem://search{?q,limit}' } as const;
    assert.equal((await client.complete({ ref, argument: { name: 'q', value: 'b' } })).completion.values, ['beta']);
    try {
      await client.complete({ ref, argument: { name: 'nope', value: '' } });
      assert.unreachable('nope is not a variable of the template');
    } catch (e) {
      assert.instance(e, RpcError);
      assert.is((e as RpcError).code, -32602);
      assert.match((e as RpcError).message, /nope is not a variable of resource template mem:\/\/search\{\?q,limit\}/);
    }
  } finally {
    await client.close();
  }
});

test('query expressions after a path variable: the variable keeps its value, the query is matched by name', () => {
  const notes = compileUriTemplate('notes://{user}/{id}{?rev}');
  assert.equal(notes('notes://ann/7?rev=3'), { user: 'ann', id: '7', rev: '3' });
  assert.equal(notes('notes://ann/7'), { user: 'ann', id: '7' });
  const search = compileUriTemplate('mem://search{?q,limit}');
  assert.is(search('mem://searchX'), undefined, 'the literal before the query must match whole');
  assert.is(search('mem://search?q=%zz'), undefined, 'a malformed percent-encoding matches nothing');
  assert.equal(search('mem://search?limit=2&q=a%20b&other=1'), { limit: '2', q: 'a b' });
  assert.equal(compileUriTemplate('mem://s{?q}{&r}')('mem://s?q=1&r=2'), { q: '1', r: '2' });
  assert.equal(compileUriTemplate('mem://s{?list*}')('mem://s?list=red&list=green'), { list: 'red,green' });
  assert.equal(
    compileUriTemplate('mem://s{?a}')('mem://s?a=1&a=2'),
    { a: '1' },
    'a repeated unexploded parameter: its first value',
  );
  const own = compileUriTemplate('mem://{a}{?__proto__}')('mem://x?__proto__=y')!;
  assert.is(
    Object.getOwnPropertyDescriptor(own, '__proto__')?.value,
    'y',
    'a query variable named __proto__ is an own property',
  );
  assert.is(Object.getPrototypeOf(own), Object.prototype);
});

test.run();
