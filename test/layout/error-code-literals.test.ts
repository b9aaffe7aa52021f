/**
 * The runtime writes no JSON-RPC or MCP error code as a number: every `-32xxx` comes from
 * runtime/jsonrpc/errors.ts (`ErrorCode`, JSON-RPC 2.0 §5.1 and the runtime's local codes) or
 * from a revision's generated table (`errorCodeOf(table, …)`, runtime/protocol/table.ts), so one
 * place names each code. Every numeric literal in runtime/ outside jsonrpc/errors.ts is read
 * with the TypeScript parser (comments aside); a negated one of the form -32xxx fails the test
 * with its place.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const HOME = 'runtime/jsonrpc/errors.ts';

function files(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const p = join(dir, name);
      return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
    });
}

/** `file:line: literal` for every `-32xxx` numeric literal of `text` (any spelling of the number: `-32_000`, `-0x7d00`). */
function errorCodeLiterals(file: string, text: string): string[] {
  const found: string[] = [];
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const visit = (node: ts.Node): void => {
    if (
      ts.isPrefixUnaryExpression(node) &&
      node.operator === ts.SyntaxKind.MinusToken &&
      ts.isNumericLiteral(node.operand)
    ) {
      const value = Number(node.operand.text);
      if (Number.isInteger(value) && value >= 32000 && value <= 32999) {
        const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
        found.push(`${file}:${line + 1}: ${node.getText(source)}`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

test('the check sees negated code literals, not comments, strings or other numbers', () => {
  const sample = [
    '// -32000 in a comment is fine',
    '/** so is -32602 in a doc comment */',
    'const a = { code: -32000 };',
    'const b = f(-32_602, 1);',
    "const c = '-32700 in a string';",
    'const d = -31999 + -33000 + 32000;',
    'const e = x === -0x7d00;',
  ].join('\n');
  assert.equal(errorCodeLiterals('sample.ts', sample), [
    'sample.ts:3: -32000',
    'sample.ts:4: -32_602',
    'sample.ts:7: -0x7d00',
  ]);
});

test(`runtime/ writes no -32xxx code outside ${HOME}`, () => {
  const found = files(join(ROOT, 'runtime'))
    .map((f) => relative(ROOT, f).split('\\').join('/'))
    .filter((f) => f !== HOME)
    .flatMap((f) => errorCodeLiterals(f, readFileSync(join(ROOT, f), 'utf8')));
  assert.equal(found, []);
});

test(`${HOME} is where the codes are`, () => {
  const found = errorCodeLiterals(HOME, readFileSync(join(ROOT, HOME), 'utf8'));
  assert.ok(found.length >= 10, `expected the codes in ${HOME}, found ${found.length}`);
});

test.run();
