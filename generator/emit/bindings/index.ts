/**
 * Message bindings for other languages. `emitTargets` is the entry `generate` uses: the
 * languages of own.ts are rendered from the ProtocolModel by mcpgen's own emitters
 * (../<lang>/bindings.ts), the SDK targets by ../<lang>/sdk.ts, the rest by quicktype-core from
 * the revision's `$defs` (`emitBindings`).
 *
 * `emitBindings` is pure: the same definitions give byte-identical files whatever their key
 * order. The schema is canonicalised first (canonical.ts), quicktype renders it (quicktype.ts),
 * and per-language fixes patch the text (fixes.ts); languages.ts is the table of languages.
 */
import { canonicalSchema, compareCodeUnits, requiredAnyProperties, type Definitions } from './canonical.js';
import type { FixContext } from './fixes.js';
import { BINDING_LANGUAGES, type BindingLanguage, type BindingLanguageId } from './languages.js';
import { renderWithQuicktype } from './quicktype.js';
import { OWN_BINDING_LANGUAGES, isOwnLanguage } from './own.js';
import type { ProtocolModel } from '../../model.js';
import { emitGoSdk } from '../go/sdk.js';
import { emitPythonSdk } from '../python/sdk.js';

export { BINDING_LANGUAGES, BINDING_LANGUAGE_IDS } from './languages.js';
export type { BindingLanguage, BindingLanguageId, BindingTest } from './languages.js';
export type { Fix, FixContext } from './fixes.js';
export { canonicalSchema } from './canonical.js';
export { emittedTypeNames } from './names.js';
export { OWN_BINDING_LANGUAGES, OWN_BINDING_LANGUAGE_IDS, isOwnLanguage } from './own.js';
export type { OwnLanguage, OwnLanguageId } from './own.js';

/**
 * The SDK targets: a whole SDK of a language (models, method maps, typed client and server) on
 * that language's mcpgen runtime, written under `<lang>/` of the revision's folder
 * (`python-sdk`: generator/emit/python/sdk.ts, the package `mcp_<rev>` over `mcpgen_runtime`;
 * `go-sdk`: generator/emit/go/sdk.ts, the package `mcp<rev digits>` over the Go module
 * `mcpgen.dev/runtime`).
 */
export const SDK_TARGETS: Readonly<Record<string, (model: ProtocolModel) => Map<string, string>>> = {
  'python-sdk': emitPythonSdk,
  'go-sdk': emitGoSdk,
};

/** Every `--target` language: mcpgen's own emitters first, then quicktype's, in table order, then the SDKs. */
export const TARGET_IDS: readonly string[] = [
  ...Object.keys(OWN_BINDING_LANGUAGES),
  ...Object.keys(BINDING_LANGUAGES),
  ...Object.keys(SDK_TARGETS),
];

/**
 * The bindings of one revision for `targets` (ids of TARGET_IDS): relative path → text, in
 * code-unit order. `header` is the one-line preamble for the quicktype languages (the own
 * emitters write the same preamble from the model). `onLanguage` is called after each language
 * with the number of files it made and its duration in ms (own languages first, then quicktype's,
 * each in code-unit order).
 */
export async function emitTargets(
  model: ProtocolModel,
  targets: readonly string[],
  header: string,
  onLanguage?: BindingsOptions['onLanguage'],
): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  const ids = [...new Set(targets)].sort(compareCodeUnits);
  for (const id of ids.filter(isOwnLanguage)) {
    const t0 = performance.now();
    const own = OWN_BINDING_LANGUAGES[id].emit(model);
    for (const [path, text] of own) files.set(path, text);
    onLanguage?.(id, own.size, performance.now() - t0);
  }
  for (const id of ids.filter((x) => Object.hasOwn(SDK_TARGETS, x))) {
    const t0 = performance.now();
    const sdk = SDK_TARGETS[id](model);
    for (const [path, text] of sdk) files.set(path, text);
    onLanguage?.(id, sdk.size, performance.now() - t0);
  }
  const rest = ids.filter((id) => !isOwnLanguage(id) && !Object.hasOwn(SDK_TARGETS, id));
  if (rest.length) {
    const types = Object.fromEntries(Object.values(model.types).map((t) => [t.name, t.schema]));
    for (const [path, text] of await emitBindings(
      { revision: model.revision, types, header },
      { languages: rest, onLanguage },
    ))
      files.set(path, text);
  }
  return new Map([...files].sort(([a], [b]) => compareCodeUnits(a, b)));
}

export interface BindingsInput {
  /** Revision id, e.g. `2025-11-25` or `draft` (named in errors). */
  revision: string;
  /** The `$defs` of the revision's schema.json (refs as `#/$defs/Name`). */
  types: Record<string, { schema: object }> | Definitions;
  /** One-line preamble, written as a line comment at the top of every file. */
  header: string;
}

export interface BindingsOptions {
  /** Language ids from `BINDING_LANGUAGES`. */
  languages: string[];
  /**
   * Names of fixes (fixes.ts) to leave out. Only the tests use it, to show that each fix is
   * needed; unknown names are an error.
   */
  withoutFixes?: readonly string[];
  /** Called after each language with the number of files it made and its duration in ms. */
  onLanguage?: (language: string, files: number, ms: number) => void;
}

function isBindingLanguage(id: string): id is BindingLanguageId {
  return Object.hasOwn(BINDING_LANGUAGES, id);
}

/** The header as one comment line: any comment marker it came with is replaced. */
export function commentLine(language: BindingLanguage, header: string): string {
  const text = header
    .split(/\r?\n/)[0]
    .replace(/^\s*(\/\/+|#+)\s?/, '')
    .trim();
  return `${language.comment} ${text}`;
}

/** Renders one language: relative path → file text. */
async function emitLanguage(
  language: BindingLanguage,
  document: ReturnType<typeof canonicalSchema>,
  header: string,
  withoutFixes: ReadonlySet<string>,
): Promise<Map<string, string>> {
  const rendered = await renderWithQuicktype({
    lang: language.quicktype,
    document,
    rendererOptions: { ...language.rendererOptions },
    outputFilename: language.outputFilename,
    ownTopLevelNames: language.ownTopLevelNames === true,
  });
  const out = new Map<string, string>();
  const preamble = commentLine(language, header);
  const context: FixContext = { requiredAny: requiredAnyProperties(document) };
  for (const name of [...rendered.keys()].sort(compareCodeUnits)) {
    let text = rendered.get(name)!;
    for (const fix of language.fixes) if (!withoutFixes.has(fix.name)) text = fix.apply(text, context);
    const path = language.dir !== undefined ? `${language.dir}/${name}` : language.fileNames[0];
    out.set(path, `${preamble}\n${text.replace(/\r\n?/g, '\n').trimEnd()}\n`);
  }
  return out;
}

/**
 * Accepts both the raw `$defs` (name → schema) and the model's form (name → `{ schema }`): an
 * entry whose only key is `schema` and whose value is an object is unwrapped.
 */
function definitionsOf(types: BindingsInput['types']): Definitions {
  const out: Definitions = {};
  for (const name of Object.keys(types)) {
    const entry = (types as Record<string, unknown>)[name] as Record<string, unknown>;
    const keys = Object.keys(entry);
    const wrapped =
      keys.length === 1 && keys[0] === 'schema' && typeof entry.schema === 'object' && entry.schema !== null;
    out[name] = (wrapped ? entry.schema : entry) as Record<string, unknown>;
  }
  return out;
}

/**
 * Emits the bindings of one revision for the given languages. Paths are relative
 * (`bindings/cpp/mcp_types.hpp`), in code-unit order.
 */
export async function emitBindings(input: BindingsInput, options: BindingsOptions): Promise<Map<string, string>> {
  const unknown = options.languages.filter((id) => !isBindingLanguage(id));
  if (unknown.length > 0) {
    throw new Error(
      `unknown binding language ${unknown.join(', ')}; known: ${Object.keys(BINDING_LANGUAGES).join(', ')}`,
    );
  }
  const withoutFixes = new Set(options.withoutFixes ?? []);
  const knownFixes = new Set(Object.values(BINDING_LANGUAGES).flatMap((l) => l.fixes.map((f) => f.name)));
  const unknownFixes = [...withoutFixes].filter((name) => !knownFixes.has(name));
  if (unknownFixes.length > 0) throw new Error(`unknown binding fix ${unknownFixes.join(', ')}`);
  const document = canonicalSchema(definitionsOf(input.types));
  const files = new Map<string, string>();
  const ids = [...new Set(options.languages as BindingLanguageId[])].sort(compareCodeUnits);
  for (const id of ids) {
    const t0 = performance.now();
    let rendered: Map<string, string>;
    try {
      rendered = await emitLanguage(BINDING_LANGUAGES[id], document, input.header, withoutFixes);
    } catch (error) {
      throw new Error(`bindings: ${id} for ${input.revision} failed: ${(error as Error).message}`, { cause: error });
    }
    for (const [path, text] of rendered) files.set(path, text);
    options.onLanguage?.(id, rendered.size, performance.now() - t0);
  }
  return new Map([...files].sort(([a], [b]) => compareCodeUnits(a, b)));
}
