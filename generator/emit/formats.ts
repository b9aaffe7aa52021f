/**
 * The JSON Schema string formats the generated validators check, by name: part of the contract
 * between generated code and the runtime. The predicates themselves are the runtime's (`formats`
 * of `runtime/codegen/v1`, which generated validators import); the generator needs only the
 * names, since ajv's standalone output calls `formats[<name>](data)` whatever function it
 * compiled with. test/generator/formats-contract.test.ts checks that both name the same formats.
 */

/** The format names, in code-unit order. */
export const FORMAT_NAMES: readonly string[] = ['byte', 'uri', 'uri-template'];

/**
 * What ajv compiles against: one stand-in per name that accepts every string. The emitted code
 * calls the runtime's predicates, never these; ajv could call them only while checking a
 * schema against its meta-schema, where a format check of `$schema` adds nothing.
 */
export function compileTimeFormats(): Record<string, (value: string) => boolean> {
  const accept = (): boolean => true;
  return Object.fromEntries(FORMAT_NAMES.map((name) => [name, accept]));
}
