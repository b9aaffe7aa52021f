/**
 * validators emitter, in one of two forms (`validators` emit option): `compact` (the default,
 * ./compact.ts: the schemas as data, compiled into closures by the runtime on first use) or
 * `ajv`, described here. A revision whose schemas use what compact validators do not implement
 * gets the ajv form ({@link validatorsForm} says which and why; generate reports it).
 *
 * The ajv form: ajv standalone ESM validators (JSON Schema 2020-12, formats included),
 * one per named type plus one per method params / result union; shared sub-schemas are
 * compiled once (`inlineRefs: false`: every `$ref` target is one function). A member named like an
 * `Object.prototype` member (`constructor`, `toString`, …) is checked as an own property only
 * (ajv `ownProperties`, turned on when a schema of the revision names one: JSON data has no other
 * inherited members, and the plain property reads are faster).
 */
import { _ } from 'ajv';
import Ajv2020 from 'ajv/dist/2020.js';
import standalone from 'ajv/dist/standalone/index.js';
import type { ProtocolModel, RequestDef } from '../model.js';
import { INPUT_REQUIRED_RESULT_TYPE } from '../overrides.js';
import { resultTypeFact } from '../runtime-facts.js';
import { type CompactExport, type Unsupported, compactUnsupported, emitCompactValidators } from './compact.js';
import { type EmitOptions, type Files, preamble } from './common.js';
import { compileTimeFormats } from './formats.js';

const SCHEMA_ID = 'mcp';
const ANNOTATIONS = new Set(['description', 'title', '$comment', 'examples', 'deprecated', 'default']);
const NAME_MAPS = new Set(['properties', 'patternProperties', '$defs', 'dependentSchemas']);

/** The schema without annotation keywords (they do not change what validates). */
function withoutAnnotations(v: unknown, inNameMap = false): unknown {
  if (Array.isArray(v)) return v.map((x) => withoutAnnotations(x));
  if (!v || typeof v !== 'object') return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    if (inNameMap) out[k] = withoutAnnotations(x);
    else if (!ANNOTATIONS.has(k)) out[k] = withoutAnnotations(x, NAME_MAPS.has(k));
  }
  return out;
}

/** Export name of the validator of a request's params (named type or `<Request>$params`). */
export function paramsValidatorName(r: {
  requestType?: string;
  notificationType?: string;
  paramsType: string | null;
  hasParams: boolean;
}): string | null {
  if (!r.hasParams) return null;
  return r.paramsType ?? `${r.requestType ?? r.notificationType}$params`;
}

/** Export name of the validator of every result a request may get. */
export function resultValidatorName(r: RequestDef): string {
  return r.altResultTypes.length ? `${r.requestType}$result` : r.resultType;
}

/**
 * The schema of every result request `r` may get, its result types referenced as `ref(name)`:
 * any of them. A `tools/call` of a revision whose results carry `resultType` (2026-07-28, draft:
 * basic/index, ResultType) with an InputRequiredResult among them is told apart by that member
 * instead: InputRequiredResult holds nothing but optional members and `resultType` (any string),
 * so with the plain union any object with a string `resultType` passed as one. Here a
 * `"complete"` result must be a CallToolResult, an `"input_required"` one an
 * InputRequiredResult, and a result of another `resultType` (an extension's, such as the tasks
 * extension's `"task"`, which clients accept only when they declared the extension) passes as
 * before when it has no `content`: what has `content` is a CallToolResult. (Compact validators
 * have no `not`, so "another resultType" is spelt by its shape; a `"complete"` result without
 * `content` still passes there. The runtime fills in an absent `resultType` as `"complete"` before
 * the check.) prompts/get and resources/read keep the plain union: their results are checked
 * before the cache policy adds their required hints.
 */
/**
 * A schema no value satisfies, as a member's schema: "no such member". Not `false` (compact
 * validators word its schemaPath otherwise than ajv) nor an empty `enum` (ajv refuses it).
 */
const NOTHING = { type: 'string', const: null };

export function resultUnionSchema(model: ProtocolModel, r: RequestDef, ref: (type: string) => string): unknown {
  const types = [r.resultType, ...r.altResultTypes];
  if (r.method !== 'tools/call' || !r.altResultTypes.includes(INPUT_REQUIRED_RESULT_TYPE) || !resultTypeFact(model))
    return { anyOf: types.map((t) => ({ $ref: ref(t) })) };
  const tagged = (t: string, value: string) => ({
    allOf: [{ $ref: ref(t) }],
    properties: { resultType: { const: value } },
  });
  return {
    anyOf: [
      ...types.map((t) =>
        t === r.resultType
          ? tagged(t, 'complete')
          : t === INPUT_REQUIRED_RESULT_TYPE
            ? tagged(t, 'input_required')
            : { $ref: ref(t) },
      ),
      { allOf: [{ $ref: ref(INPUT_REQUIRED_RESULT_TYPE) }], properties: { content: NOTHING } },
    ],
  };
}

const PROTOTYPE_MEMBERS = new Set(Object.getOwnPropertyNames(Object.prototype));

/** Whether any schema names a property (in `properties` or `required`) that `Object.prototype` has. */
export function namesPrototypeMember(schema: unknown): boolean {
  if (Array.isArray(schema)) return schema.some(namesPrototypeMember);
  if (schema === null || typeof schema !== 'object') return false;
  const s = schema as Record<string, unknown>;
  const props = s.properties;
  if (props && typeof props === 'object' && Object.keys(props).some((k) => PROTOTYPE_MEMBERS.has(k))) return true;
  if (Array.isArray(s.required) && s.required.some((k) => typeof k === 'string' && PROTOTYPE_MEMBERS.has(k)))
    return true;
  return Object.values(s).some(namesPrototypeMember);
}

/** The revision's definitions, annotations stripped: what both forms validate against. */
export function validatorDefs(model: ProtocolModel): Record<string, unknown> {
  return Object.fromEntries(Object.values(model.types).map((t) => [t.name, withoutAnnotations(t.schema)]));
}

/**
 * Which form validators.gen.js of `model` takes under `opts`: `opts.validators` (default
 * `compact`), except `ajv` when a schema uses what compact validators do not implement
 * (`unsupported` names it).
 */
export function validatorsForm(
  model: ProtocolModel,
  opts: Pick<EmitOptions, 'validators'>,
): { form: 'compact' | 'ajv'; unsupported: Unsupported | null } {
  if (opts.validators === 'ajv') return { form: 'ajv', unsupported: null };
  const unsupported = compactUnsupported(validatorDefs(model));
  return { form: unsupported ? 'ajv' : 'compact', unsupported };
}

/**
 * The validator exports beside the definitions: each request's or notification's inline params
 * (`<Type>$params`, the `params` member of its definition) and each request's result union
 * (`<Request>$result`, any of its result types).
 */
export function extraExports(model: ProtocolModel, defs: Record<string, unknown>): CompactExport[] {
  const out = new Map<string, CompactExport>();
  for (const m of [...model.requests, ...model.notifications]) {
    const type = 'requestType' in m ? m.requestType : m.notificationType;
    const p = paramsValidatorName(m);
    if (!p || m.paramsType || Object.hasOwn(defs, p) || out.has(p)) continue;
    const schema = (defs[type] as { properties?: Record<string, unknown> }).properties?.params;
    if (schema === undefined) throw new Error(`validators: ${type} has no params member for ${p}`);
    out.set(p, { name: p, schema, shared: `$${p}` });
  }
  for (const r of model.requests) {
    const n = resultValidatorName(r);
    if (Object.hasOwn(defs, n) || out.has(n)) continue;
    out.set(n, {
      name: n,
      schema: resultUnionSchema(model, r, (t) => `#/$defs/${t}`),
    });
  }
  return [...out.values()];
}

/** validators.gen.js and its .d.ts, in the form {@link validatorsForm} chooses. */
export function emitValidators(model: ProtocolModel, opts: EmitOptions): Files {
  const defs = validatorDefs(model);
  const extra = extraExports(model, defs);
  const names = [...Object.keys(defs), ...extra.map((e) => e.name)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const own = namesPrototypeMember(defs);
  const js =
    validatorsForm(model, opts).form === 'compact'
      ? emitCompactValidators(model, opts, defs, extra, own)
      : emitAjv(model, opts, defs, own);
  const dts = [
    preamble(model),
    `import type { Validator } from '${opts.runtimeImport}';`,
    ...names.map((n) => `export declare const ${n}: Validator;`),
    '',
  ];
  return new Map([
    ['validators.gen.js', js],
    ['validators.gen.d.ts', dts.join('\n')],
  ]);
}

/**
 * The ajv instance of the ajv form, every definition added under `mcp#/$defs/<Name>`, and the
 * schema reference of each export (tests compile the same validators in memory, with the
 * runtime's `formats` in place of the compile-time stand-ins).
 */
export function ajvValidators(
  model: ProtocolModel,
  defs: Record<string, unknown> = validatorDefs(model),
  own = namesPrototypeMember(defs),
  formats: Record<string, (value: string) => boolean> = compileTimeFormats(),
) {
  const Ajv = Ajv2020 as unknown as typeof Ajv2020.default;
  // Tracking evaluated properties makes every anyOf branch run (a 64 KiB image block is then
  // checked as image and as audio); only schemas that use unevaluated* need it.
  const unevaluated = /"unevaluated(Properties|Items)"/.test(JSON.stringify(defs));
  const ajv = new Ajv({
    code: { source: true, esm: true, lines: false, formats: _`formats` },
    formats: formats as never,
    strict: false,
    allErrors: false,
    inlineRefs: false,
    validateFormats: true,
    // an inherited member (`constructor`, `toString`) never satisfies `required` or `properties`
    ownProperties: own,
  });
  // Ajv2020 forces the option on in its constructor; it is read at compile time.
  (ajv.opts as { unevaluated?: boolean }).unevaluated = unevaluated;
  ajv.addSchema({ $id: SCHEMA_ID, $defs: defs });
  const exports: Record<string, string> = {};
  for (const name of Object.keys(model.types)) exports[name] = `${SCHEMA_ID}#/$defs/${name}`;
  for (const m of [...model.requests, ...model.notifications]) {
    const type = 'requestType' in m ? m.requestType : m.notificationType;
    const p = paramsValidatorName(m);
    if (p && !m.paramsType && !exports[p]) {
      ajv.addSchema({ $ref: `${SCHEMA_ID}#/$defs/${type}/properties/params` }, p);
      exports[p] = p;
    }
  }
  for (const r of model.requests) {
    const n = resultValidatorName(r);
    if (exports[n]) continue;
    ajv.addSchema(resultUnionSchema(model, r, (t) => `${SCHEMA_ID}#/$defs/${t}`) as object, n);
    exports[n] = n;
  }
  const sorted = Object.fromEntries(Object.entries(exports).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return { ajv, exports: sorted };
}

function emitAjv(model: ProtocolModel, opts: EmitOptions, defs: Record<string, unknown>, own: boolean): string {
  const { ajv, exports } = ajvValidators(model, defs, own);
  let code = (standalone as unknown as typeof standalone.default)(ajv, exports);
  if (/\brequire\(/.test(code)) throw new Error('validators: ajv emitted require() in ESM output');
  code = code.replace(/^"use strict";/, '');
  const head = [
    preamble(model),
    `// ajv standalone validators for MCP ${model.revision}; each export validates one named type.`,
    '// @ts-nocheck',
    `import { formats } from '${opts.runtimeImport}';`,
    '',
  ];
  return `${head.join('\n')}${code}\n`;
}
