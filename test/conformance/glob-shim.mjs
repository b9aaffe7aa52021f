// The conformance suites import `globSync` from `fs`, which Node < 22 lacks. Preloaded with
// `node --import ./test/conformance/glob-shim.mjs <suite bin>`, this registers a resolve hook
// that gives modules under node_modules/conformance-* ./fs-glob.mjs (node:fs plus globSync)
// for `fs` / `node:fs`. On Node ≥ 22 it does nothing.
import fs from 'node:fs';
import { register } from 'node:module';

if (typeof fs.globSync !== 'function') register(import.meta.url);

const FS = new URL('./fs-glob.mjs', import.meta.url).href;

export async function resolve(specifier, context, next) {
  if ((specifier === 'fs' || specifier === 'node:fs') && context.parentURL?.includes('/node_modules/conformance-')) {
    return { url: FS, shortCircuit: true };
  }
  return next(specifier, context);
}
