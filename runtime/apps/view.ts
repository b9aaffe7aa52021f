/**
 * `App`: the view side of MCP Apps (SEP-1865), the page a host renders in an iframe. It is the
 * client side of the channel (the generated `appsTable`: `clientToServer` is view → host), over
 * any Transport (a {@link PostMessageTransport} to `window.parent` by default).
 *
 * ```ts
 * import { App } from '@mcpgen/runtime/apps';
 * import { appsTable, type AppsProtocol } from './mcp/2025-11-25/apps/index.js';
 * const app = new App<AppsProtocol>({ table: appsTable, appInfo: { name: 'weather', version: '1.0.0' } });
 * app.ontoolresult = (result) => render(result.structuredContent);
 * await app.connect();                      // ui/initialize, then ui/notifications/initialized
 * const fresh = await app.callServerTool({ name: 'refresh', arguments: {} }); // tools/call, proxied by the host
 * ```
 *
 * Lifecycle ("Lifecycle", "App Capabilities in ui/initialize"): `connect()` sends `ui/initialize`
 * with `appInfo`, `appCapabilities` and the extension's protocol version, keeps the host's
 * capabilities, info and context (`ui/notifications/host-context-changed` merges into it), then
 * sends `ui/notifications/initialized`. Requests the host did not declare a capability for
 * (`ui/open-link` without `openLinks`, `tools/call` without `serverTools`) are refused before
 * they are sent (CapabilityNotDeclaredError). Every message is checked against the extension's
 * schema (params of what the host sends, results of what the view asks): an invalid
 * notification never reaches its callback.
 */
import { Peer, type RequestOptions } from '../engine/peer.js';
import { ErrorCode, RpcError } from '../jsonrpc/errors.js';
import type { Transport } from '../jsonrpc/transport.js';
import type { ProtocolMaps, ProtocolTable } from '../protocol/table.js';
import { PostMessageTransport } from './postmessage.js';

/** The maps of a generated `AppsProtocol` the view is typed over. */
export type AppMaps = ProtocolMaps;
type Req<M extends AppMaps, K extends string> = K extends keyof M['clientRequests']
  ? M['clientRequests'][K]
  : { params: Record<string, unknown>; result: Record<string, unknown> };
type HostNote<M extends AppMaps, K extends string> = K extends keyof M['serverNotifications']
  ? NonNullable<M['serverNotifications'][K]['params']>
  : Record<string, unknown>;
type Params<M extends AppMaps, K extends string> = NonNullable<Req<M, K>['params']>;
type Result<M extends AppMaps, K extends string> = Req<M, K>['result'];
type InitResult<M extends AppMaps> = Result<M, 'ui/initialize'>;

/** Options of {@link App}. */
export interface AppOptions {
  /** The generated table of the channel (`appsTable` of `<rev>/apps/`). */
  table: ProtocolTable;
  /** The view's name and version (`appInfo` of ui/initialize). */
  appInfo: { name: string; version: string; [key: string]: unknown };
  /** `appCapabilities` of ui/initialize (default `{}`); `availableDisplayModes` among them. */
  capabilities?: Record<string, unknown>;
  /** Report the document's size to the host as it changes (ResizeObserver; default true where there is one). */
  autoResize?: boolean;
  /** Request timeout in ms (default 60000). */
  timeout?: number;
}

/** See the module comment. */
export class App<M extends AppMaps = AppMaps> {
  readonly #options: AppOptions;
  #peer: Peer | undefined;
  #init: Record<string, unknown> | undefined;
  #context: Record<string, unknown> = {};
  #observer: { disconnect(): void } | undefined;
  #lastSize: string | undefined;

  /** `ui/notifications/tool-input`: the complete arguments of the tool call that rendered the view. */
  ontoolinput?: (params: HostNote<M, 'ui/notifications/tool-input'>) => void;
  /** `ui/notifications/tool-input-partial`: arguments while they stream (best effort). */
  ontoolinputpartial?: (params: HostNote<M, 'ui/notifications/tool-input-partial'>) => void;
  /** `ui/notifications/tool-result`: the tool's CallToolResult. */
  ontoolresult?: (params: HostNote<M, 'ui/notifications/tool-result'>) => void;
  /** `ui/notifications/tool-cancelled`. */
  ontoolcancelled?: (params: HostNote<M, 'ui/notifications/tool-cancelled'>) => void;
  /** `ui/notifications/host-context-changed` (the partial update; {@link hostContext} has the merged one). */
  onhostcontextchanged?: (params: HostNote<M, 'ui/notifications/host-context-changed'>) => void;
  /** `ui/resource-teardown`: the host is about to remove the view; the answer tells it the view is done. */
  onteardown?: () => void | Promise<void>;

  constructor(options: AppOptions) {
    this.#options = options;
  }

  /** The host's answer to ui/initialize (undefined before {@link connect}). */
  get initializeResult(): InitResult<M> | undefined {
    return this.#init as InitResult<M> | undefined;
  }
  /** The host's capabilities (`hostCapabilities`). */
  get hostCapabilities(): Record<string, unknown> | undefined {
    return this.#init?.hostCapabilities as Record<string, unknown> | undefined;
  }
  /** The host context: ui/initialize's, with each `host-context-changed` merged in. */
  get hostContext(): Record<string, unknown> {
    return this.#context;
  }

  /**
   * Opens the channel (default: a {@link PostMessageTransport} to `window.parent`, any origin,
   * messages accepted from that window only), runs ui/initialize and sends initialized.
   * Rejects with the host's error, or with RpcError -32600 when already connected.
   */
  async connect(transport?: Transport): Promise<InitResult<M>> {
    if (this.#peer) throw new RpcError(ErrorCode.InvalidRequest, 'the app is already connected');
    const parent = (globalThis as unknown as { parent?: unknown }).parent;
    const t = transport ?? new PostMessageTransport({ target: parent as never, origin: '*', source: parent });
    const notify = <K extends string>(k: K, cb: () => ((p: never) => void) | undefined) => [
      k,
      (p: unknown) => cb()?.(p as never),
    ];
    const peer = new Peer({
      side: 'client',
      table: this.#options.table,
      transport: t,
      timeout: this.#options.timeout,
      uncancellable: ['ui/initialize'],
      requestHandlers: {
        'ui/resource-teardown': async () => {
          await this.onteardown?.();
          this.#observer?.disconnect();
          return {};
        },
      },
      notificationHandlers: Object.fromEntries([
        notify('ui/notifications/tool-input', () => this.ontoolinput),
        notify('ui/notifications/tool-input-partial', () => this.ontoolinputpartial),
        notify('ui/notifications/tool-result', () => this.ontoolresult),
        notify('ui/notifications/tool-cancelled', () => this.ontoolcancelled),
        [
          'ui/notifications/host-context-changed',
          (p: unknown) => {
            this.#context = { ...this.#context, ...(p as Record<string, unknown>) };
            this.onhostcontextchanged?.(p as never);
          },
        ],
      ]),
    });
    this.#peer = peer;
    await peer.start();
    const init = await peer.request<Record<string, unknown>>('ui/initialize', {
      appInfo: this.#options.appInfo,
      appCapabilities: this.#options.capabilities ?? {},
      protocolVersion: this.#options.table.protocolVersion,
    });
    this.#init = init;
    this.#context = { ...(init.hostContext as Record<string, unknown> | undefined) };
    peer.setRemoteCapabilities((init.hostCapabilities as Record<string, unknown> | undefined) ?? {});
    await peer.notify('ui/notifications/initialized', {});
    if (this.#options.autoResize !== false) this.#watchSize();
    return init as InitResult<M>;
  }

  #need(): Peer {
    if (!this.#peer || !this.#init)
      throw new RpcError(ErrorCode.InvalidRequest, 'the app is not connected: call connect() first');
    return this.#peer;
  }

  /** Sends a request of the view's map (the named methods below are these). */
  request<K extends keyof M['clientRequests'] & string>(
    method: K,
    params: M['clientRequests'][K]['params'],
    options?: RequestOptions,
  ): Promise<M['clientRequests'][K]['result']> {
    return this.#need().request(method, params as never, options);
  }

  /** `tools/call` on the server, through the host (which may refuse a tool hidden from apps). */
  callServerTool(params: Params<M, 'tools/call'>, options?: RequestOptions): Promise<Result<M, 'tools/call'>> {
    return this.#need().request('tools/call', params as never, options);
  }
  /** `resources/read` on the server, through the host. */
  readServerResource(
    params: Params<M, 'resources/read'>,
    options?: RequestOptions,
  ): Promise<Result<M, 'resources/read'>> {
    return this.#need().request('resources/read', params as never, options);
  }
  /** `ui/message`: a message for the host's conversation. */
  sendMessage(params: Params<M, 'ui/message'>, options?: RequestOptions): Promise<Result<M, 'ui/message'>> {
    return this.#need().request('ui/message', params as never, options);
  }
  /** `ui/open-link`. */
  openLink(params: Params<M, 'ui/open-link'>, options?: RequestOptions): Promise<Result<M, 'ui/open-link'>> {
    return this.#need().request('ui/open-link', params as never, options);
  }
  /** `ui/request-display-mode`: the answer is the mode the host set (it may differ). */
  requestDisplayMode(
    params: Params<M, 'ui/request-display-mode'>,
    options?: RequestOptions,
  ): Promise<Result<M, 'ui/request-display-mode'>> {
    return this.#need().request('ui/request-display-mode', params as never, options);
  }
  /** `ui/update-model-context`. */
  updateModelContext(
    params: Params<M, 'ui/update-model-context'>,
    options?: RequestOptions,
  ): Promise<Result<M, 'ui/update-model-context'>> {
    return this.#need().request('ui/update-model-context', params as never, options);
  }
  /** `ui/notifications/size-changed` (sent by itself on resize unless `autoResize: false`). */
  sendSizeChanged(params: { width?: number; height?: number }): Promise<void> {
    this.#lastSize = JSON.stringify(params);
    return this.#need().notify('ui/notifications/size-changed', params);
  }
  /** `notifications/message`: a log line for the host. */
  sendLog(params: { level: string; data: unknown; logger?: string }): Promise<void> {
    return this.#need().notify('notifications/message', params);
  }
  /** `ui/notifications/request-teardown`: asks the host to remove the view. */
  requestTeardown(): Promise<void> {
    return this.#need().notify('ui/notifications/request-teardown', {});
  }

  /** Closes the channel. */
  async close(): Promise<void> {
    this.#observer?.disconnect();
    await this.#peer?.close();
  }

  #watchSize(): void {
    const g = globalThis as unknown as {
      ResizeObserver?: new (cb: () => void) => { observe(el: unknown): void; disconnect(): void };
      document?: { documentElement: { scrollWidth: number; scrollHeight: number } };
    };
    if (!g.ResizeObserver || !g.document) return;
    const el = g.document.documentElement;
    const report = () => {
      const size = { width: Math.ceil(el.scrollWidth), height: Math.ceil(el.scrollHeight) };
      if (JSON.stringify(size) === this.#lastSize) return;
      this.sendSizeChanged(size).catch(() => undefined);
    };
    const o = new g.ResizeObserver(report);
    o.observe(el);
    this.#observer = o;
  }
}
