/**
 * schema.json must be a valid JSON Schema 2020-12 document (the dialect the validators are
 * compiled in, whatever `$schema` says: draft-07 inputs are read as 2020-12 too, see
 * ingest.ts `normaliseDefs`). Checked against the 2020-12 meta-schema (ajv's `validateSchema`)
 * before anything reads the schemas, so that a bad keyword value (`"type": 42`, `"$ref": 1`,
 * `"pattern": "(["`) is an IngestError naming the file and the JSON pointer (RFC 6901) of the
 * keyword, not a compiler's stack trace later.
 */
import Ajv2020 from 'ajv/dist/2020.js';
import type { ErrorObject } from 'ajv';
import { IngestError } from './ingest-error.js';

type AjvInstance = InstanceType<typeof Ajv2020.default>;
let ajv: AjvInstance | undefined;

/** A `pattern` (and a `patternProperties` key) must compile as the validators compile it. */
const isRegex = (s: string): boolean => {
  try {
    new RegExp(s, 'u');
    return true;
  } catch {
    return false;
  }
};

function metaValidator(): AjvInstance {
  const Ajv = Ajv2020 as unknown as typeof Ajv2020.default;
  // the formats of the meta-schema are not asserted by validateSchema (uri-reference: ingest
  // checks the local references itself; regex: checkPatterns below)
  ajv ??= new Ajv({ strict: false, allErrors: false, validateFormats: false });
  return ajv;
}

/** RFC 6901: `~` → `~0`, `/` → `~1`. */
const escapePointer = (key: string): string => key.replace(/~/g, '~0').replace(/\//g, '~1');

const SCHEMA_KEYWORDS = [
  'items',
  'additionalItems',
  'additionalProperties',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
  'unevaluatedItems',
  'unevaluatedProperties',
];
const SCHEMA_ARRAYS = ['allOf', 'anyOf', 'oneOf', 'prefixItems', 'items'];
const SCHEMA_MAPS = ['$defs', 'definitions', 'properties', 'patternProperties', 'dependentSchemas'];

/**
 * Every `pattern` and `patternProperties` key of a schema (one that passed the meta-schema) must
 * compile as the validators compile it (`new RegExp(p, 'u')`): the meta-schema's
 * `"format": "regex"` is an annotation only.
 */
function checkPatterns(schema: unknown, pointer: string, file: string): void {
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return;
  const s = schema as Record<string, unknown>;
  const refuse = (where: string, p: string) => {
    throw new IngestError(
      file,
      where,
      `must be a regular expression (ECMA-262, u flag) (found ${shown(p)}): not a valid JSON Schema 2020-12 keyword value`,
    );
  };
  if (typeof s.pattern === 'string' && !isRegex(s.pattern)) refuse(`${pointer}/pattern`, s.pattern);
  const pp = s.patternProperties;
  if (pp && typeof pp === 'object')
    for (const k of Object.keys(pp)) if (!isRegex(k)) refuse(`${pointer}/patternProperties/${escapePointer(k)}`, k);
  for (const k of SCHEMA_KEYWORDS) if (Object.hasOwn(s, k)) checkPatterns(s[k], `${pointer}/${k}`, file);
  for (const k of SCHEMA_ARRAYS)
    if (Array.isArray(s[k]))
      (s[k] as unknown[]).forEach((x, i) => {
        checkPatterns(x, `${pointer}/${k}/${i}`, file);
      });
  for (const k of SCHEMA_MAPS) {
    const m = s[k];
    if (m && typeof m === 'object' && !Array.isArray(m))
      for (const [n, x] of Object.entries(m)) checkPatterns(x, `${pointer}/${k}/${escapePointer(n)}`, file);
  }
}

/** The value at a JSON pointer of `root` (undefined where it leads nowhere). */
function at(root: unknown, pointer: string): unknown {
  let cur = root;
  for (const raw of pointer.split('/').slice(1)) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (!cur || typeof cur !== 'object' || !Object.hasOwn(cur, key)) return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}

/** One ajv error as a phrase: `must be one of "array", "boolean"`, `must be string`, … */
function phrase(e: ErrorObject): string {
  const p = e.params as Record<string, unknown>;
  if (e.keyword === 'enum')
    return `must be one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
  if (e.keyword === 'additionalProperties') return `must not have the property "${String(p.additionalProperty)}"`;
  return e.message ?? e.keyword;
}

const shown = (v: unknown): string => {
  const text = JSON.stringify(v);
  return text === undefined ? String(v) : text.length > 60 ? `${text.slice(0, 57)}...` : text;
};

/**
 * Throws IngestError(file, pointer, message) at the first place where `root` (schema.json,
 * parsed) is not a valid JSON Schema 2020-12: the pointer is that of the bad keyword (or
 * property name) in the file, e.g. `/$defs/Tool/properties/name/type`, the message says what
 * the meta-schema wants there and what the file has.
 */
export function checkMetaSchema(root: Record<string, unknown>, file: string): void {
  // `$schema` names the file's dialect; the meta-schema checked is 2020-12's whatever it names
  const { $schema: _dialect, ...document } = root;
  const v = metaValidator();
  if (v.validateSchema(document) === true) return checkPatterns(document, '', file);
  const errors = v.errors ?? [];
  if (!errors.length) throw new IngestError(file, '(root)', 'not a valid JSON Schema 2020-12 document');
  // ajv reports the branches of a failed anyOf/oneOf and then the anyOf itself: name the
  // place of the first error and every way the meta-schema would have accepted it
  const pointer = errors[0].instancePath;
  const here = errors.filter((e) => e.instancePath === pointer);
  const specific = here.filter((e) => e.keyword !== 'anyOf' && e.keyword !== 'oneOf');
  const phrases = [...new Set((specific.length ? specific : here).map(phrase))];
  const name = errors[0].propertyName;
  const found = name !== undefined ? `property name ${JSON.stringify(name)}` : shown(at(document, pointer));
  throw new IngestError(
    file,
    pointer === '' ? '(root)' : pointer,
    `${phrases.join(', or ')} (found ${found}): not a valid JSON Schema 2020-12 keyword value`,
  );
}
