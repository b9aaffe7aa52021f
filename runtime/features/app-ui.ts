/**
 * The server side of MCP Apps (`io.modelcontextprotocol/ui`, SEP-1865): UI resources and the
 * tools linked to them, as {@link ServerFeatures} registers them (`features.appResource`,
 * `features.appTool`), the extension's declaration in server capabilities, and whether the
 * requesting client renders views.
 *
 * - A UI resource has a `ui://` URI and the MIME type `text/html;profile=mcp-app`; its
 *   `_meta.ui` (CSP domains, permissions, domain, border preference) is listed with it and
 *   returned on each `resources/read` content item ("UI Resource Format").
 * - An app tool names its view in `_meta.ui.resourceUri` (and in the flat
 *   `_meta["ui/resourceUri"]` older hosts read) and who may call it in `_meta.ui.visibility`
 *   (`["model", "app"]` by default; `["app"]`: hosts keep it from the model and views may call it).
 *   Visibility is a declaration for hosts, not access control: the server still answers every
 *   client that calls the tool.
 */
import type { RequestContext } from '../engine/peer.js';
import { hasCapability } from '../protocol/table.js';

/** The extension identifier (the key under `capabilities.extensions`). */
export const APPS_EXTENSION = 'io.modelcontextprotocol/ui';
/** The MIME type of UI resources. */
export const APP_MIME_TYPE = 'text/html;profile=mcp-app';
/** The flat `_meta` key older hosts read a tool's view from. */
export const LEGACY_RESOURCE_URI_KEY = 'ui/resourceUri';

type Obj = Record<string, unknown>;

/** `_meta.ui` of a UI resource (the generated `McpUiResourceMeta`). */
export interface AppResourceUi {
  csp?: { connectDomains?: string[]; resourceDomains?: string[]; frameDomains?: string[]; baseUriDomains?: string[] };
  permissions?: { camera?: object; microphone?: object; geolocation?: object; clipboardWrite?: object };
  domain?: string;
  prefersBorder?: boolean;
}

/** A UI resource for `ServerFeatures.appResource`. */
export interface AppResourceDefinition {
  /** `ui://…` */
  uri: string;
  name: string;
  title?: string;
  description?: string;
  /** The view's HTML document, or a function that makes it per read. */
  html: string | ((uri: string, ctx: RequestContext) => string | Promise<string>);
  /** `_meta.ui`: CSP domains, permissions, domain, border. */
  ui?: AppResourceUi;
  _meta?: Obj;
}

/** `_meta.ui` of a tool (the generated `McpUiToolMeta`). */
export interface AppToolUi {
  /** The view: a `ui://` resource of this server. */
  resourceUri?: string;
  /** Who may call the tool (default both). */
  visibility?: Array<'model' | 'app'>;
}

/** The resource definition (../features/resources.ts) of an app resource. @throws TypeError for a URI that is not `ui://`. */
export function appResourceDefinition(def: AppResourceDefinition): {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType: string;
  _meta?: Obj;
  read(uri: string, ctx: RequestContext): Promise<Obj[]>;
} {
  if (!def.uri.startsWith('ui://')) throw new TypeError(`UI resource ${def.uri}: the URI must start with ui://`);
  const meta = def.ui ? { ...def._meta, ui: def.ui } : def._meta;
  return {
    uri: def.uri,
    name: def.name,
    ...(def.title === undefined ? {} : { title: def.title }),
    ...(def.description === undefined ? {} : { description: def.description }),
    mimeType: APP_MIME_TYPE,
    ...(meta ? { _meta: meta } : {}),
    read: async (uri, ctx) => {
      const text = typeof def.html === 'string' ? def.html : await def.html(uri, ctx);
      return [{ uri, mimeType: APP_MIME_TYPE, text, ...(meta ? { _meta: meta } : {}) }];
    },
  };
}

/** A tool's `_meta` with its `ui` (and the flat key older hosts read). @throws TypeError for a resourceUri that is not `ui://`. */
export function appToolMeta(ui: AppToolUi, meta?: Obj): Obj {
  if (ui.resourceUri !== undefined && !ui.resourceUri.startsWith('ui://'))
    throw new TypeError(`resourceUri ${ui.resourceUri}: a view is a ui:// resource`);
  return {
    ...meta,
    ui,
    ...(ui.resourceUri === undefined ? {} : { [LEGACY_RESOURCE_URI_KEY]: ui.resourceUri }),
  };
}

/** `capabilities` with `extensions["io.modelcontextprotocol/ui"]` added (what `server/discover` and `initialize` then show). */
export function withAppsCapability(capabilities: Obj, settings: Obj = {}): Obj {
  const extensions = (capabilities.extensions as Obj | undefined) ?? {};
  return { ...capabilities, extensions: { ...extensions, [APPS_EXTENSION]: settings } };
}

/**
 * What the requesting client declared for MCP Apps (`extensions["io.modelcontextprotocol/ui"]`,
 * e.g. `{ mimeTypes: ["text/html;profile=mcp-app"] }`), or undefined: from the request's own
 * client capabilities (`_meta["io.modelcontextprotocol/clientCapabilities"]`, stateless
 * revisions) else from the session's `initialize` (2025-11-25 and before).
 */
export function appsClientCapability(ctx: Pick<RequestContext, 'meta' | 'session'>): Obj | undefined {
  const perRequest = ctx.meta?.['io.modelcontextprotocol/clientCapabilities'];
  const session = (ctx.session as { client?: { capabilities?: Obj } } | undefined)?.client?.capabilities;
  const caps = (typeof perRequest === 'object' && perRequest !== null ? perRequest : session) as Obj | undefined;
  if (!hasCapability(caps, ['extensions', APPS_EXTENSION])) return undefined;
  return (caps!.extensions as Obj)[APPS_EXTENSION] as Obj;
}

/** Whether the requesting client renders MCP Apps views (its capability lists `text/html;profile=mcp-app`, or lists no MIME types). */
export function clientRendersApps(ctx: Pick<RequestContext, 'meta' | 'session'>): boolean {
  const cap = appsClientCapability(ctx);
  if (!cap) return false;
  const types = cap.mimeTypes;
  return !Array.isArray(types) || types.includes(APP_MIME_TYPE);
}
