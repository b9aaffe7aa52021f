/**
 * The one place that calls quicktype-core: the canonical schema in, rendered files out.
 */
import {
  InputData,
  JSONSchemaInput,
  JSONSchemaStore,
  TypeAttributeKind,
  getTargetLanguage,
  quicktypeMultiFile,
  type JSONSchema,
  type JSONSchemaAttributes,
  type JSONSchemaType,
  type Ref,
  type TargetLanguage,
  type TypeKind,
} from 'quicktype-core';
import { compareCodeUnits, type Schema } from './canonical.js';

/** The address the canonical document is served under; it never leaves this process. */
const ADDRESS = 'mcp.json';

/** Serves the one canonical document; every other address is unknown. */
class MemoryStore extends JSONSchemaStore {
  constructor(private readonly text: string) {
    super();
  }

  async fetch(address: string): Promise<JSONSchema | undefined> {
    return address === ADDRESS ? (JSON.parse(this.text) as JSONSchema) : undefined;
  }
}

/**
 * Marks the union a definition makes as that definition's own. quicktype hash-conses types by
 * their identity attributes only, so two definitions with the same `type: [..]` (RequestId and
 * ProgressToken: string or integer) would otherwise become one type with both names.
 */
class DefinitionUnionKind extends TypeAttributeKind<string> {
  constructor() {
    super('mcpgenDefinitionUnion');
  }

  override appliesToTypeKind(kind: TypeKind): boolean {
    return kind === 'union';
  }

  override combine(values: string[]): string | undefined {
    return [...values].sort(compareCodeUnits)[0];
  }

  override makeInferred(value: string): string {
    return value;
  }

  override get inIdentity(): boolean {
    return true;
  }
}

const definitionUnionKind = new DefinitionUnionKind();

type AttributeProducer = (
  schema: JSONSchema,
  ref: Ref,
  types: Set<JSONSchemaType>,
  cases: JSONSchema[] | undefined,
) => JSONSchemaAttributes | undefined;

const definitionUnions: AttributeProducer = (schema, ref, types) => {
  const name = ref.definitionName;
  if (name === undefined || typeof schema !== 'object') return undefined;
  // Only a definition that lists its types (`type: [..]`); `types` holds every JSON type when
  // the schema has no `type` at all.
  if (!Array.isArray(schema.type) || schema.type.length < 2 || types.size < 2) return undefined;
  return { forType: definitionUnionKind.makeAttributes(name) };
};

/** The part of a quicktype type that `ownTopLevelNames` looks at. */
interface TypeShape {
  kind: string;
  members?: ReadonlySet<TypeShape>;
}

/** A type that gets a declaration of its own (quicktype's `isNamedType`, nullable unions aside). */
function isDeclaredType(t: TypeShape): boolean {
  if (t.kind === 'union') {
    const members = [...(t.members ?? [])];
    return !(members.length === 2 && members.some((m) => m.kind === 'null'));
  }
  return t.kind === 'class' || t.kind === 'enum' || t.kind === 'object';
}

/**
 * Java and C# name a top-level after the one class it reaches, so the top-level map
 * `InputRequests` (string → InputRequest) renames the class InputRequest to `InputRequests`.
 * This gives a top-level its name only when it is itself a declared type; a map or array
 * top-level then has only its converter methods. Works on a copy of quicktype's shared
 * language object.
 */
function ownTopLevelNames(language: TargetLanguage): TargetLanguage {
  type Renderer = { namedTypeToNameForTopLevel: (t: TypeShape) => TypeShape | undefined };
  type MakeRenderer = (this: TargetLanguage, ...args: unknown[]) => Renderer;
  const original = (language as unknown as { makeRenderer: MakeRenderer }).makeRenderer;
  const copy = Object.create(language) as TargetLanguage;
  (copy as unknown as { makeRenderer: MakeRenderer }).makeRenderer = function makeRenderer(
    this: TargetLanguage,
    ...args: unknown[]
  ): Renderer {
    const renderer = original.apply(this, args);
    renderer.namedTypeToNameForTopLevel = (t) => (isDeclaredType(t) ? t : undefined);
    return renderer;
  };
  return copy;
}

export interface RenderRequest {
  /** quicktype's language name. */
  lang: string;
  /** The canonical document (`{ definitions }`). */
  document: { definitions: Record<string, Schema> };
  rendererOptions: Record<string, string | boolean>;
  /** The name quicktype gives its main output file (Java names its files itself). */
  outputFilename: string;
  /** Name top-levels only after types they declare themselves (see `ownTopLevelNames`). */
  ownTopLevelNames?: boolean;
}

/**
 * Renders every definition of the document as a top-level type. Returns quicktype's files by
 * name (one file, except for Java), each with LF endings and one trailing newline.
 */
export async function renderWithQuicktype(request: RenderRequest): Promise<Map<string, string>> {
  const text = JSON.stringify(request.document);
  const input = new JSONSchemaInput(new MemoryStore(text), [definitionUnions]);
  for (const name of Object.keys(request.document.definitions).sort(compareCodeUnits)) {
    await input.addSource({ name, uris: [`${ADDRESS}#/definitions/${name}`] });
  }
  const inputData = new InputData();
  inputData.addInput(input);
  const result = await quicktypeMultiFile({
    inputData,
    outputFilename: request.outputFilename,
    lang: request.ownTopLevelNames
      ? ownTopLevelNames(getTargetLanguage(request.lang as never))
      : (request.lang as never),
    rendererOptions: request.rendererOptions,
    leadingComments: [],
    alphabetizeProperties: true,
    combineClasses: false,
    inferMaps: false,
    inferEnums: false,
    inferUuids: false,
    inferDateTimes: false,
    inferIntegerStrings: false,
    inferBooleanStrings: false,
    fixedTopLevels: true,
  });
  const files = new Map<string, string>();
  for (const [name, rendered] of result) {
    files.set(name, `${rendered.lines.join('\n').replace(/\r\n?/g, '\n').trimEnd()}\n`);
  }
  return files;
}
