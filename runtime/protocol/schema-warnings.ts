/**
 * Where the JSON Schema compiler's warnings go (ajv's `unknown format "x" ignored in schema at
 * path …`, ./json-schema.ts): the logger set here by the caller of a compile that has one (the
 * Client's output check sets its `logger` around its compile), each unknown format once (until the
 * compiled-schema cache starts afresh past 1000 schemas, which bounds the formats remembered); with
 * none set they are not written anywhere (the format is ignored, as before).
 */
// (the engine's Logger by shape: protocol/ imports nothing from engine/)
export const schemaWarnings: { logger?: { warn?(message: string): void } } = {};
