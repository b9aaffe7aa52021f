/**
 * Reading a project file (mcpgen.config.json, mcpgen.lock.json) against its JSON Schema
 * (schema/config.schema.json, schema/lock.schema.json; 2020-12, checked with ajv). Every
 * problem is a {@link ConfigError} naming the file and the field (`inputs.specDir`,
 * `revisions[1]`, `revisions.draft.files.schema.ts.sha256`): the CLI prints it and exits 2.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { isAbsolute, relative } from 'node:path';
import type { ErrorObject } from 'ajv';
import Ajv2020 from 'ajv/dist/2020.js';
import jsonc from 'jsonc-parser';
import { didYouMean } from './nearest.js';

/** A project file that is missing, not JSON, or not of its schema. `file` as shown to the user. */
export class ConfigError extends Error {
  constructor(
    readonly file: string,
    readonly field: string | null,
    problem: string,
  ) {
    super(`${file}: ${field === null ? '' : `${field || '(top level)'}: `}${problem}`);
    this.name = 'ConfigError';
  }
}

/** `path` as the user would name it: relative to the working folder when inside it. */
export function shownPath(path: string, cwd = process.cwd()): string {
  const rel = relative(cwd, path);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : path;
}

type AjvInstance = InstanceType<typeof Ajv2020.default>;
let ajv: AjvInstance | undefined;
const compiled = new Map<string, ReturnType<AjvInstance['compile']>>();

function validatorOf(schemaFile: string) {
  let v = compiled.get(schemaFile);
  if (!v) {
    const Ajv = Ajv2020 as unknown as typeof Ajv2020.default;
    ajv ??= new Ajv({ allErrors: false, verbose: true, strict: true });
    v = ajv.compile(JSON.parse(readFileSync(new URL(`../schema/${schemaFile}`, import.meta.url), 'utf8')) as object);
    compiled.set(schemaFile, v);
  }
  return v;
}

/** `/inputs/specDir` → `inputs.specDir`, `/revisions/1` → `revisions[1]` (arrays by index). */
function fieldOf(pointer: string, data: unknown): string {
  let field = '';
  let node = data;
  for (const raw of pointer.split('/').slice(1)) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(node)) {
      field += `[${key}]`;
      node = node[Number(key)];
    } else {
      field += field ? `.${key}` : key;
      node =
        node !== null && typeof node === 'object' && Object.hasOwn(node, key)
          ? (node as Record<string, unknown>)[key]
          : undefined;
    }
  }
  return field;
}

const kind = (x: unknown): string =>
  x === null ? 'null' : Array.isArray(x) ? 'array' : Number.isInteger(x) ? 'integer' : typeof x;
const join = (field: string, key: string) => (field ? `${field}.${key}` : key);

/** One ajv error as `[field, problem]`. */
function describe(e: ErrorObject, root: unknown): [string, string] {
  const field = fieldOf(e.instancePath, root);
  const schema = e.parentSchema as { properties?: Record<string, unknown>; description?: string } | undefined;
  // an error inside propertyNames is about a key of the object
  const name = (e as { propertyName?: string }).propertyName;
  if (name !== undefined)
    return [
      join(field, name),
      `invalid key ${JSON.stringify(name)}: use letters, digits, '.', '_' and '-', starting with a letter or digit`,
    ];
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'additionalProperties': {
      const keys = Object.keys(schema?.properties ?? {});
      return [
        join(field, String(p.additionalProperty)),
        `unknown key${keys.length ? ` (known keys: ${keys.join(', ')})` : ''}`,
      ];
    }
    case 'required':
      return [join(field, String(p.missingProperty)), 'missing'];
    case 'type':
      return [field, `expected ${String(p.type)}, got ${kind(e.data)}`];
    case 'enum': {
      const allowed = p.allowedValues as unknown[];
      const words = allowed.filter((x): x is string => typeof x === 'string');
      const hint = typeof e.data === 'string' ? didYouMean(e.data, words) : '';
      return [
        field,
        `${JSON.stringify(e.data)} is not one of ${allowed.map((x) => JSON.stringify(x)).join(', ')}${hint}`,
      ];
    }
    case 'const':
      return [field, `expected ${JSON.stringify(p.allowedValue)}, got ${JSON.stringify(e.data)}`];
    case 'pattern':
      return [
        field,
        `${JSON.stringify(e.data)} does not match ${String(p.pattern)}${schema?.description ? ` (${schema.description})` : ''}`,
      ];
    case 'minLength':
      return [field, 'must not be empty'];
    case 'minItems':
      return [field, `needs at least ${String(p.limit)} item(s)`];
    case 'uniqueItems':
      return [
        field,
        `items ${Math.min(Number(p.i), Number(p.j))} and ${Math.max(Number(p.i), Number(p.j))} are the same`,
      ];
    case 'not':
      return [
        field,
        `${JSON.stringify(e.data)} is not allowed${schema?.description ? ` (${schema.description})` : ''}`,
      ];
    default:
      return [field, e.message ?? e.keyword];
  }
}

/** What jsonc-parser's error codes mean, in the words of the message. */
const EXPECTED: Record<string, string> = {
  InvalidSymbol: 'unexpected character',
  InvalidNumberFormat: 'malformed number',
  PropertyNameExpected: 'expected a key in double quotes',
  ValueExpected: 'expected a value',
  ColonExpected: "expected ':'",
  CommaExpected: "expected ','",
  CloseBraceExpected: "expected '}'",
  CloseBracketExpected: "expected ']'",
  EndOfFileExpected: 'unexpected text after the end',
  InvalidCommentToken: 'comments are not JSON',
  UnexpectedEndOfComment: 'comments are not JSON',
  UnexpectedEndOfString: 'unterminated string',
  UnexpectedEndOfNumber: 'malformed number',
  InvalidUnicode: 'malformed \\u escape',
  InvalidEscapeCharacter: 'malformed escape',
  InvalidCharacter: 'control character in a string',
};

/**
 * A JSON syntax error of `text` as `file:line:column` (1-based; column in UTF-16 code units),
 * the field it is in (`revisions[1]`, `inputs.specDir`) and the text of its line around it. Strict JSON:
 * comments and trailing commas are errors, as they are for JSON.parse. `cause` (JSON.parse's
 * error) is the message when the scan finds nothing.
 */
export function syntaxError(file: string, text: string, cause: Error): ConfigError {
  const errors: Array<{ error: number; offset: number; length: number }> = [];
  jsonc.parse(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  const first = errors[0];
  if (!first) return new ConfigError(file, null, `not valid JSON: ${cause.message}`);
  const offset = Math.min(first.offset, text.length);
  const before = text.slice(0, offset).split('\n');
  const line = before.length;
  const column = before[line - 1].length + 1;
  const path = jsonc.getLocation(text, offset).path.filter((k) => k !== '');
  const field = path.reduce<string>((f, k) => (typeof k === 'number' ? `${f}[${k}]` : f ? `${f}.${k}` : k), '');
  const code = jsonc.printParseErrorCode(first.error as Parameters<typeof jsonc.printParseErrorCode>[0]);
  // the text of the line on each side of the error, up to 30 characters
  const lineText = text.split('\n')[line - 1];
  const after = lineText.slice(Math.max(0, column - 31), column - 1).trimStart();
  const until = lineText.slice(column - 1, column + 29).trimEnd();
  const where = [after && `after '${after}'`, until && `before '${until}'`].filter(Boolean).join(', ');
  const problem = `not valid JSON: ${EXPECTED[code] ?? code}${where ? ` (${where})` : ' at the end'}`;
  return new ConfigError(`${file}:${line}:${column}`, field, problem);
}

/**
 * The first key an object of `text` (valid JSON) has twice, as a ConfigError at the second one's
 * `file:line:column` (1-based) with its field: JSON.parse keeps the last silently, so a setting
 * written twice would be half ignored.
 */
export function duplicateKey(file: string, text: string): ConfigError | undefined {
  const objects: Set<string>[] = [];
  let found: ConfigError | undefined;
  jsonc.visit(text, {
    onObjectBegin: () => void objects.push(new Set()),
    onObjectEnd: () => void objects.pop(),
    onObjectProperty: (key, _offset, _length, line, character, path) => {
      const keys = objects.at(-1)!;
      if (keys.has(key) && !found) {
        const field = [...path(), key].reduce<string>(
          (f, k) => (typeof k === 'number' ? `${f}[${k}]` : f ? `${f}.${k}` : k),
          '',
        );
        found = new ConfigError(
          `${file}:${line + 1}:${character + 1}`,
          field,
          `the key ${JSON.stringify(key)} is written twice in one object (remove one)`,
        );
      }
      keys.add(key);
    },
  });
  return found;
}

/**
 * Reads `path` as JSON and checks it against `schemaFile`. Throws ConfigError: no such file,
 * not a file, not JSON (at file:line:column, with the field and the text around), or the first schema violation with its field; `explain` may give that
 * violation a message of its own (`keyword` is the JSON Schema keyword that failed, `field` as
 * the error names it, `value` the value there), undefined keeping the generic one.
 */
export function readProjectFile<T>(
  path: string,
  schemaFile: string,
  cwd = process.cwd(),
  explain?: (keyword: string, field: string, value: unknown) => string | undefined,
): T {
  const shown = shownPath(path, cwd);
  if (!existsSync(path)) throw new ConfigError(shown, null, 'no such file');
  if (!statSync(path).isFile()) throw new ConfigError(shown, null, 'not a file');
  // a byte-order mark (some editors save UTF-8 with one) is not part of the JSON
  const text = readFileSync(path, 'utf8').replace(/^\uFEFF/, '');
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw syntaxError(shown, text, e as Error);
  }
  const twice = duplicateKey(shown, text);
  if (twice) throw twice;
  const validate = validatorOf(schemaFile);
  if (!validate(data)) {
    const error = validate.errors![0];
    const [field, problem] = describe(error, data);
    throw new ConfigError(shown, field, explain?.(error.keyword, field, error.data) ?? problem);
  }
  return data as T;
}
