/**
 * The nesting bound on JSON a peer sends (every transport: HTTP bodies on both sides, SSE
 * events, stdio lines). JSON-RPC 2.0 sets none, nor does MCP (2025-11-25 and draft
 * `basic/index`, "Messages"); `JSON.parse` takes a 4 MiB `[[[[…]]]]` (2 million levels) and
 * spends seconds on it, and a recursive walk of the result (a schema validator) would overflow
 * the stack. A text nested deeper than {@link MAX_JSON_DEPTH} is therefore refused as a parse
 * error (JSON-RPC -32700, id null: the text is not parsed, so no id can be known) before
 * `JSON.parse` sees it. The scan runs only on texts longer than the bound (a shorter text
 * cannot be deeper), and stops at the first level past it.
 */

/** How deep arrays and objects in a peer's JSON may nest: 512 levels (the outermost value is level 1). */
export const MAX_JSON_DEPTH = 512;

/** A peer's JSON nested deeper than {@link MAX_JSON_DEPTH}: a `SyntaxError`, answered as one (-32700). */
export class JsonTooDeepError extends SyntaxError {
  constructor() {
    super(`JSON nested deeper than ${MAX_JSON_DEPTH} levels`);
    this.name = 'JsonTooDeepError';
  }
}

/**
 * Whether `text` nests arrays and objects deeper than `max` levels (brackets inside strings not
 * counted). Linear in the text up to the first level past `max`; texts of at most `max` UTF-16
 * units are not scanned. Never throws (a text that is no JSON is left to the parser).
 */
export function jsonTooDeep(text: string, max: number = MAX_JSON_DEPTH): boolean {
  if (text.length <= max) return false;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // a string: on to its closing quote (one not escaped by an odd run of backslashes)
      let q = text.indexOf('"', i + 1);
      for (;;) {
        if (q < 0) return false;
        let b = q - 1;
        while (text.charCodeAt(b) === 0x5c) b--;
        if ((q - 1 - b) % 2 === 0) break;
        q = text.indexOf('"', q + 1);
      }
      i = q;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/**
 * `JSON.parse(text)` of a peer's text, refused without parsing when it nests deeper than
 * {@link MAX_JSON_DEPTH}.
 * @throws JsonTooDeepError (a SyntaxError) when too deep; SyntaxError when it is no JSON.
 */
export function parsePeerJson(text: string): unknown {
  if (jsonTooDeep(text)) throw new JsonTooDeepError();
  return JSON.parse(text);
}

/** The message of a {@link JsonTooDeepError}, else `otherwise` (a parse error's text for a client). */
export function tooDeepOr(e: unknown, otherwise: string): string {
  return e instanceof JsonTooDeepError ? e.message : otherwise;
}
