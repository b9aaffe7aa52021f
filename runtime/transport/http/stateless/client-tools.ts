/**
 * The `x-mcp-header` annotations the stateless client transport (./fetch-client.ts) knows, by
 * tool name: learned from the `tools/list` results passing through it (a tool whose
 * annotations are invalid is removed from them, as "Schema Extension" requires) or set by the
 * application; ./headers.ts `requestHeaders` mirrors them into `Mcp-Param-*`.
 */
import type { JSONRPCMessage, TransportEvents } from '../../../jsonrpc/transport.js';
import { type ParamHeader, paramHeaders } from './headers.js';

type Obj = Record<string, unknown>;

/** The annotations of each known tool. */
export class ToolHeaders {
  readonly #tools = new Map<string, ParamHeader[]>();
  /** The annotations of a tool by name (one function per transport, for `requestHeaders`). */
  readonly lookup = (name: string): ParamHeader[] | undefined => this.#tools.get(name);

  /** Records a tool's `inputSchema`. Throws TypeError when its annotations are invalid. */
  set(tool: string, inputSchema: unknown): void {
    this.#tools.set(tool, paramHeaders(inputSchema));
  }

  /**
   * Records the annotations of the tools a `tools/list` answer lists. Returns the answer, or a
   * copy without the tools whose annotations are invalid (each named to `events.onError`).
   */
  learn(m: JSONRPCMessage, events: TransportEvents | undefined): JSONRPCMessage {
    const result = m.result as Obj | undefined;
    if (!Array.isArray(result?.tools)) return m;
    const tools = (result.tools as Obj[]).filter((t) => {
      // a tool without a string name is the result validation's to refuse: nothing to learn from it
      if (typeof t !== 'object' || t === null || typeof t.name !== 'string') return true;
      const name = t.name;
      try {
        this.#tools.set(name, paramHeaders(t.inputSchema));
        return true;
      } catch (e) {
        this.#tools.delete(name);
        events?.onError?.(new Error(`tool ${name} rejected: ${(e as Error).message}`));
        return false;
      }
    });
    return tools.length === result.tools.length ? m : { ...m, result: { ...result, tools } };
  }
}
