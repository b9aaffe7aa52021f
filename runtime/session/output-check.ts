/**
 * The output check of `tools/call` results (`ClientSession`, option `checkToolOutput`), imported
 * by ./client.ts, with the JSON Schema compiler under it, when a first result has an
 * `outputSchema` to meet.
 */
import { compileSchema, describeValidation, type ValidateFunction } from '../protocol/json-schema.js';
import { type ProtocolTable, structuredContentAllowed } from '../protocol/table.js';
import { OutputSchemaError } from './output-schema-error.js';
import { schemaWarnings } from '../protocol/schema-warnings.js';
import type { Logger } from '../engine/peer.js';

/**
 * Checks `result.structuredContent` against the tool's `outputSchema` under the negotiated
 * `table` (the compiler's warnings to `logger`); returns `result`. @throws {@link OutputSchemaError} when it breaks the schema.
 */
export function meetSchema(
  table: ProtocolTable,
  tool: string,
  schema: Record<string, unknown>,
  result: Record<string, unknown>,
  logger?: Logger,
): Record<string, unknown> {
  let validate: ValidateFunction;
  schemaWarnings.logger = logger;
  try {
    validate = compileSchema(schema, `outputSchema of tool ${tool}`);
  } catch (e) {
    throw new OutputSchemaError(tool, 'schema', [(e as Error).message], result);
  } finally {
    schemaWarnings.logger = undefined;
  }
  const value = Object.hasOwn(result, 'structuredContent') ? result.structuredContent : undefined;
  if (value === undefined) throw new OutputSchemaError(tool, 'missing', [], result);
  if (!structuredContentAllowed(table, value))
    throw new OutputSchemaError(
      tool,
      'not-allowed',
      [`(structuredContent): must be a JSON object in protocol version ${table.protocolVersion}`],
      result,
    );
  if (!validate(value))
    throw new OutputSchemaError(tool, 'invalid', describeValidation(validate.errors, '(structuredContent)'), result);
  return result;
}
