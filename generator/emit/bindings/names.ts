/**
 * The names of the types a binding declares at its top level, read back from the emitted text.
 * The snapshot under test/generator/bindings/names/ holds them, so that a rename shows as a diff.
 */
import { compareCodeUnits } from './canonical.js';
import type { BindingLanguageId } from './languages.js';

/** One declaration pattern per language; group 1 is the name. Anchored at a line's start. */
const DECLARATIONS: Readonly<Record<BindingLanguageId, readonly RegExp[]>> = {
  // Declarations sit one level deep, inside `namespace mcp {`.
  cpp: [/^ {4}(?:struct|class|enum class) (\w+)\s*(?::[^;{]*)?\{/gm, /^ {4}using (\w+) = /gm],
  java: [/^public (?:class|enum|interface) (\w+)\b/gm],
  csharp: [/^ {4}(?:public |internal )?(?:static )?(?:partial )?(?:class|enum|struct) (\w+)\b/gm],
  kotlin: [/^(?:data class|class|enum class|sealed class|typealias|object) (\w+)\b/gm],
  swift: [/^(?:public )?(?:struct|class|enum|typealias) (\w+)\b/gm],
};

/** Sorted, de-duplicated names of the top-level types declared in a language's files. */
export function emittedTypeNames(language: BindingLanguageId, files: Iterable<string>): string[] {
  const names = new Set<string>();
  for (const text of files) {
    for (const pattern of DECLARATIONS[language]) {
      for (const match of text.matchAll(new RegExp(pattern.source, pattern.flags))) names.add(match[1]);
    }
  }
  return [...names].sort(compareCodeUnits);
}
