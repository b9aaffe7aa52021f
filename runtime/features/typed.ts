/**
 * The features' shapes typed by a revision's generated method maps `P` (`Protocol` of
 * `generated/<rev>/protocol.gen.ts`): what a tool, prompt or resource handler returns is that
 * revision's `CallToolResult`, `GetPromptResult` or `ReadResourceResult` contents, so a content
 * block the revision does not define (`{ type: 'txt' }`) is a compile error. With the untyped
 * default `ProtocolMaps` (results `unknown`) each shape falls back to its loose form (`Loose`).
 *
 * The fields `ServerFeatures` fills itself (`resultType`, and the caching fields `ttlMs`,
 * `cacheScope` of stateless revisions) are optional in what a handler returns. Types only: no
 * value at run time.
 */
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import type { StandardJSONSchemaV1, StandardSchemaV1 } from '@standard-schema/spec';
import type { ProtocolMaps } from '../protocol/table.js';

/** Result fields ServerFeatures fills in (stateless revisions): optional for handlers. */
type Filled = 'resultType' | 'ttlMs' | 'cacheScope';

/** `R` with the members ServerFeatures fills in (`resultType`, `ttlMs`, `cacheScope`) optional (index signatures and other members kept). */
export type HandlerReturn<R> = R extends object
  ? { [K in keyof R as K extends Filled ? never : K]: R[K] } & { [K in keyof R & Filled]?: R[K] }
  : R;

/**
 * What a handler of client request `M` returns in `P`: the revision's result (filled fields
 * optional) or one of its other results (`alt`: CreateTaskResult, InputRequiredResult); `Loose`
 * when `P` does not type `M`.
 */
export type ResultOf<P extends ProtocolMaps, M extends string, Loose> = M extends keyof P['clientRequests']
  ? unknown extends P['clientRequests'][M]['result']
    ? Loose
    : HandlerReturn<P['clientRequests'][M]['result']> | P['clientRequests'][M]['alt']
  : Loose;

/** The element type of array member `K` of `P`'s result of `M` (e.g. `messages` of prompts/get), or `Loose`. */
export type ResultElementOf<
  P extends ProtocolMaps,
  M extends string,
  K extends string,
  Loose,
> = M extends keyof P['clientRequests']
  ? unknown extends P['clientRequests'][M]['result']
    ? Loose
    : P['clientRequests'][M]['result'] extends { [Q in K]: ReadonlyArray<infer E> }
      ? E
      : Loose
  : Loose;

// ---- schemas: the types definitions are inferred from ---------------------------------------

/**
 * A validator a definition may take instead of a JSON Schema literal: any Standard Schema v1
 * (`~standard.validate`) that also implements Standard JSON Schema v1 (`~standard.jsonSchema`),
 * whose JSON Schema is what lists show. zod 4 schemas are both; a valibot schema is wrapped with
 * `toStandardJsonSchema` (@valibot/to-json-schema); arktype types are both.
 */
export type StandardValidator<I = unknown, O = I> = StandardSchemaV1<I, O> & StandardJSONSchemaV1<I, O>;

/** A schema as definitions take it: a JSON Schema (a literal, `as const` or inline) or a {@link StandardValidator}. */
export type SchemaLike = StandardValidator | { readonly [key: string]: unknown };

/**
 * The type a schema describes, for values received (`io: 'output'`: a validator's parsed output,
 * what a handler gets) or values sent (`io: 'input'`: what a handler must return). A JSON
 * Schema literal goes through json-schema-to-ts' `FromSchema` (its rules: `additionalProperties`
 * absent means other members are allowed, `unknown`): a property with a `default` is present
 * in what is received (the runtime fills defaults in before a handler runs:
 * ../protocol/json-defaults.ts) and optional in what is sent (nothing fills it there). A
 * schema whose type is not a literal (`Record<string, unknown>`) and an absent one give
 * `Fallback`.
 */
export type SchemaType<S, Fallback, IO extends 'input' | 'output' = 'output'> = [S] extends [undefined]
  ? Fallback
  : [SchemaLike] extends [S]
    ? Fallback
    : [S] extends [StandardSchemaV1]
      ? IO extends 'output'
        ? StandardSchemaV1.InferOutput<S>
        : StandardSchemaV1.InferInput<S>
      : string extends keyof S
        ? Fallback
        : [S] extends [JSONSchema]
          ? IO extends 'output'
            ? FromSchema<S>
            : FromSchema<S, { keepDefaultedPropertiesOptional: true }>
          : Fallback;

/** `R` without the members `K` (index signatures and other members kept, unlike `Omit`). */
type Without<R, K extends PropertyKey> = { [Q in keyof R as Q extends K ? never : Q]: R[Q] };

/**
 * A tool handler's return `R` (one member of the revision's results) with `structuredContent`
 * of type `Out` (from the tool's `outputSchema`): required unless `isError: true` (a tool
 * execution error is never checked against the success schema). Results without `content`
 * (CreateTaskResult, InputRequiredResult) are kept as they are.
 */
export type WithStructured<R, Out> = R extends { content?: unknown }
  ?
      | (Without<R, 'structuredContent' | 'isError'> & { structuredContent: Out; isError?: false })
      | (Without<R, 'isError'> & { isError: true })
  : R;

// ---- URI template variables (RFC 6570), at the type level -----------------------------------

type Operator = '+' | '#' | '.' | '/' | ';' | '?' | '&';
type VarName<V extends string> = V extends `${infer N}*` ? N : V extends `${infer N}:${string}` ? N : V;
type VarList<L extends string> = L extends `${infer A},${infer B}` ? VarName<A> | VarList<B> : VarName<L>;
/** The expressions of `T`, each as `[operator, variable]`. */
type Expressions<T extends string> = T extends `${string}{${infer E}}${infer Rest}`
  ? (E extends `${infer O extends Operator}${infer L}` ? [O, VarList<L>] : ['', VarList<E>]) | Expressions<Rest>
  : never;

/** The variable names of RFC 6570 template `T` (`'mem://{a}/{b}{?q,limit}'` → `'a' | 'b' | 'q' | 'limit'`). */
export type TemplateVariables<T extends string> = Expressions<T>[1];

/**
 * The variables a read of template `T` receives: query variables (`{?q}`, `{&q}`) may be absent
 * from a matching URI, the others are always there (possibly empty). `Record<string, string>`
 * when `T` is not a literal.
 */
export type TemplateVars<T extends string> = string extends T
  ? Record<string, string>
  : { [K in Extract<Expressions<T>, ['' | '+' | '#' | '.' | '/' | ';', string]>[1]]: string } & {
      [K in Extract<Expressions<T>, ['?' | '&', string]>[1]]?: string;
    };
