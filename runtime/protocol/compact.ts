/**
 * Compact protocol validators: a revision's JSON Schemas, emitted as data by the generator
 * (`generated/<rev>/validators.gen.js`, `--validators compact`), turned into closures here. No
 * `eval` or `new Function`, so they work where code generation is refused (CSP, some edge
 * runtimes). Each validator builds its closures on its first call, so a program pays only for
 * the validators it uses, when it first uses them.
 *
 * Schema data is JSON Schema 2020-12 restricted to `COMPACT_KEYWORDS` (the keywords the
 * MCP schemas use), with one change: a reference is the referenced {@link Validator} itself, a JS
 * value, in place of `{ "$ref": "#/$defs/Name" }` (or as the value of `$ref` beside other
 * keywords). A bundler can then drop every definition a program does not reach.
 *
 * Generated data spells the most frequent keywords short (`KEYWORD_ALIASES`, compact-data.ts;
 * expanded once per validator, when its data is first read): `t` type, `p` properties, `r` required, `c`
 * const, `a` additionalProperties, `i` items, `o` anyOf, `e` enum; the other keywords
 * (`$ref`, `allOf`, `format`, `maximum`, `minimum`, `maxItems`) stay in full, and full names
 * are accepted everywhere. Under `t` the frequent types are short too (`TYPE_ALIASES`:
 * `o` object, `s` string, `a` array; a type under `type` is always spelt in full). So
 * `{t:"o",p:{name:{t:"s"}},r:["name"]}` reads as
 * `{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`.
 *
 * Answers and `errors` are those of the ajv standalone validators the generator also emits
 * (`--validators ajv`: ajv 8, `allErrors: false`, `inlineRefs: false`, strict off): the same
 * keyword order (`$ref`, `const`, `enum`, `anyOf`, `allOf`, then the number, string, array and
 * object keywords), the same first failure, the same errors inside `anyOf` (every failing
 * branch's, then the `anyOf` error), the same `instancePath`, `schemaPath`, `keyword`, `params`
 * and `message` (test/runtime/protocol/compact.test.ts compares both on every revision).
 *
 * The parts: `compact-data.ts` (keyword and type tables, aliases, the validator cells),
 * `compact-check.ts` (the error-collecting form), `compact-fast.ts` (the boolean-only form).
 *
 * @module
 */
import { resolve } from './compact-check.js';
import { CELLS, type Cell, type CompactSchema, type Fast } from './compact-data.js';
import { resolveFast } from './compact-fast.js';
import type { ValidationError, Validator } from './table.js';

export type { CompactSchema } from './compact-data.js';

/** Whether member presence means an own property (ajv `ownProperties`). */
export interface CompactOptions {
  /**
   * A member counts as present only as an own property (the generator turns this on when a
   * schema of the revision names an `Object.prototype` member such as `constructor`); otherwise
   * as a value that is not `undefined`, inherited or own.
   */
  readonly ownProperties?: boolean;
}

let scratch: ValidationError[] = [];

/** The cell's boolean-only check, after its error-collecting check (which rejects unsupported data). */
function built(cell: Cell) {
  resolve(cell);
  return resolveFast(cell);
}

/**
 * The validator factory a generated validators module calls once:
 * `const v = compactValidators({ ownProperties })`, then `export const Name = v(() => schema)`
 * per definition. The thunk is called on the validator's first use (so a definition may name
 * validators declared after it, or itself); the returned function validates `data`, returns
 * true or false and sets `errors` (null when valid). It never throws for any input value.
 *
 * `check`, when given, is the schema's boolean-only check written as code by the generator
 * (`v(() => schema, check)`, for the hot schemas): it answers each call in place of the one
 * built from the data, which must give the same answers; errors are still worded from the data.
 * @throws TypeError on first use (on the first failure, with `check`) when the schema data uses
 * a keyword outside `COMPACT_KEYWORDS`, an unknown type or format: the generator never emits such data.
 */
export function compactValidators(
  options: CompactOptions = {},
): (schema: () => CompactSchema, check?: (data: unknown) => boolean) => Validator {
  const own = options.ownProperties === true;
  return (thunk, check) => {
    const cell: Cell = { thunk, own };
    if (check !== undefined) cell.fast = check;
    const v: Validator = (data: unknown) => {
      // the boolean pass decides; the error pass runs only to word a failure
      if ((cell.fast ?? built(cell))(data)) {
        v.errors = null;
        return true;
      }
      const out = scratch;
      if ((cell.check ?? resolve(cell))(data, out)) {
        out.length = 0;
        v.errors = null;
        return true;
      }
      scratch = [];
      v.errors = out;
      return false;
    };
    v.errors = null;
    CELLS.set(v, cell);
    return v;
  };
}

/**
 * The boolean-only check of compact validator `validator` (true or false, no `errors`, no
 * allocation), built on its first call: what generated check code (see
 * {@link compactValidators}) calls for a referenced validator that has no code of its own.
 * @throws TypeError when `validator` is not a compact validator.
 */
export function compactFast(validator: Validator): (data: unknown) => boolean {
  const cell = CELLS.get(validator);
  if (cell === undefined) throw new TypeError('compactFast: not a compact validator');
  let fast: Fast | undefined;
  return (data) => (fast ??= cell.fast ?? built(cell))(data);
}
