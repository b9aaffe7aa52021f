/**
 * The boolean checks of the hot validators, written out as code in validators.gen.js (compact
 * form). A compact validator answers every call with its boolean-only check first and words
 * errors only when that says invalid (runtime/protocol/compact.ts); the runtime builds that
 * check from the schema data as closures over a generic member table, which V8 runs on its slow
 * path once many schemas share it. For the schemas every `tools/call` and `ping` pays (its params
 * with their `_meta`, its result and the content blocks a tool answers with, the JSON-RPC
 * envelope: {@link HOT_VALIDATORS}) the generator writes that check as a plain function instead
 * (`v(() => data, check)`): straight-line reads and type tests, no table walk. The error
 * wording stays the runtime's (from the data), so answers and errors are as before; the same
 * answers as the runtime's boolean check, which test/runtime/protocol/compact.test.ts compares
 * with ajv's on every export.
 *
 * Only the hot schemas get code (the others keep their data alone: validators.gen.js grows by
 * a few KiB, and a bundle only by the functions of the validators it keeps). A reference from
 * written code to a validator without code calls that validator's runtime check
 * (`compactFast(X)`, built on first use); a schema using what has no code form here (a `const`
 * or `enum` holding an object or array, ownProperties) gets none.
 */
import { byCodeUnit } from '../util.js';

/**
 * The exports the engine checks on every `tools/call` and `ping` (params and results), and the
 * JSON-RPC message envelope: their boolean checks are written as code. A name a revision lacks
 * is skipped.
 */
export const HOT_VALIDATORS: readonly string[] = [
  'CallToolRequest',
  'CallToolRequest$result',
  'CallToolRequestParams',
  'CallToolResult',
  'EmptyResult',
  'JSONRPCErrorResponse',
  'JSONRPCNotification',
  'JSONRPCRequest',
  'JSONRPCResponse',
  'JSONRPCResultResponse',
  'PingRequest',
  'RequestParams',
];

/**
 * The validators a hot one reaches that get code too, when reached (the result and the content
 * blocks a tool answers with, `_meta` objects, the draft's request `_meta` envelope with the
 * client's capabilities and name): other references call the runtime check.
 */
export const HOT_REACHED: readonly string[] = [
  'ClientCapabilities',
  'ContentBlock',
  'Implementation',
  'MetaObject',
  'ProgressToken',
  'RequestId',
  'RequestMetaObject',
  'Result',
  'ResultMetaObject',
  'TextContent',
];

/** Which exports get code: `roots` when they have a code form, `reached` when a root or another such reaches them. */
export interface HotNames {
  readonly roots: readonly string[];
  readonly reached: readonly string[];
}
/** {@link HOT_VALIDATORS} and {@link HOT_REACHED}. */
export const HOT: HotNames = { roots: HOT_VALIDATORS, reached: HOT_REACHED };

const REF = /^#\/\$defs\/(.+)$/;
const IDENT = /^[A-Za-z_$][\w$]*$/;
const PRIMITIVE = (x: unknown) =>
  typeof x === 'string' || typeof x === 'boolean' || x === null || (typeof x === 'number' && Number.isFinite(x));

type S = Record<string, unknown>;
const isObj = (s: unknown): s is S => typeof s === 'object' && s !== null && !Array.isArray(s);
/** ajv skips these: `true`, `{}`. */
const alwaysValid = (s: unknown) => s === true || (isObj(s) && Object.keys(s).length === 0);

/** Whether schema `s` (references not followed) has a code form here. */
export function hasCodeForm(s: unknown): boolean {
  if (typeof s === 'boolean') return true;
  if (!isObj(s)) return false;
  for (const [k, v] of Object.entries(s)) {
    switch (k) {
      case 'const':
        if (!PRIMITIVE(v)) return false;
        break;
      case 'enum':
        if (!Array.isArray(v) || !v.every(PRIMITIVE)) return false;
        break;
      case 'properties':
        if (!isObj(v) || !Object.values(v).every(hasCodeForm)) return false;
        break;
      case 'additionalProperties':
      case 'items':
        if (!hasCodeForm(v)) return false;
        break;
      case 'anyOf':
      case 'allOf':
        if (!Array.isArray(v) || !v.every(hasCodeForm)) return false;
        break;
      case '$ref':
      case 'type':
      case 'required':
      case 'format':
      case 'maximum':
      case 'minimum':
      case 'maxItems':
        break;
      default:
        return false;
    }
  }
  return true;
}

/** How written code names things: the function of an export with code, the runtime check of one without. */
export interface FastNames {
  /** Export name → its function's name, for the exports that get code. */
  readonly code: ReadonlyMap<string, string>;
  /** Export name → the const naming its runtime check (`compactFast(X)`), filled as referenced. */
  readonly runtime: Map<string, string>;
  readonly runtimePrefix: string;
  /** The formats object's name in the module. */
  readonly formats: string;
  /** The name of the module's object type test (`typeof x === "object"`, not null, not an array). */
  readonly isObject: string;
}

/**
 * The exports of `schemas` (name → schema) that get code: the hot ones with a code form and the
 * ones of {@link HOT_REACHED} with a code form they reach by references, sorted.
 */
export function codeExports(schemas: ReadonlyMap<string, unknown>, own: boolean, hot: HotNames = HOT): string[] {
  if (own) return [];
  const ok = (n: string) => schemas.has(n) && hasCodeForm(schemas.get(n));
  const out = new Set(hot.roots.filter(ok));
  const reached = new Set(hot.reached);
  for (const n of out) for (const r of refsOf(schemas.get(n))) if (reached.has(r) && ok(r)) out.add(r);
  return [...out].sort(byCodeUnit);
}

/** The names of the definitions schema `s` references (`#/$defs/<Name>`), in any keyword. */
function refsOf(s: unknown, out: string[] = []): string[] {
  if (Array.isArray(s)) for (const x of s) refsOf(x, out);
  else if (isObj(s))
    for (const [k, v] of Object.entries(s)) {
      if (k === '$ref' && typeof v === 'string' && REF.test(v)) out.push(REF.exec(v)![1]!);
      else if (k !== 'const' && k !== 'enum') refsOf(v, out);
    }
  return out;
}

const prop = (x: string, k: string) => (IDENT.test(k) ? `${x}.${k}` : `${x}[${JSON.stringify(k)}]`);
const lit = (v: unknown) => JSON.stringify(v);
const only = (types: string[]) => (types.length === 1 ? types[0] : undefined);
/** Any of `alternatives`, as one `&&` term. */
const any = (alternatives: string[]) =>
  alternatives.length === 1 ? alternatives[0]! : `(${alternatives.join(' || ')})`;

const TYPE_TEST: Record<string, (x: string) => string> = {
  string: (x) => `typeof ${x} === "string"`,
  number: (x) => `typeof ${x} === "number"`,
  integer: (x) => `(typeof ${x} === "number" && !(${x} % 1) && !Number.isNaN(${x}))`,
  boolean: (x) => `typeof ${x} === "boolean"`,
  null: (x) => `${x} === null`,
  array: (x) => `Array.isArray(${x})`,
};
/** The object type test the written functions share (`isObject` of {@link FastNames}). */
export const objectTestSource = (name: string) =>
  `function ${name}(x) {\nreturn typeof x === "object" && x !== null && !Array.isArray(x);\n}`;
/** Whether primitive `c` has one of JSON types `types` (as the runtime's `typeIs`). */
function ofType(types: string[], c: unknown): boolean {
  return types.some((t) =>
    t === 'integer'
      ? typeof c === 'number' && !(c % 1)
      : t === 'number'
        ? typeof c === 'number'
        : t === 'null'
          ? c === null
          : t === 'object' || t === 'array'
            ? false
            : typeof c === t,
  );
}

/**
 * One module-level function per export with code (and one per inline `anyOf` branch), as JS
 * source: `function <name>(d) { … }` answering what the runtime's boolean check of the same
 * schema answers.
 */
export function fastFunctions(name: string, schema: unknown, names: FastNames): string[] {
  const w = new CheckWriter(names, names.code.get(name)!);
  // a bare reference: the referenced check itself
  if (isObj(schema) && typeof schema.$ref === 'string' && Object.keys(schema).length === 1)
    return [`function ${w.main}(d) {\nreturn ${w.refName(schema.$ref)}(d);\n}`];
  w.fns.unshift(w.body(w.main, schema));
  return w.fns;
}

/** Whether `s` has object or array keywords that test anything (`additionalProperties: {}` does not). */
const hasGroup = (s: S) =>
  (isObj(s.properties) && Object.values(s.properties).some((x) => !alwaysValid(x))) ||
  (Array.isArray(s.required) && s.required.length > 0) ||
  (s.additionalProperties !== undefined && !alwaysValid(s.additionalProperties)) ||
  (s.items !== undefined && !alwaysValid(s.items)) ||
  s.maxItems !== undefined;

/** Whether the check of `s` refuses `undefined` by its own first test (a type, const or enum). */
const refusesUndefined = (s: unknown) =>
  s === false || (isObj(s) && (s.type !== undefined || s.const !== undefined || s.enum !== undefined));

const typesOf = (s: S) =>
  s.type === undefined ? [] : Array.isArray(s.type) ? (s.type as string[]) : [s.type as string];

/** Writes the functions of one export: {@link fastFunctions}. */
class CheckWriter {
  /** The helper functions written (inline `anyOf` branches), then the export's own first. */
  readonly fns: string[] = [];
  private vars = 0;
  private helpers = 0;
  constructor(
    private readonly names: FastNames,
    readonly main: string,
  ) {}

  /** The function answering definition `ref`: its written one, or its runtime check's const. */
  refName(ref: string): string {
    const target = REF.exec(ref)![1]!;
    const code = this.names.code.get(target);
    if (code !== undefined) return code;
    let r = this.names.runtime.get(target);
    if (r === undefined) {
      r = `${this.names.runtimePrefix}${target}`;
      this.names.runtime.set(target, r);
    }
    return r;
  }

  /** A function name answering schema `s`: a referenced one, or a helper written for it. */
  private fnOf(s: unknown): string {
    if (isObj(s) && typeof s.$ref === 'string' && Object.keys(s).length === 1) return this.refName(s.$ref);
    const fn = `${this.main}$${this.helpers++}`;
    this.fns.push(this.body(fn, s));
    return fn;
  }

  private objectTest(x: string): string {
    return `${this.names.isObject}(${x})`;
  }

  /**
   * The tests of `s` on `x` other than its object and array keywords, as `&&` terms (its
   * single `object` or `array` type left out when `group`: the caller tests it).
   */
  private terms(s: S, x: string, group: boolean): string[] | null {
    const out: string[] = [];
    const types = typesOf(s);
    const c = s.const;
    const en = s.enum as unknown[] | undefined;
    // the type test, unless a const or enum of that type implies it
    const implied =
      (c !== undefined && ofType(types, c)) || (en !== undefined && en.length > 0 && en.every((e) => ofType(types, e)));
    if (types.length && !implied && !group)
      out.push(any(types.map((t) => (t === 'object' ? this.objectTest(x) : TYPE_TEST[t]!(x)))));
    if (c !== undefined) out.push(`${x} === ${lit(c)}`);
    if (en !== undefined) out.push(en.length ? any(en.map((e) => `${x} === ${lit(e)}`)) : 'false');
    if (typeof s.$ref === 'string') out.push(`${this.refName(s.$ref)}(${x})`);
    if (Array.isArray(s.anyOf)) out.push(any(s.anyOf.map((b) => `${this.fnOf(b)}(${x})`)));
    if (Array.isArray(s.allOf))
      for (const part of s.allOf) {
        if (alwaysValid(part)) continue;
        const e = this.leaf(part, x);
        if (e === null) return null;
        out.push(e);
      }
    const max = typeof s.maximum === 'number' ? s.maximum : undefined;
    const min = typeof s.minimum === 'number' ? s.minimum : undefined;
    // NaN fails each bound it is compared with; a bound or format holds for a value of another
    // type (the type test, when the schema allows only that type, is made above)
    const numeric = types.length > 0 && types.every((t) => t === 'number' || t === 'integer');
    if (max !== undefined) out.push(numeric ? `${x} <= ${max}` : `(typeof ${x} !== "number" || ${x} <= ${max})`);
    if (min !== undefined) out.push(numeric ? `${x} >= ${min}` : `(typeof ${x} !== "number" || ${x} >= ${min})`);
    if (typeof s.format === 'string') {
      const f = `${this.names.formats}[${lit(s.format)}](${x})`;
      out.push(only(types) === 'string' ? f : `(typeof ${x} !== "string" || ${f})`);
    }
    return out;
  }

  /** `s` as one boolean expression of `x` (`true` when always valid), or null when it needs statements. */
  private leaf(s: unknown, x: string): string | null {
    if (alwaysValid(s)) return 'true';
    if (s === false || !isObj(s)) return 'false';
    if (hasGroup(s)) return null;
    const t = this.terms(s, x, false);
    return t === null ? null : t.length ? t.join(' && ') : 'true';
  }

  /** Lines that `return false` when `x` fails `s`. */
  private check(s: unknown, x: string, out: string[]): void {
    const e = this.leaf(s, x);
    if (e !== null) {
      if (e !== 'true') out.push(`if (!(${e})) return false;`);
      return;
    }
    const o = s as S;
    const one = only(typesOf(o));
    const group = one === 'object' || one === 'array';
    const pre = this.terms(o, x, group);
    if (group) out.push(`if (!${one === 'object' ? this.objectTest(x) : `Array.isArray(${x})`}) return false;`);
    if (pre === null) {
      // an allOf part with statements of its own
      const rest = { ...o };
      delete rest.allOf;
      for (const part of o.allOf as unknown[]) this.check(part, x, out);
      this.check(rest, x, out);
      return;
    }
    if (pre.length) out.push(`if (!(${pre.join(' && ')})) return false;`);
    const arr = this.arrayLines(o, x);
    if (one === 'array') out.push(...arr);
    else if (arr.length) out.push(`if (Array.isArray(${x})) {`, ...arr, '}');
    const obj = this.objectLines(o, x);
    if (one === 'object') out.push(...obj);
    else if (obj.length) out.push(`if (${this.objectTest(x)}) {`, ...obj, '}');
  }

  /** `maxItems` and `items` of `o` on array `x`. */
  private arrayLines(o: S, x: string): string[] {
    const arr: string[] = [];
    if (typeof o.maxItems === 'number') arr.push(`if (${x}.length > ${o.maxItems}) return false;`);
    if (o.items !== undefined && !alwaysValid(o.items)) {
      const i = `i${this.vars++}`;
      const y = `v${this.vars++}`;
      arr.push(`for (let ${i} = 0; ${i} < ${x}.length; ${i}++) {`, `const ${y} = ${x}[${i}];`);
      this.check(o.items, y, arr);
      arr.push('}');
    }
    return arr;
  }

  /** `required`, `properties` and `additionalProperties` of `o` on object `x`: each member read once. */
  private objectLines(o: S, x: string): string[] {
    const obj: string[] = [];
    const props = isObj(o.properties) ? o.properties : {};
    const known = Object.keys(props);
    const required = new Set(Array.isArray(o.required) ? (o.required as string[]) : []);
    for (const k of required) {
      if (!Object.hasOwn(props, k) || alwaysValid(props[k])) {
        obj.push(`if (${prop(x, k)} === undefined) return false;`);
        continue;
      }
      const y = `v${this.vars++}`;
      obj.push(`const ${y} = ${prop(x, k)};`);
      const m = this.leaf(props[k], y);
      if (m !== null && refusesUndefined(props[k])) obj.push(`if (!(${m})) return false;`);
      else if (m !== null) obj.push(`if (${y} === undefined || !(${m})) return false;`);
      else {
        obj.push(`if (${y} === undefined) return false;`);
        this.check(props[k], y, obj);
      }
    }
    for (const k of known) {
      if (required.has(k) || alwaysValid(props[k])) continue;
      const y = `v${this.vars++}`;
      obj.push(`const ${y} = ${prop(x, k)};`);
      const m = this.leaf(props[k], y);
      if (m !== null) obj.push(`if (${y} !== undefined && !(${m})) return false;`);
      else {
        obj.push(`if (${y} !== undefined) {`);
        this.check(props[k], y, obj);
        obj.push('}');
      }
    }
    const ap = o.additionalProperties;
    if (ap !== undefined && !alwaysValid(ap)) {
      const k = `k${this.vars++}`;
      const isKnown = known.map((n) => `${k} === ${lit(n)}`).join(' || ');
      if (ap === false) obj.push(`for (const ${k} in ${x}) if (${isKnown ? `!(${isKnown})` : 'true'}) return false;`);
      else {
        const y = `v${this.vars++}`;
        obj.push(`for (const ${k} in ${x}) {`);
        if (isKnown) obj.push(`if (${isKnown}) continue;`);
        obj.push(`const ${y} = ${x}[${k}];`);
        this.check(ap, y, obj);
        obj.push('}');
      }
    }
    return obj;
  }

  /** Function `fn` answering `s` on `d`. */
  body(fn: string, s: unknown): string {
    const e = this.leaf(s, 'd');
    if (e !== null) return `function ${fn}(d) {\nreturn ${e};\n}`;
    const out: string[] = [];
    this.check(s, 'd', out);
    return [`function ${fn}(d) {`, ...out, 'return true;', '}'].join('\n');
  }
}
