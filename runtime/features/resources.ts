/**
 * The resources, prompts and completion side of {@link ServerFeatures} (./server-features.ts):
 * definitions and the answers to `resources/read`, `prompts/get` and `completion/complete`
 * (2025-11-25 `server/resources.mdx`, `server/prompts.mdx`, `server/utilities/completion.mdx`).
 *
 * Errors: `resources/read` (and subscribe) of an unknown URI: -32002 `Resource not found` with
 * `data.uri` (server/resources, Error Handling); `prompts/get` of an unknown prompt or without a
 * required argument: -32602; completion of an unknown prompt: -32602, of an unknown resource:
 * -32002, of an unknown reference type: -32602. At most 100 completion values are returned.
 */
import { ErrorCode, RpcError } from '../jsonrpc/errors.js';
import type { RequestContext } from '../engine/peer.js';
import type { ProtocolMaps } from '../protocol/table.js';
import type { ResultElementOf, ResultOf, SchemaLike, SchemaType, TemplateVariables, TemplateVars } from './typed.js';
import { type Content, type Described, HandlerReturnError, type Obj, invalid, isObj } from './tools.js';
import { ownValue, setOwn } from '../jsonrpc/own.js';
import { toBase64 } from '../codec/bytes.js';
import { type ParsedTemplate, UriTemplateExpander, UriTemplateMatcher } from 'uri-template-matcher';

/**
 * `{ uri, mimeType?, text }` or `{ uri, mimeType?, blob }` (base64): the revision's
 * `TextResourceContents | BlobResourceContents` when `P` is a generated `Protocol`.
 */
export type ResourceContents<P extends ProtocolMaps = ProtocolMaps> = ResultElementOf<
  P,
  'resources/read',
  'contents',
  Obj & { uri: string; mimeType?: string }
>;

interface ResourceCommon extends Described {
  mimeType?: string;
  annotations?: Obj;
}

/** A resource of {@link ServerFeatures} (server/resources): its URI and metadata, and fixed content (`text`, `blob`) or a `read` function. */
export interface ResourceDefinition<P extends ProtocolMaps = ProtocolMaps> extends ResourceCommon {
  uri: string;
  size?: number;
  /** Fixed text content (mimeType from the definition). */
  text?: string;
  /** Fixed binary content, base64 or bytes. */
  blob?: string | Uint8Array;
  read?(uri: string, ctx: RequestContext): ResourceContents<P>[] | Promise<ResourceContents<P>[]>;
}

/** Completes an argument (server/utilities/completion): the partial `value` and the other arguments already given (`context`) in, suggestions out (at most 100 are sent). */
export type Completer = (
  value: string,
  context: Record<string, string>,
) => CompletionValues | Promise<CompletionValues>;
/** What a {@link Completer} returns: the values, or the values with `total` (all matches) and `hasMore`. */
export type CompletionValues = string[] | { values: string[]; total?: number; hasMore?: boolean };

/**
 * A resource template. `T`: its URI template as written; a literal types the variables `read`
 * gets and the keys of `complete` ({@link TemplateVars}).
 */
export interface ResourceTemplateDefinition<P extends ProtocolMaps = ProtocolMaps, T extends string = string>
  extends ResourceCommon {
  /** RFC 6570 URI template, levels 1–4 (see {@link compileUriTemplate} for what matches). */
  uriTemplate: T;
  read(uri: string, vars: TemplateVars<T>, ctx: RequestContext): ResourceContents<P>[] | Promise<ResourceContents<P>[]>;
  /** Completion of template variables, by variable name (each a variable of `uriTemplate`). */
  complete?: { [K in TemplateVariables<T>]?: Completer };
}

/** One argument of a prompt (server/prompts): name, description, whether required, and its completer. */
export interface PromptArgument extends Omit<Described, 'icons' | '_meta'> {
  readonly name: string;
  readonly required?: boolean;
  complete?: Completer;
}

/** One message of a prompt: the revision's `PromptMessage` when `P` is a generated `Protocol`. */
export type PromptMessage<P extends ProtocolMaps = ProtocolMaps> = ResultElementOf<
  P,
  'prompts/get',
  'messages',
  Obj & { role: 'user' | 'assistant'; content: Content }
>;

/** What a prompt's `get` returns: its messages, or the revision's `GetPromptResult` (or InputRequiredResult). */
export type PromptResult<P extends ProtocolMaps = ProtocolMaps> =
  | PromptMessage<P>[]
  | ResultOf<P, 'prompts/get', { description?: string; messages: PromptMessage[] }>;
/**
 * The arguments a prompt's `get` receives: from `argsSchema` `S` when given (its type, see
 * {@link SchemaType}), else from the `arguments` list `L` (required names always there, the
 * others optional), else any string-valued record.
 */
export type PromptArgs<S, L> =
  SchemaType<S, undefined> extends infer A
    ? [A] extends [undefined]
      ? L extends readonly PromptArgument[]
        ? string extends L[number]['name']
          ? Record<string, string>
          : { [E in L[number] as E extends { required: true } ? E['name'] : never]: string } & {
              [E in L[number] as E extends { required: true } ? never : E['name']]?: string;
            }
        : Record<string, string>
      : A
    : never;

/**
 * A prompt. Its arguments are listed from `arguments`, or from `argsSchema` (`S`: a JSON Schema
 * of an object, or a Standard Schema validator such as a zod object): each property an argument
 * (its `description`; required as the schema's `required`), the given arguments checked by it
 * (failing: -32602 naming each path) and `get` receiving the validator's output. `A`: what
 * `get` receives, inferred by `ServerFeatures.prompt` from `S` or `L` (the list as written).
 */
export interface PromptDefinition<
  P extends ProtocolMaps = ProtocolMaps,
  A = Record<string, string>,
  S extends SchemaLike | undefined = SchemaLike | undefined,
  L extends readonly PromptArgument[] | undefined = readonly PromptArgument[] | undefined,
> extends Described {
  arguments?: L;
  argsSchema?: S;
  /** With `argsSchema`: completion of arguments, by name. */
  complete?: { [K in keyof A]?: Completer };
  get(args: A, ctx: RequestContext): PromptResult<P> | Promise<PromptResult<P>>;
}

/** A registered resource template and its compiled matcher. */
export interface Template {
  def: ResourceTemplateDefinition<ProtocolMaps, string>;
  match: (uri: string) => Record<string, string> | undefined;
  /** The template's variable names. */
  variables: readonly string[];
}

/** The registries the answers read (one ServerFeatures' maps). */
export interface Catalog {
  readonly resources: ReadonlyMap<string, ResourceDefinition>;
  readonly templates: ReadonlyMap<string, Template>;
  readonly prompts: ReadonlyMap<string, PromptDefinition>;
}

const MAX_COMPLETIONS = 100;
/** Resource not found up to 2025-11-25 (server/resources "Error Handling"); stateless revisions use -32602. */
export const RESOURCE_NOT_FOUND = ErrorCode.ResourceNotFound;
/** The error of `resources/read` for an unknown URI: code -32002 (`RESOURCE_NOT_FOUND`), `data: { uri }`. */
export const notFound = (uri: string) => new RpcError(RESOURCE_NOT_FOUND, 'Resource not found', { uri });

/**
 * Compiles an RFC 6570 URI template (levels 1–4, through uri-template-matcher: no `eval`) into a
 * matcher returning the decoded variables as own properties, or undefined when `uri` does not
 * match. As far as RFC 6570 defines matching: `{var}` and `{.var}`, `{/var}`, `{;var}` stop at
 * their delimiters, `{+var}` and `{#var}` take reserved characters, `{?q,limit}` and `{&x}`
 * match their query parameters (each optional, in any order); an exploded or list value is
 * joined with `,`. @throws TypeError when `template` is not a URI template.
 */
export function compileUriTemplate(template: string): (uri: string) => Record<string, string> | undefined {
  // A trailing run of query expressions (`{?q,limit}{&x}`, from a `{?`) after a path without `?` is
  // matched here, against the URI's query: uri-template-matcher 1.1.2 gives the variable before
  // such an expression the empty string (`{b}{?q}` on `x/y?q=1`), keeps only the last of two
  // query expressions, lets `search{?q}` match `searchX`, and keeps `name=` inside exploded values.
  const tail = /^([^]*?)(\{\?[^{}]*\}(?:\{[?&][^{}]*\})*)$/.exec(template);
  const queryTail = tail && !tail[1].includes('?') ? tail : undefined;
  const path = libraryMatcher(queryTail ? queryTail[1] : template);
  if (!queryTail) return path;
  const names = new Map<string, boolean>(); // variable → exploded
  for (const expr of queryTail[2].slice(1, -1).split('}{')) {
    for (const spec of expr.slice(1).split(',')) {
      const name = spec.replace(/:\d+$/, '').replace(/\*$/, '');
      if (!/^(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})(?:\.?(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2}))*$/.test(name))
        throw new TypeError(`Invalid template: ${template} - bad variable name ${JSON.stringify(spec)}`);
      names.set(name, spec.endsWith('*'));
    }
  }
  return (uri) => {
    const q = uri.indexOf('?');
    const vars = path(q < 0 ? uri : uri.slice(0, q));
    if (!vars || q < 0) return vars;
    const lists = new Map<string, string[]>();
    for (const pair of uri.slice(q + 1).split('&')) {
      const eq = pair.indexOf('=');
      let name: string;
      let value: string;
      try {
        name = decodeURIComponent(eq < 0 ? pair : pair.slice(0, eq));
        value = eq < 0 ? '' : decodeURIComponent(pair.slice(eq + 1));
      } catch {
        return undefined; // a malformed percent-encoding
      }
      // query parameters the template does not name are left out; a repeated one is a list
      // only where the template explodes it (`{?list*}`), else its first value counts
      if (!names.has(name)) continue;
      const list = lists.get(name);
      if (!list) lists.set(name, [value]);
      else if (names.get(name)) list.push(value);
    }
    for (const [name, values] of lists) setOwn(vars, name, values.join(','));
    return vars;
  };
}

/** A matcher of `template` through uri-template-matcher (see {@link compileUriTemplate}). */
function libraryMatcher(template: string): (uri: string) => Record<string, string> | undefined {
  const matcher = new UriTemplateMatcher();
  try {
    matcher.add(template);
  } catch (e) {
    throw new TypeError((e as Error).message);
  }
  return (uri) => {
    let m: ReturnType<UriTemplateMatcher['match']>;
    try {
      m = matcher.match(uri);
    } catch {
      return undefined;
    }
    if (!m) return undefined;
    const vars: Record<string, string> = {};
    for (const [k, v] of Object.entries(m.params)) setOwn(vars, k, Array.isArray(v) ? v.join(',') : String(v));
    return vars;
  };
}

/** The variable names of an RFC 6570 URI template, in order of appearance (each once). */
export function uriTemplateVariables(template: string): string[] {
  const matcher = new UriTemplateMatcher();
  matcher.add(template);
  // the parse the matcher keeps (its `templates`, not in its declared type)
  const parsed = (matcher as unknown as { templates: ParsedTemplate[] }).templates[0];
  const names = parsed.parts.flatMap((p) => (p.type === 'expression' ? p.expressions.map((e) => e.name) : []));
  return [...new Set(names)];
}

/** Expands an RFC 6570 URI template (levels 1–4) with `vars` (strings, lists or maps). */
export function expandUriTemplate(template: string, vars: Record<string, unknown>): string {
  return new UriTemplateExpander(template).expand(vars);
}

/** The first template (in registration order) matching `uri`, with its variables. */
export function matchTemplate(c: Catalog, uri: string): { t: Template; vars: Record<string, string> } | undefined {
  for (const t of c.templates.values()) {
    const vars = t.match(uri);
    if (vars) return { t, vars };
  }
  return undefined;
}

/** True when `uri` is a registered resource or matches a template. */
export function knownResource(c: Catalog, uri: string): boolean {
  return c.resources.has(uri) || matchTemplate(c, uri) !== undefined;
}

/** `resources/read`: static URIs first, then templates. @throws RpcError -32002 for an unknown URI. */
export async function readResource(c: Catalog, uri: string, ctx: RequestContext): Promise<Obj> {
  const r = c.resources.get(uri);
  if (r) {
    if (r.read) return { contents: readContents(`Resource ${uri}`, await r.read(uri, ctx)) };
    const base: ResourceContents = r.mimeType ? { uri, mimeType: r.mimeType } : { uri };
    if (r.blob !== undefined)
      return { contents: [{ ...base, blob: typeof r.blob === 'string' ? r.blob : toBase64(r.blob) }] };
    return { contents: [{ ...base, text: r.text ?? '' }] };
  }
  const m = matchTemplate(c, uri);
  if (!m) throw notFound(uri);
  return {
    contents: readContents(`Resource ${uri} (template ${m.t.def.uriTemplate})`, await m.t.def.read(uri, m.vars, ctx)),
  };
}

/** A `read`'s value: an array of contents. @throws HandlerReturnError for anything else. */
function readContents(subject: string, got: unknown): unknown[] {
  if (!Array.isArray(got))
    throw new HandlerReturnError(subject, got, 'a resource read returns an array of ResourceContents');
  return got;
}

/** `prompts/get` (params `{ name, arguments? }`). @throws RpcError -32602 (unknown prompt, missing argument). */
export async function getPrompt(c: Catalog, p: Obj, ctx: RequestContext): Promise<Obj> {
  const name = String(p.name);
  const prompt = c.prompts.get(name);
  if (!prompt) throw invalid(`Unknown prompt: ${name}`, { name });
  const args = (isObj(p.arguments) ? p.arguments : {}) as Record<string, string>;
  // own arguments only: an argument named `constructor` is not given by the prototype's
  const missing = (prompt.arguments ?? [])
    .filter((a) => a.required && (ownValue(args, a.name) === undefined || args[a.name] === null))
    .map((a) => a.name);
  if (missing.length)
    throw invalid(
      `Missing required argument${missing.length > 1 ? 's' : ''} of prompt ${name}: ${missing.join(', ')}`,
      { missing },
    );
  const out: unknown = await prompt.get(args, ctx);
  if (!Array.isArray(out) && !isObj(out))
    throw new HandlerReturnError(
      `Prompt ${name}`,
      out,
      "a prompt's get returns an array of PromptMessage or a GetPromptResult object",
    );
  if (isObj(out) && out.resultType === 'input_required') return out;
  const result: Obj = Array.isArray(out) ? { messages: out } : { ...out };
  if (result.description === undefined && prompt.description !== undefined) result.description = prompt.description;
  return result;
}

/** `completion/complete` (params `{ ref, argument, context? }`): `{ completion: { values, total?, hasMore? } }`. */
export async function complete(c: Catalog, p: Obj): Promise<Obj> {
  const ref = isObj(p.ref) ? p.ref : {};
  const arg = isObj(p.argument) ? p.argument : {};
  const argName = String(arg.name);
  const context = (isObj(p.context) && isObj(p.context.arguments) ? p.context.arguments : {}) as Record<string, string>;
  let completer: Completer | undefined;
  let subject: string;
  if (ref.type === 'ref/prompt') {
    subject = `The completer of argument ${argName} of prompt ${String(ref.name)}`;
    const prompt = c.prompts.get(String(ref.name));
    if (!prompt) throw invalid(`Unknown prompt: ${String(ref.name)}`);
    completer = prompt.arguments?.find((a) => a.name === argName)?.complete;
  } else if (ref.type === 'ref/resource') {
    const uri = String(ref.uri);
    subject = `The completer of variable ${argName} of resource template ${uri}`;
    const t = c.templates.get(uri);
    if (!t && !c.resources.has(uri)) throw notFound(uri);
    if (t && !t.variables.includes(argName))
      throw invalid(`${argName} is not a variable of resource template ${uri}`, { uri, argument: argName });
    completer = ownValue(t?.def.complete, argName);
  } else throw invalid(`Unknown reference type: ${String(ref.type)}`);
  if (!completer) return { completion: { values: [] } };
  const got: unknown = await completer(String(arg.value ?? ''), context);
  if (!Array.isArray(got) && !(isObj(got) && Array.isArray(got.values))) {
    throw new HandlerReturnError(
      subject,
      got,
      'a completer returns an array of strings or { values, total?, hasMore? }',
    );
  }
  const all = (Array.isArray(got) ? { values: got } : got) as Exclude<CompletionValues, string[]>;
  const values = all.values.slice(0, MAX_COMPLETIONS);
  const completion: Obj = { values };
  const total = all.total ?? (Array.isArray(got) ? all.values.length : undefined);
  if (total !== undefined) completion.total = total;
  const hasMore = all.hasMore ?? all.values.length > values.length;
  if (hasMore || all.hasMore !== undefined) completion.hasMore = hasMore;
  return { completion };
}
