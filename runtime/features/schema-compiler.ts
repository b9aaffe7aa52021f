/**
 * The schema compiler of tool and prompt schemas, ../protocol/json-schema.ts (ajv, or
 * @cfworker/json-schema where code generation is refused), imported once per process by the
 * first call that needs it (./tools.ts, ./server-features.ts): a server starts without it, and a
 * bundler puts it in a chunk of its own. Not part of the `features` subpath.
 */
import { lazy } from '../jsonrpc/lazy.js';

/**
 * The compiler module: `load()` imports it (once; a failed import is tried again by the next
 * call) and resolves with it (@throws the import's error); `loaded()` gives it once loaded, else
 * undefined.
 */
export const jsonSchemaCompiler = lazy(() => import('../protocol/json-schema.js'));
