/**
 * Files and functions a reader can hold: no source file over 450 lines and no function over 120
 * lines outside generated and test code, unless the file says why in one line: `// size: <reason>`
 * anywhere in a file over the limit, and a `// size: <reason>` comment right before a long function
 * (its declaration, or the statement that holds it). Counts are of lines as the formatter writes
 * them, comments included. A function that is not marked, and a file that is not, is named with
 * its count; so is a mark that no longer marks anything (the code shrank: the reason goes).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** The hand-written source folders (test/ and the generated folders are not). */
const SOURCES = ['runtime', 'generator', 'cli', 'reference', 'schema', 'scripts', 'bench', 'examples', 'bin'];
export const MAX_FILE_LINES = 450;
export const MAX_FUNCTION_LINES = 120;
const MARK = /\/\/ size: \S/;

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) {
      if (name !== 'node_modules' && name !== 'templates') out.push(...sourceFiles(p));
    } else if (/\.(ts|js|mjs)$/.test(name) && !/\.gen\.|\.d\.ts$/.test(name)) out.push(p);
  }
  return out;
}

/** Functions over `max` lines: where they start, their name and length, whether a `// size:` comment marks them. */
export function longFunctions(file: string, text: string, max = MAX_FUNCTION_LINES) {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const line = (pos: number) => sf.getLineAndCharacterOfPosition(pos).line + 1;
  const found: { line: number; name: string; lines: number; marked: boolean }[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const lines = line(node.end) - line(node.getStart(sf)) + 1;
      if (lines > max) {
        // the comments before the function, or before the statement or property that holds it
        let holder: ts.Node = node;
        while (
          holder.parent &&
          !ts.isSourceFile(holder.parent) &&
          !ts.isBlock(holder.parent) &&
          !ts.isClassLike(holder.parent) &&
          !ts.isObjectLiteralExpression(holder.parent)
        )
          holder = holder.parent;
        const before = new Set([node, holder].flatMap((n) => ts.getLeadingCommentRanges(text, n.getFullStart()) ?? []));
        const marked = [...before].some((c) => MARK.test(text.slice(c.pos, c.end)));
        const name =
          node.name?.getText(sf) ||
          (ts.isVariableDeclaration(node.parent) ? node.parent.name.getText(sf) : '(anonymous)');
        found.push({ line: line(node.getStart(sf)), name, lines, marked });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

const files = SOURCES.flatMap((d) => sourceFiles(join(ROOT, d)));

test('source files: over 450 lines only with a one-line reason (// size: …)', () => {
  const unmarked: string[] = [];
  const stale: string[] = [];
  for (const f of files) {
    const text = readFileSync(f, 'utf8');
    const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
    const marked = text.split('\n').some((l) => /^\/\/ size: \S/.test(l));
    const fnMarks = text.split('\n').filter((l) => /^\s*\/\/ size: \S/.test(l)).length;
    const long = longFunctions(f, text);
    if (lines > MAX_FILE_LINES && !marked) unmarked.push(`${relative(ROOT, f)}: ${lines} lines`);
    if (lines <= MAX_FILE_LINES && fnMarks > long.filter((x) => x.marked).length)
      stale.push(`${relative(ROOT, f)}: ${lines} lines, a // size: mark too many`);
  }
  assert.equal(unmarked, [], `files over ${MAX_FILE_LINES} lines without a reason:\n${unmarked.join('\n')}`);
  assert.equal(stale, [], `marks without a long file or function:\n${stale.join('\n')}`);
});

test('functions: over 120 lines only with a one-line reason before them (// size: …)', () => {
  const unmarked = files.flatMap((f) =>
    longFunctions(f, readFileSync(f, 'utf8'))
      .filter((x) => !x.marked)
      .map((x) => `${relative(ROOT, f)}:${x.line} ${x.name}: ${x.lines} lines`),
  );
  assert.equal(unmarked, [], `functions over ${MAX_FUNCTION_LINES} lines without a reason:\n${unmarked.join('\n')}`);
});

test('the check sees a long function and its mark', () => {
  const body = Array.from({ length: 130 }, (_, i) => `  const a${i} = ${i};`).join('\n');
  const long = `export function big() {\n${body}\n}\n`;
  assert.equal(longFunctions('x.ts', long), [{ line: 1, name: 'big', lines: 132, marked: false }]);
  const marked = `// size: one table, row by row\n${long}`;
  assert.equal(longFunctions('x.ts', marked), [{ line: 2, name: 'big', lines: 132, marked: true }]);
  const arrow = `// size: one table\nexport const big = () => {\n${body}\n};\n`;
  assert.equal(longFunctions('x.ts', arrow)[0].marked, true);
  assert.equal(longFunctions('x.ts', `export function small() {\n  return 1;\n}\n`), []);
});

test.run();
