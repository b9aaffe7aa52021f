/**
 * The one place that calls quicktype-core: the canonical schema in, one rendered file out.
 */
import {
  InputData,
  JSONSchemaInput,
  JSONSchemaStore,
  TypeAttributeKind,
  quicktype,
  type JSONSchema,
  type JSONSchemaAttributeProducer,
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

  override makeInferred(): undefined {
    return undefined;
  }

  override get inIdentity(): boolean {
    return true;
  }
}

const definitionUnionKind = new DefinitionUnionKind();

const definitionUnions: JSONSchemaAttributeProducer = (schema, ref, types) => {
  const name = ref.definitionName;
  if (name === undefined || typeof schema !== 'object' || types.size < 2) return undefined;
  return { forType: definitionUnionKind.makeAttributes(name) };
};

export interface RenderRequest {
  /** quicktype's language name. */
  lang: string;
  /** The canonical document (`{ definitions }`). */
  document: { definitions: Record<string, Schema> };
  rendererOptions: Record<string, string | boolean>;
}

/** Renders every definition of the document as a top-level type; returns the file text. */
export async function renderWithQuicktype(request: RenderRequest): Promise<string> {
  const text = JSON.stringify(request.document);
  const input = new JSONSchemaInput(new MemoryStore(text), [definitionUnions]);
  for (const name of Object.keys(request.document.definitions).sort(compareCodeUnits)) {
    await input.addSource({ name, uris: [`${ADDRESS}#/definitions/${name}`] });
  }
  const inputData = new InputData();
  inputData.addInput(input);
  const result = await quicktype({
    inputData,
    lang: request.lang as never,
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
  return result.lines.join('\n');
}
