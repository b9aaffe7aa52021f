/**
 * Naming shared by the emitters of other languages (go/, python/, rust/): identifier case from
 * schema names, the fixed clash rule, the revision as an identifier part, quoted literals and
 * line comments. Each language adds its own keywords and its own comment marker.
 *
 * Deterministic: a name depends only on its input and the names already taken in its scope,
 * never on iteration order elsewhere.
 */

/** `list_changed`, `_meta`, `resource-link` → `ListChanged`, `Meta`, `ResourceLink`. */
export function pascal(s: string): string {
  const parts = s
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean);
  const out = parts.map((p) => p.charAt(0).toUpperCase() + p.slice(1)).join('');
  return /^[0-9]/.test(out) ? `N${out}` : out || 'Value';
}

/** `listChanged`, `_meta`, `JSONRPCRequest`, `URLElicitation` → `list_changed`, `meta`, `jsonrpc_request`, `url_elicitation`. */
export function snake(s: string): string {
  const out = s
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .toLowerCase();
  return /^[0-9]/.test(out) ? `n_${out}` : out || 'value';
}

/** Names unique within one scope: a taken name gets `2`, `3`, … (or `_` for reserved words). */
export function uniqueNames(
  names: string[],
  reserved: ReadonlySet<string>,
  avoid: ReadonlySet<string> = new Set(),
): string[] {
  const taken = new Set<string>(avoid);
  return names.map((n) => {
    let name = reserved.has(n) ? `${n}_` : n;
    for (let i = 2; taken.has(name); i++) name = `${n}${i}`;
    taken.add(name);
    return name;
  });
}

/** The revision as an identifier part: `2025-11-25` → `2025_11_25`, `draft` → `draft`. */
export function revisionId(revision: string): string {
  return revision.replace(/[^A-Za-z0-9]+/g, '_');
}

/**
 * A string literal in double quotes with JSON's escapes, which Go, Rust and Python read the
 * same way for the text mcpgen writes (method names, member names, type names, revisions).
 */
export function quoted(s: string): string {
  return JSON.stringify(s);
}

/**
 * Doc lines as line comments, one line of text: `marker` (`//`, `///`) and a space before each
 * line, the marker alone for an empty one, each line indented by `indent`. Empty for no lines.
 */
export function lineComments(lines: readonly string[], marker: string, indent = ''): string {
  return lines.map((l) => (l ? `${indent}${marker} ${l}` : `${indent}${marker}`)).join('\n');
}
