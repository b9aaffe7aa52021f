/**
 * validators emitter: ajv standalone ESM validators (JSON Schema 2020-12, formats included),
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
export function paramsValidatorName(r: { requestType?: string; notificationType?: string; paramsType: string | null; hasParams: boolean }): string | null {
  if (!r.hasParams) return null;
  return r.paramsType ?? `${r.requestType ?? r.notificationType}$params`;
}

/** Export name of the validator of every result a request may get. */
export function resultValidatorName(r: RequestDef): string {
  return r.altResultTypes.length ? `${r.requestType}$result` : r.resultType;
}

const PROTOTYPE_MEMBERS = new Set(Object.getOwnPropertyNames(Object.prototype));

/** Whether any schema names a property (in `properties` or `required`) that `Object.prototype` has. */
export function namesPrototypeMember(schema: unknown): boolean {
  if (Array.isArray(schema)) return schema.some(namesPrototypeMember);
  if (schema === null || typeof schema !== 'object') return false;
  const s = schema as Record<string, unknown>;
  const props = s.properties;
  if (props && typeof props === 'object' && Object.keys(props).some((k) => PROTOTYPE_MEMBERS.has(k))) return true;
  if (Array.isArray(s.required) && s.required.some((k) => typeof k === 'string' && PROTOTYPE_MEMBERS.has(k))) return true;
  return Object.values(s).some(namesPrototypeMember);
}

export function emitValidators(model: ProtocolModel, opts: EmitOptions): Files {
  const Ajv = Ajv2020 as unknown as typeof Ajv2020.default;
  const defs = Object.fromEntries(Object.values(model.types).map((t) => [t.name, withoutAnnotations(t.schema)]));
  // Tracking evaluated properties makes every anyOf branch run (a 64 KiB image block is then
  // checked as image and as audio); only schemas that use unevaluated* need it.
  const unevaluated = /"unevaluated(Properties|Items)"/.test(JSON.stringify(defs));
  const ajv = new Ajv({
    code: { source: true, esm: true, lines: false, formats: _`formats` },
    formats: compileTimeFormats() as never,
    strict: false,
    allErrors: false,
    inlineRefs: false,
    validateFormats: true,
    // an inherited member (`constructor`, `toString`) never satisfies `required` or `properties`
    ownProperties: namesPrototypeMember(defs),
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
    ajv.addSchema({ anyOf: [r.resultType, ...r.altResultTypes].map((t) => ({ $ref: `${SCHEMA_ID}#/$defs/${t}` })) }, n);
    exports[n] = n;
  }
  const sorted = Object.fromEntries(Object.entries(exports).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  let code = (standalone as unknown as typeof standalone.default)(ajv, sorted);
  if (/\brequire\(/.test(code)) throw new Error('validators: ajv emitted require() in ESM output');
  code = code.replace(/^"use strict";/, '');
  const head = [
    preamble(model),
    `// ajv standalone validators for MCP ${model.revision}; each export validates one named type.`,
    '// @ts-nocheck',
    `import { formats } from '${opts.runtimeImport}';`,
    '',
  ];
  const dts = [
    preamble(model),
    `import type { Validator } from '${opts.runtimeImport}';`,
    ...Object.keys(sorted).map((n) => `export declare const ${n}: Validator;`),
    '',
  ];
  return new Map([
    ['validators.gen.js', `${head.join('\n')}${code}\n`],
    ['validators.gen.d.ts', dts.join('\n')],
  ]);
}
