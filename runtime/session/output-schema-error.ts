/**
 * The error of the client's `tools/call` output check (./output-check.ts, loaded on first use),
 * in a module of its own: importing it (`instanceof`) loads no JSON Schema compiler, and a client
 * that never checks a result does not carry it.
 */
import { ErrorCode, RpcError } from '../jsonrpc/errors.js';

/**
 * A successful `tools/call` result that breaks its tool's `outputSchema` (2025-11-25
 * server/tools, "Output Schema": "Clients SHOULD validate structured results against this
 * schema"). `reason`:
 * - `missing`: the tool declares an `outputSchema` and the result has no `structuredContent`
 *   (absent or undefined; `null`, `0`, `false` and `[]` are values);
 * - `not-allowed`: `structuredContent` is not what the negotiated revision allows there
 *   (`table.structuredContent`: a JSON object in 2025-11-25, any JSON value in the stateless revisions);
 * - `invalid`: it fails the schema; `issues` names each failing path (`sum: must be number`,
 *   `(structuredContent)` for the value itself);
 * - `schema`: the listed `outputSchema` is not a JSON Schema this client can compile.
 * Code -32603 (what a server answers for the same fault); `result` is the result as received.
 */
export class OutputSchemaError extends RpcError {
  constructor(
    readonly tool: string,
    readonly reason: 'missing' | 'not-allowed' | 'invalid' | 'schema',
    readonly issues: readonly string[],
    readonly result: Record<string, unknown>,
  ) {
    super(ErrorCode.InternalError, OutputSchemaError.#message(tool, reason, issues), { tool, reason, issues });
    this.name = 'OutputSchemaError';
  }

  static #message(tool: string, reason: OutputSchemaError['reason'], issues: readonly string[]): string {
    const detail = issues.length ? `: ${issues.join('; ')}` : '';
    switch (reason) {
      case 'missing':
        return `tool ${tool} has an outputSchema but its result has no structuredContent`;
      case 'not-allowed':
        return `tool ${tool} returned structuredContent of a kind the protocol version does not allow${detail}`;
      case 'invalid':
        return `tool ${tool} returned structuredContent that fails its outputSchema${detail}`;
      default:
        return `tool ${tool} lists an outputSchema that cannot be compiled${detail}`;
    }
  }
}
