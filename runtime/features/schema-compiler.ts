/**
 * The schema compiler of tool and prompt schemas, ../protocol/json-schema.ts (ajv, or
 * @cfworker/json-schema where code generation is refused), imported once per process by the
 * first call that needs it (./tools.ts, ./server-features.ts): a server starts without it, and a
 * bundler puts it in a chunk of its own. Not part of the `features` subpath.
 */
import { lazy } from '../jsonrpc/lazy.js';

export type JsonSchemaModule = typeof import('../protocol/json-schema.js');
const compiler = lazy((): Promise<JsonSchemaModule> => import('../protocol/json-schema.js'));

/** The compiler module once {@link loadJsonSchema} has loaded it, else undefined. */
export const loadedJsonSchema: () => JsonSchemaModule | undefined = compiler.loaded;

/**
 * Imports the compiler module (once; a failed import is tried again by the next call) and
 * resolves with it. @throws the import's error.
 */
export const loadJsonSchema: () => Promise<JsonSchemaModule> = compiler.load;
