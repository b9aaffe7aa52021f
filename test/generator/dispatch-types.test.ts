/**
 * Compile-time exhaustiveness of the generated handler tables (generated/2025-11-25): a complete
 * ServerHandlers table compiles (./handlers.ts, `satisfies ServerHandlers`); one missing a method, one with a handler returning the wrong
 * result, one with a method the revision does not have, and a handler reading a params field
 * the method does not have do not (`@ts-expect-error`). `npm test` type-checks this file (tsc);
 * the tests below also compile it with the TypeScript compiler API, once as it is (no errors: the
 * complete table compiles and every directive is needed) and once with the directives removed
 * (exactly the expected errors, on the expected lines, naming the expected method).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { ClientHandlers, ServerHandlers } from '../../generated/2025-11-25/dispatch.gen.js';
import { clientRequestMethods } from '../../generated/2025-11-25/dispatch.gen.js';
import { completeServerHandlers } from './handlers.js';
import { projectOptions, typecheck } from './support.js';

const { 'tools/call': _dropped, ...withoutToolsCall } = completeServerHandlers;

// @ts-expect-error -- 'tools/call' is missing: the table is not exhaustive
export const missingOne: ServerHandlers = withoutToolsCall;

export const wrongResult: ServerHandlers = {
  ...completeServerHandlers,
  // @ts-expect-error -- a CallToolResult needs `content`
  'tools/call': () => ({ contents: [] }),
};

export const unknownMethod: ServerHandlers = {
  ...completeServerHandlers,
  // @ts-expect-error -- 'tools/run' is not a client request of 2025-11-25
  'tools/run': () => ({}),
};

export const wrongParams: ServerHandlers = {
  ...completeServerHandlers,
  // @ts-expect-error -- tools/call params have `name`, not `tool`
  'tools/call': (params) => ({ content: [{ type: 'text', text: params.tool }] }),
};

/** A client table is a different one: the server's table does not satisfy it. */
// @ts-expect-error -- a client handles server requests (sampling/createMessage, roots/list, …)
export const crossed: ClientHandlers = completeServerHandlers;

/** The directives above, in order, and the method each error must name. */
const EXPECTED = [
  { directive: "'tools/call' is missing", mentions: 'tools/call' },
  { directive: 'a CallToolResult needs `content`', mentions: 'content' },
  { directive: "'tools/run' is not a client request", mentions: 'tools/run' },
  { directive: 'tools/call params have `name`', mentions: 'tool' },
  { directive: 'a client handles server requests', mentions: 'sampling/createMessage' },
];

const test = suite('generator: dispatch handler tables are checked by the compiler');
const SELF = fileURLToPath(import.meta.url);

test('the complete table has one handler per client request of the revision', () => {
  assert.equal(Object.keys(completeServerHandlers).sort(), [...clientRequestMethods].sort());
});

test('this file compiles under strict: the complete table type-checks and every @ts-expect-error is needed', () => {
  const HANDLERS = fileURLToPath(new URL('./handlers.ts', import.meta.url));
  const diags = typecheck([SELF]).filter((d) => d.file === SELF || d.file === HANDLERS);
  assert.equal(
    diags.map((d) => `${d.line}: ${d.message}`),
    [],
  );
});

test('without the directives, exactly the expected errors appear, on the expected lines', () => {
  const text = readFileSync(SELF, 'utf8');
  const lines = text.split('\n');
  const stripped = lines.map((l) => (/^\s*\/\/ @ts-expect-error/.test(l) ? '' : l)).join('\n');
  const directiveLines = EXPECTED.map((e) => {
    const i = lines.findIndex((l) => l.includes('@ts-expect-error') && l.includes(e.directive));
    assert.ok(i >= 0, `directive "${e.directive}" not found`);
    return i + 2; // the line after the directive, 1-based
  });
  const options = projectOptions();
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, lang, onError, create) =>
    name === SELF ? ts.createSourceFile(name, stripped, lang, true) : getSourceFile(name, lang, onError, create);
  const diags = typecheck([SELF], options, host).filter((d) => d.file === SELF);
  assert.equal(
    diags.map((d) => d.line).sort((a, b) => a - b),
    directiveLines,
    diags.map((d) => `${d.line}: ${d.message.split('\n')[0]}`).join('\n'),
  );
  EXPECTED.forEach((e, i) => {
    const d = diags.find((x) => x.line === directiveLines[i]);
    assert.ok(
      d?.message.includes(e.mentions),
      `line ${directiveLines[i]}: "${d?.message}" does not mention ${e.mentions}`,
    );
  });
});

test.run();
