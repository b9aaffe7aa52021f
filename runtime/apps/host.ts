/**
 * `AppHost`: the host side of MCP Apps (SEP-1865) for one rendered view: the server side of the
 * channel (the generated `appsTable`: `serverToClient` is host → view). It answers the view's
 * handshake and requests, proxies the MCP requests the host allows to the MCP server (through
 * `server.request`, e.g. a generated `Client`'s `request`), enforces the tool visibility rules,
 * and sends the view its tool input, result, cancellation and context. Render the view with
 * ./frame.ts `mountAppFrame`, which also makes the transport.
 *
 * ```ts
 * const host = new AppHost<AppsProtocol>({
 *   table: appsTable, hostInfo: { name: 'my-host', version: '1.0.0' },
 *   hostCapabilities: { serverTools: {}, openLinks: {}, message: { text: {} } },
 *   server: { request: (method, params, o) => client.request(method, params, o) },
 * });
 * host.onmessage = async (params) => { conversation.push(params); return {}; };
 * await host.connect(frame.transport);
 * await host.sendToolInput({ arguments: args });  // waits for the view's initialized
 * await host.sendToolResult(await client.callTool({ name, arguments: args }));
 * ```
 *
 * Rules ("Resource Discovery: Visibility", "Sandbox proxy" 8, "Standard MCP Messages"):
 * - a view's `tools/call` reaches the server only for a tool the server lists (`tools/list`,
 *   every page, read once per host and again when a name is not found) whose
 *   `_meta.ui.visibility` includes `"app"` (absent: `["model", "app"]`); any other is refused
 *   with -32602 and never sent. `resources/read`, `resources/list`, `resources/templates/list`
 *   and `prompts/list` are proxied as they are; each only when `hostCapabilities` declares what
 *   gates it in the table (`serverTools`, `serverResources`), else -32601 (as for a method this
 *   host has no callback for);
 * - nothing is sent to the view before its `ui/notifications/initialized`: `sendToolInput` and
 *   the other senders wait for it;
 * - every message is checked against the extension's schema before a callback sees it.
 */
import { Peer, type RequestContext, type RequestOptions } from '../engine/peer.js';
import { ErrorCode, RpcError } from '../jsonrpc/errors.js';
import type { Transport } from '../jsonrpc/transport.js';
import type { ProtocolMaps, ProtocolTable } from '../protocol/table.js';

type ViewReq<M extends ProtocolMaps, K extends string> = K extends keyof M['clientRequests']
  ? M['clientRequests'][K]
  : { params: Record<string, unknown>; result: Record<string, unknown> };
type ViewNote<M extends ProtocolMaps, K extends string> = K extends keyof M['clientNotifications']
  ? NonNullable<M['clientNotifications'][K]['params']>
  : Record<string, unknown>;
type HostNote<M extends ProtocolMaps, K extends string> = K extends keyof M['serverNotifications']
  ? M['serverNotifications'][K]['params']
  : Record<string, unknown>;
type Callback<M extends ProtocolMaps, K extends string> = (
  params: NonNullable<ViewReq<M, K>['params']>,
  ctx: RequestContext,
) => ViewReq<M, K>['result'] | Promise<ViewReq<M, K>['result']>;

/** A tool as `tools/list` gives it: its name and `_meta` are what the rules read. */
export interface ListedTool {
  name: string;
  _meta?: { ui?: { visibility?: readonly string[]; resourceUri?: string }; [key: string]: unknown };
  [key: string]: unknown;
}

/** Who may call a tool (`_meta.ui.visibility`, default both): SEP-1865 "Visibility". */
export function toolVisibility(tool: Pick<ListedTool, '_meta'>): readonly string[] {
  const v = tool._meta?.ui?.visibility;
  return Array.isArray(v) ? v : ['model', 'app'];
}
/** Whether a view may call `tool`. */
export const isAppCallable = (tool: Pick<ListedTool, '_meta'>): boolean => toolVisibility(tool).includes('app');
/** Whether the model sees `tool` (hosts leave the others out of the agent's tool list). */
export const isModelVisible = (tool: Pick<ListedTool, '_meta'>): boolean => toolVisibility(tool).includes('model');

/** The MCP server the host proxies to. */
export interface ProxiedServer {
  /** Sends an MCP request to the server (e.g. `(m, p, o) => client.request(m, p, o)`). */
  request(method: string, params: Record<string, unknown> | undefined, options?: RequestOptions): Promise<unknown>;
}

/** Options of {@link AppHost}. */
export interface AppHostOptions {
  /** The generated table of the channel (`appsTable` of `<rev>/apps/`). */
  table: ProtocolTable;
  hostInfo: { name: string; version: string; [key: string]: unknown };
  /** `hostCapabilities` of the ui/initialize result; they also gate what the view may ask. */
  hostCapabilities: Record<string, unknown>;
  /** `hostContext` of the ui/initialize result (theme, displayMode, toolInfo, …). */
  hostContext?: Record<string, unknown>;
  /** The server the view's MCP requests go to; without it they are refused (-32601). */
  server?: ProxiedServer;
  /** Request timeout in ms (default 60000). */
  timeout?: number;
}

const PROXIED = ['resources/read', 'resources/list', 'resources/templates/list', 'prompts/list'] as const;

/** See the module comment. */
export class AppHost<M extends ProtocolMaps = ProtocolMaps> {
  readonly #options: AppHostOptions;
  #peer: Peer | undefined;
  #context: Record<string, unknown>;
  #tools: Map<string, ListedTool> | undefined;
  #initialized!: Promise<void>;
  #markInitialized!: () => void;
  #app: { appInfo?: unknown; appCapabilities?: Record<string, unknown> } = {};

  /** `ui/message` (needs `hostCapabilities.message`). */
  onmessage?: Callback<M, 'ui/message'>;
  /** `ui/open-link` (needs `openLinks`). */
  onopenlink?: Callback<M, 'ui/open-link'>;
  /** `ui/download-file` (needs `downloadFile`). */
  ondownloadfile?: Callback<M, 'ui/download-file'>;
  /** `ui/update-model-context` (needs `updateModelContext`). */
  onupdatemodelcontext?: Callback<M, 'ui/update-model-context'>;
  /** `ui/request-display-mode`; without it the current `displayMode` (else `inline`) is answered. */
  onrequestdisplaymode?: Callback<M, 'ui/request-display-mode'>;
  /** `ui/notifications/size-changed`. */
  onsizechange?: (params: ViewNote<M, 'ui/notifications/size-changed'>) => void;
  /** `ui/notifications/initialized`. */
  oninitialized?: () => void;
  /** `ui/notifications/request-teardown`. */
  onrequestteardown?: () => void;
  /** `notifications/message` from the view. */
  onloggingmessage?: (params: ViewNote<M, 'notifications/message'>) => void;
  /** A view request this host refused by its rules (a hidden or unknown tool): for logs and audits. */
  onrefused?: (method: string, reason: string) => void;

  constructor(options: AppHostOptions) {
    this.#options = options;
    this.#context = { ...options.hostContext };
    this.#initialized = new Promise<void>((resolve) => {
      this.#markInitialized = resolve;
    });
  }

  /** The view's `appInfo` and `appCapabilities` (after its ui/initialize). */
  get app(): { appInfo?: unknown; appCapabilities?: Record<string, unknown> } {
    return this.#app;
  }
  /** The host context as the view last heard it. */
  get hostContext(): Record<string, unknown> {
    return this.#context;
  }
  /** Resolves once the view sent `ui/notifications/initialized`. */
  get initialized(): Promise<void> {
    return this.#initialized;
  }

  /** Starts serving the view over `transport` (from ./frame.ts `mountAppFrame`, or any Transport). */
  async connect(transport: Transport): Promise<void> {
    if (this.#peer) throw new RpcError(ErrorCode.InvalidRequest, 'the host is already connected');
    const o = this.#options;
    const callback =
      <K extends string>(get: () => Callback<M, K> | undefined, method: K) =>
      (params: unknown, ctx: RequestContext) => {
        const cb = get();
        if (!cb) throw new RpcError(ErrorCode.MethodNotFound, `Method not found: ${method}`);
        return cb(params as never, ctx);
      };
    const proxy = (method: string) => (params: unknown, ctx: RequestContext) => {
      if (!o.server) throw new RpcError(ErrorCode.MethodNotFound, `Method not found: ${method}`);
      return o.server.request(method, params as Record<string, unknown> | undefined, { signal: ctx.signal });
    };
    const peer = new Peer({
      side: 'server',
      table: o.table,
      transport,
      timeout: o.timeout,
      capabilities: o.hostCapabilities,
      requestHandlers: {
        'ui/initialize': (p: Record<string, unknown>) => {
          this.#app = { appInfo: p.appInfo, appCapabilities: p.appCapabilities as Record<string, unknown> };
          this.#peer?.setRemoteCapabilities((p.appCapabilities as Record<string, unknown> | undefined) ?? {});
          return {
            protocolVersion: o.table.protocolVersion,
            hostInfo: o.hostInfo,
            hostCapabilities: o.hostCapabilities,
            hostContext: this.#context,
          };
        },
        'ui/message': callback(() => this.onmessage, 'ui/message'),
        'ui/open-link': callback(() => this.onopenlink, 'ui/open-link'),
        'ui/download-file': callback(() => this.ondownloadfile, 'ui/download-file'),
        'ui/update-model-context': (p: unknown, ctx: RequestContext) =>
          this.onupdatemodelcontext ? this.onupdatemodelcontext(p as never, ctx) : {},
        'ui/request-display-mode': (p: unknown, ctx: RequestContext) =>
          this.onrequestdisplaymode
            ? this.onrequestdisplaymode(p as never, ctx)
            : { mode: (this.#context.displayMode as string | undefined) ?? 'inline' },
        'tools/call': (p: { name: string }, ctx: RequestContext) => this.#callTool(p, ctx),
        ...Object.fromEntries(PROXIED.map((m) => [m, proxy(m)])),
      },
      notificationHandlers: {
        'ui/notifications/initialized': () => {
          this.#markInitialized();
          this.oninitialized?.();
        },
        'ui/notifications/size-changed': (p: unknown) => this.onsizechange?.(p as never),
        'ui/notifications/request-teardown': () => this.onrequestteardown?.(),
        'notifications/message': (p: unknown) => this.onloggingmessage?.(p as never),
      },
    });
    this.#peer = peer;
    await peer.start();
  }

  async #callTool(params: { name: string }, ctx: RequestContext): Promise<unknown> {
    const server = this.#options.server;
    if (!server) throw new RpcError(ErrorCode.MethodNotFound, 'Method not found: tools/call');
    const name = params.name;
    let tool = this.#tools?.get(name);
    if (!tool) {
      // the server's tools by name (`tools/list`, every page)
      const tools = new Map<string, ListedTool>();
      let cursor: string | undefined;
      for (let page = 0; page < 1000; page++) {
        const r = (await server.request('tools/list', cursor === undefined ? {} : { cursor })) as {
          tools?: ListedTool[];
          nextCursor?: string;
        };
        for (const t of r.tools ?? []) tools.set(t.name, t);
        if (!r.nextCursor) break;
        cursor = r.nextCursor;
      }
      this.#tools = tools;
      tool = tools.get(name);
    }
    const refuse = (reason: string) => {
      this.onrefused?.('tools/call', reason);
      return new RpcError(ErrorCode.InvalidParams, reason, { name });
    };
    if (!tool) throw refuse(`Unknown tool: ${name} (the server does not list it)`);
    if (!isAppCallable(tool))
      throw refuse(`Tool ${name} is not callable from apps (visibility: ${toolVisibility(tool).join(', ')})`);
    return server.request('tools/call', params as Record<string, unknown>, { signal: ctx.signal });
  }

  #need(): Peer {
    if (!this.#peer) throw new RpcError(ErrorCode.InvalidRequest, 'the host is not connected: call connect() first');
    return this.#peer;
  }

  async #send(method: string, params: unknown): Promise<void> {
    const peer = this.#need();
    await this.#initialized;
    await peer.notify(method, params as never);
  }

  /** `ui/notifications/tool-input`: the complete tool arguments (after the view's initialized). */
  sendToolInput(params: HostNote<M, 'ui/notifications/tool-input'>): Promise<void> {
    return this.#send('ui/notifications/tool-input', params);
  }
  /** `ui/notifications/tool-input-partial`. */
  sendToolInputPartial(params: HostNote<M, 'ui/notifications/tool-input-partial'>): Promise<void> {
    return this.#send('ui/notifications/tool-input-partial', params);
  }
  /** `ui/notifications/tool-result`: the CallToolResult of the call that rendered the view. */
  sendToolResult(params: HostNote<M, 'ui/notifications/tool-result'>): Promise<void> {
    return this.#send('ui/notifications/tool-result', params);
  }
  /** `ui/notifications/tool-cancelled`. */
  sendToolCancelled(params: HostNote<M, 'ui/notifications/tool-cancelled'>): Promise<void> {
    return this.#send('ui/notifications/tool-cancelled', params);
  }
  /** Merges `params` into the host context and sends `ui/notifications/host-context-changed`. */
  setHostContext(params: HostNote<M, 'ui/notifications/host-context-changed'>): Promise<void> {
    this.#context = { ...this.#context, ...(params as Record<string, unknown>) };
    return this.#send('ui/notifications/host-context-changed', params);
  }
  /** `ui/resource-teardown`: resolves once the view answered (then remove its frame). */
  async teardownResource(options?: RequestOptions): Promise<void> {
    await this.#need().request('ui/resource-teardown', {}, options);
  }
  /** Sends a request of the host's map to the view (`tools/call` of the view's own tools, `ping`). */
  request<K extends keyof M['serverRequests'] & string>(
    method: K,
    params: M['serverRequests'][K]['params'],
    options?: RequestOptions,
  ): Promise<M['serverRequests'][K]['result']> {
    return this.#need().request(method, params as never, options);
  }

  /** Closes the channel. */
  async close(): Promise<void> {
    await this.#peer?.close();
  }
}
