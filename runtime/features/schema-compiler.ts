/**
 * The schema compiler of tool and prompt schemas, ../protocol/json-schema.ts (ajv, or
 * @cfworker/json-schema where code generation is refused), imported once per process by the
 * first call that needs it (./tools.ts, ./server-features.ts): a server starts without it, and a
 * bundler puts it in a chunk of its own. Not part of the `features` subpath.
 */
export type JsonSchemaModule = typeof import('../protocol/json-schema.js');
let loaded: JsonSchemaModule | undefined;
let loading: Promise<JsonSchemaModule> | undefined;

/** The compiler module once {@link loadJsonSchema} has loaded it, else undefined. */
export const loadedJsonSchema = (): JsonSchemaModule | undefined => loaded;

/**
 * Imports the compiler module (once; a failed import is tried again by the next call) and
 * resolves with it. @throws the import's error.
 */
export function loadJsonSchema(): Promise<JsonSchemaModule> {
  return (loading ??= import('../protocol/json-schema.js').then(
    (m) => (loaded = m),
    (e: unknown) => {
      loading = undefined;
      throw e;
    },
  ));
}
