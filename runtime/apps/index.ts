/**
 * `@mcpgen/runtime/apps`: MCP Apps (`io.modelcontextprotocol/ui`, SEP-1865) on the web platform: the view (`App`), the
 * host's bridge (`AppHost`) and the rendering of a UI resource in a sandboxed frame under its CSP
 * (`mountAppFrame`), over the postMessage transport; the server side is on `ServerFeatures`
 * (`appResource`, `appTool`) with the helpers of ../features/app-ui.ts. The channel's table and
 * types are generated per revision (`generate --ext apps`: `<rev>/apps/`).
 *
 * @module
 */
export { App, type AppMaps, type AppOptions } from './view.js';
export {
  AppHost,
  type AppHostOptions,
  type ListedTool,
  type ProxiedServer,
  isAppCallable,
  isModelVisible,
  toolVisibility,
} from './host.js';
export {
  type AppCspDomains,
  type AppPermissions,
  type AppResourceContent,
  type FrameElement,
  type MountOptions,
  type MountedFrame,
  appAllow,
  appCsp,
  appHtml,
  mountAppFrame,
  withCsp,
} from './frame.js';
export {
  type MessageEventLike,
  type MessageSource,
  type MessageTarget,
  PostMessageTransport,
  type PostMessageTransportOptions,
} from './postmessage.js';
export {
  APPS_EXTENSION,
  APP_MIME_TYPE,
  LEGACY_RESOURCE_URI_KEY,
  type AppResourceDefinition,
  type AppResourceUi,
  type AppToolUi,
  appResourceDefinition,
  appToolMeta,
  appsClientCapability,
  clientRendersApps,
  withAppsCapability,
} from '../features/app-ui.js';
