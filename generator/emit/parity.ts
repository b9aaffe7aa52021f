/**
 * parity emitter: `parity.gen.ts`, a compile-time proof that every type of `types.gen.ts` is
 * mutually assignable with the same-named exported type of the upstream schema.ts the revision
 * was generated from. The upstream file is imported (type-only) by the specifier the caller
 * gives (the path it was read from: `--spec-dir`, `MCP_SPEC_DIR` or the pull cache), never
 * copied. Since that path is a fact of the machine, the file is not part of `generate`'s output
 * (which must be the same bytes everywhere): the generator's parity test
 * (test/generator/parity.test.ts) writes it beside a fresh types.gen.ts in a temporary folder
 * and compiles it under `strict`.
 */
import type { ProtocolModel } from '../model.js';
import { byCodeUnit } from '../util.js';
import { type Files, jsdoc, preamble } from './common.js';

/** A generated type that is knowingly not mutually assignable with its upstream namesake. */
export interface ParityException {
  type: string;
  /** Restrict to these revision ids; every revision when absent. */
  revisions?: readonly string[];
  why: string;
}

/**
 * The one table of parity exceptions. An entry is emitted as an assertion that the two types are
 * NOT mutually assignable, so an entry that is no longer needed fails to compile. Empty: the
 * types emitter and ingest's schema.ts corrections (JSONValue's `null` and non-integer numbers)
 * close every gap schema.json leaves in the pinned revisions and the draft snapshots.
 */
export const PARITY_EXCEPTIONS: readonly ParityException[] = [];

/** Import specifier of an absolute file path (forward slashes; a drive letter stays as is). */
export function importSpecifier(path: string): string {
  return path.replace(/\\/g, '/');
}

/** Line of `parity.gen.ts` asserting parity of `name` (a test maps diagnostics back with it). */
export const parityAlias = (name: string): string => `_${name}`;

/**
 * `parity.gen.ts` for `model`, importing upstream types from `upstreamPath` (an absolute path to
 * the schema.ts the model was ingested from, or any specifier resolving to it).
 */
export function emitParity(
  model: ProtocolModel,
  upstreamPath: string,
  exceptions: readonly ParityException[] = PARITY_EXCEPTIONS,
): Files {
  const upstream = importSpecifier(upstreamPath);
  const applies = (e: ParityException) => !e.revisions || e.revisions.includes(model.revision);
  const except = new Map(exceptions.filter(applies).map((e) => [e.type, e]));
  const names = Object.keys(model.types).sort(byCodeUnit);
  const lines = [
    preamble(model),
    jsdoc([
      `Parity of MCP ${model.revision} with upstream schema.ts: each type of types.gen.ts and the`,
      'same-named exported type of the file below are assignable to each other, both ways.',
      'Exceptions (generator/emit/parity.ts) are asserted to differ, so a stale one fails too.',
      `Upstream: ${upstream} (sha256 ${model.inputs.schemaTs.sha256})`,
    ]),
    `import type * as G from './types.gen.js';`,
    `import type * as U from '${upstream.replace(/'/g, "\\'")}';`,
    '',
    '/** `true` only for `any` (which is assignable both ways to anything, so proves nothing). */',
    'type IsAny<T> = 0 extends 1 & T ? true : false;',
    'type Extends<A, B> = [A] extends [B] ? true : false;',
    '/** Two-way assignability; never true when either side is `any`. */',
    'export type Mutual<A, B> = true extends IsAny<A> | IsAny<B> ? false : Extends<A, B> extends true ? Extends<B, A> : false;',
    'type Assert<T extends true> = T;',
    'type AssertNot<T extends false> = T;',
    '',
  ];
  for (const name of names) {
    const e = except.get(name);
    if (e) {
      lines.push(jsdoc([`Exception: ${e.why}`]));
      lines.push(`export type ${parityAlias(name)} = AssertNot<Mutual<G.${name}, U.${name}>>;`);
    } else {
      lines.push(`export type ${parityAlias(name)} = Assert<Mutual<G.${name}, U.${name}>>;`);
    }
  }
  const unknown = [...except.keys()].filter((n) => !Object.hasOwn(model.types, n)).sort(byCodeUnit);
  if (unknown.length) {
    // an exception naming a type the revision does not have is stale as well
    for (const n of unknown) lines.push(`export type ${parityAlias(n)} = Assert<Mutual<G.${n}, U.${n}>>;`);
  }
  return new Map([['parity.gen.ts', `${lines.join('\n')}\n`]]);
}
