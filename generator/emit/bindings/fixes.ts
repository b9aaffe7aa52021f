/**
 * Small fixes to quicktype-core 26.0.0's rendered text, per language. Each one says what it
 * fixes; each language's test in test/generator/bindings/ builds the binding once without each fix and
 * shows what breaks (`assertFixesMatter`).
 */

import type { RequiredAnyProperty } from './canonical.js';

/** What a fix may know about the schema besides the rendered text. */
export interface FixContext {
  /** Required properties of any JSON value: their `null` is data, not absence. */
  readonly requiredAny: readonly RequiredAnyProperty[];
}

/** One text-to-text fix of a rendered binding. */
export interface Fix {
  readonly name: string;
  /** What goes wrong without it. */
  readonly fixes: string;
  readonly apply: (text: string, context: FixContext) => string;
}

/** Letters and digits in lower case: how a type name is matched across naming styles. */
function nameKey(name: string): string {
  return name.replace(/[^A-Za-z0-9]/g, '').toLowerCase();
}

/** `owner key → JSON names` of the required any-valued properties. */
function requiredAnyByOwner(context: FixContext): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const { owner, property } of context.requiredAny) {
    const key = nameKey(owner);
    if (!out.has(key)) out.set(key, new Set());
    out.get(key)!.add(property);
  }
  return out;
}

/** Names declared by `pattern` (group 1). */
/**
 * C++: a member holding any JSON value is a plain `nlohmann::json`, yet `to_json` guards it like
 * an optional, `if (x.structured_content)`, which converts the value to bool and throws
 * ("type must be boolean") for anything but a boolean. Per type, the members that `from_json`
 * reads with `get_untyped` are tested with `!x.m.is_null()` instead.
 */
export const cppJsonMemberGuards: Fix = {
  name: 'cpp-json-member-guards',
  fixes: 'to_json converts json members to bool and throws',
  apply(text) {
    const untyped = new Map<string, Set<string>>();
    const fromJson = /^ {4}inline void from_json\(const json & j, (\w+) ?& x\) \{\n([^]*?)^ {4}\}$/gm;
    for (const [, type, body] of text.matchAll(fromJson)) {
      const members = new Set([...body.matchAll(/x\.(\w+) = get_untyped\(/g)].map((m) => m[1]));
      if (members.size > 0) untyped.set(type, members);
    }
    return text.replace(
      /^( {4}inline void to_json\(json & j, const (\w+) & x\) \{\n)([^]*?^ {4}\}$)/gm,
      (_all, head: string, type: string, body: string) => {
        const members = untyped.get(type);
        if (members === undefined) return head + body;
        return (
          head +
          body.replace(/if \(x\.(\w+)\) \{/g, (guard, member: string) =>
            members.has(member) ? `if (!x.${member}.is_null()) {` : guard,
          )
        );
      },
    );
  },
};

/**
 * Java: Debian's Jackson 2.14 declares `ObjectWriter.writeValueAsString` as throwing
 * `IOException`, not only `JsonProcessingException`, so quicktype's `…ToJsonString(…) throws
 * JsonProcessingException` does not compile there. `IOException` (a supertype) compiles
 * against every Jackson 2 build.
 */
export const javaToJsonThrows: Fix = {
  name: 'java-tojson-throws',
  fixes: "ToJsonString does not compile against Debian's Jackson",
  apply(text) {
    return text.replace(/(ToJsonString\([^)]*\)) throws JsonProcessingException \{/g, '$1 throws IOException {');
  },
};

/**
 * Java: Jackson writes every null field, so an absent optional property comes back as
 * `"x": null`. Null fields are left out (`NON_NULL` for values) while nulls inside maps and
 * `Object` values are kept (`ALWAYS` for contents): `{"a": null}` in `_meta` or in
 * `structuredContent` is data. A required any-valued field (a log message's `data`) keeps its
 * `null` through `@JsonInclude(ALWAYS)` on its getter.
 */
export const javaOmitNullFields: Fix = {
  name: 'java-omit-null-fields',
  fixes: 'absent optional fields serialised as null; null map values must stay',
  apply(text, context) {
    if (/^public class Converter \{/m.test(text)) {
      const out = text.replace(
        /^( +)ObjectMapper mapper = new ObjectMapper\(\);$/gm,
        '$1ObjectMapper mapper = new ObjectMapper();\n$1mapper.setDefaultPropertyInclusion(JsonInclude.Value.construct(JsonInclude.Include.NON_NULL, JsonInclude.Include.ALWAYS));',
      );
      return out.replace(
        /^(import com\.fasterxml\.jackson\.databind\.\*;)$/m,
        'import com.fasterxml.jackson.annotation.JsonInclude;\n$1',
      );
    }
    const type = /^public class (\w+)\b/m.exec(text);
    const keep = type ? requiredAnyByOwner(context).get(nameKey(type[1])) : undefined;
    if (keep === undefined) return text;
    return text.replace(
      /^( +)(@JsonProperty\("((?:[^"\\]|\\.)*)"\)\n\s*public \S+ get\w*\(\))/gm,
      (all, indent: string, rest: string, jsonName: string) =>
        keep.has(jsonName) ? `${indent}@JsonInclude(JsonInclude.Include.ALWAYS)\n${indent}${rest}` : all,
    );
  },
};

/**
 * C#: the static class `Serialize` gets one `ToJson(this T self)` per top-level type, so
 * top-levels that differ in quicktype but are the same C# type give the same method twice,
 * which does not compile (CS0111): JSONValue, RequestId and ProgressToken are all `object` at
 * the top level. Keeps the first of each.
 */
export const csharpDistinctToJson: Fix = {
  name: 'csharp-distinct-tojson',
  fixes: 'duplicate ToJson extension methods do not compile',
  apply(text) {
    const seen = new Set<string>();
    return text
      .split('\n')
      .filter((line) => {
        const method = /^\s*public static string ToJson\(this (.+) self\)/.exec(line);
        if (method === null) return true;
        if (seen.has(method[1])) return false;
        seen.add(method[1]);
        return true;
      })
      .join('\n');
  },
};

/**
 * C#: optional properties get `NullValueHandling.Ignore`, but properties of any JSON value
 * (`object`: `structuredContent`, error `data`) do not, so when absent they are printed back
 * as `null`. They get the same handling, except required ones (a log message's `data`), whose
 * `null` must be printed.
 */
export const csharpOmitNullObjects: Fix = {
  name: 'csharp-omit-null-objects',
  fixes: 'absent object-typed properties serialised as null',
  apply(text, context) {
    const keep = requiredAnyByOwner(context);
    let current: Set<string> | undefined;
    return text
      .split('\n')
      .map((line, i, lines) => {
        const type = /^\s*public (?:partial )?class (\w+)\b/.exec(line);
        if (type) current = keep.get(nameKey(type[1]));
        const property = /^(\s*)\[JsonProperty\(("((?:[^"\\]|\\.)*)")\)\]$/.exec(line);
        if (
          property &&
          /^\s*public object \w+ \{ get; set; \}$/.test(lines[i + 1] ?? '') &&
          !current?.has(property[3])
        ) {
          return `${property[1]}[JsonProperty(${property[2]}, NullValueHandling = NullValueHandling.Ignore)]`;
        }
        return line;
      })
      .join('\n');
  },
};

export const FIXES: Readonly<Record<'cpp' | 'java' | 'csharp' | 'kotlin' | 'swift', readonly Fix[]>> = {
  cpp: [cppJsonMemberGuards],
  java: [javaToJsonThrows, javaOmitNullFields],
  csharp: [csharpDistinctToJson, csharpOmitNullObjects],
  kotlin: [],
  swift: [],
};
