/**
 * Standard Schema v1 validators in definitions (https://standardschema.dev): telling one from a
 * JSON Schema, the JSON Schema a list shows for it (Standard JSON Schema v1,
 * `~standard.jsonSchema.input`, target draft 2020-12) and validation with failures described as
 * `path: message` (the form of `describeValidation`).
 */
import type { StandardSchemaV1 } from '@standard-schema/spec';
import type { SchemaLike, StandardValidator } from './typed.js';

type Obj = Record<string, unknown>;

/** True when `s` is a Standard Schema (has `~standard.validate`), not a JSON Schema. */
export function isStandardSchema(s: unknown): s is StandardSchemaV1 {
  const std = (s as { '~standard'?: { validate?: unknown } } | null | undefined)?.['~standard'];
  return typeof std === 'object' && std !== null && typeof std.validate === 'function';
}

/**
 * The JSON Schema of `s` as lists show it: `s` itself when it is a JSON Schema, else the
 * validator's Standard JSON Schema of its input (draft 2020-12).
 * @throws TypeError naming `what` when the validator has no Standard JSON Schema or cannot express itself in it.
 */
export function jsonSchemaOf(s: SchemaLike, what: string): Obj {
  if (!isStandardSchema(s)) return s as Obj;
  const convert = (s as Partial<StandardValidator>)['~standard']?.jsonSchema?.input;
  if (typeof convert !== 'function') {
    throw new TypeError(
      `${what} is a Standard Schema without a Standard JSON Schema (~standard.jsonSchema); wrap it (valibot: toStandardJsonSchema) or give a JSON Schema`,
    );
  }
  try {
    return convert({ target: 'draft-2020-12' });
  } catch (e) {
    throw new TypeError(`${what} cannot be expressed as JSON Schema: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/** What {@link validateStandard} resolves with: the validator's output, or the failures. */
export type StandardOutcome = { ok: true; value: unknown } | { ok: false; problems: string[] };

/**
 * Validates `value` with Standard Schema `s` (awaited when the validator is asynchronous).
 * `root` names the value itself in a failure without a path (`(arguments)`).
 */
export async function validateStandard(s: StandardSchemaV1, value: unknown, root: string): Promise<StandardOutcome> {
  let r = s['~standard'].validate(value);
  if (r instanceof Promise) r = await r;
  if (!r.issues) return { ok: true, value: r.value };
  const problems = r.issues.map((i) => {
    const path = (i.path ?? []).map((k) => String(typeof k === 'object' && k !== null ? k.key : k)).join('.');
    return `${path || root}: ${i.message}`;
  });
  return { ok: false, problems };
}
