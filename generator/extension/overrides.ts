/**
 * What an extension's published schema does not say and its specification does, by extension
 * identifier; each entry says where it comes from. An extension without an entry still ingests
 * (its parties named `client` and `server`, no `_meta` member); the ingest warns for what it then
 * cannot tell.
 */
import type { Direction } from '../model.js';

export interface ExtensionProfile {
  /** The extension's names of the two parties (see ./model.ts). */
  parties: { client: string; server: string };
  /** The capabilities type of each party, as the schema names it. */
  capabilityTypes: { client: string; server: string };
  /** The `_meta` member of tools and resources. */
  metaKey: string;
  /** Directions of messages whose declarations say nothing of it. */
  directions: Record<string, { direction: Direction; why: string }>;
  /**
   * The MCP methods that travel on the extension's own channel, per direction, each with the
   * receiver's capability (in the extension's capabilities types) that gates it, or null.
   */
  channel: {
    requests: Record<Direction, Record<string, string[] | null>>;
    notifications: Record<Direction, Record<string, null>>;
  };
  /** The MIME type of the extension's resources, when it has one. */
  mimeType?: string;
}

export const EXTENSION_PROFILES: Readonly<Record<string, ExtensionProfile>> = {
  'io.modelcontextprotocol/ui': {
    // SEP-1865 "Transport Layer": views act as MCP clients of their host, hosts as MCP servers
    parties: { client: 'view', server: 'host' },
    // SEP-1865: `appCapabilities` in ui/initialize, `hostCapabilities` in its result
    capabilityTypes: { client: 'McpUiAppCapabilities', server: 'McpUiHostCapabilities' },
    // SEP-1865 "UI Resource Format" and "Resource Discovery": `_meta.ui` of resources and tools
    metaKey: 'ui',
    // SEP-1865 "UI Resource Format": `text/html;profile=mcp-app`
    mimeType: 'text/html;profile=mcp-app',
    // SEP-1865 "Standard MCP Messages" (tools/call, resources/read, notifications/message, ping),
    // and the host capabilities that name what the host proxies: serverTools, serverResources,
    // logging, sampling; the view's own tools (appCapabilities.tools) are called by the host
    channel: {
      requests: {
        clientToServer: {
          'tools/call': ['serverTools'],
          'resources/read': ['serverResources'],
          'resources/list': ['serverResources'],
          'resources/templates/list': ['serverResources'],
          'prompts/list': null,
          'sampling/createMessage': ['sampling'],
          ping: null,
        },
        serverToClient: { 'tools/call': ['tools'], 'tools/list': ['tools'], ping: null },
      },
      notifications: {
        clientToServer: { 'notifications/message': null },
        serverToClient: {
          'notifications/tools/list_changed': null,
          'notifications/resources/list_changed': null,
          'notifications/prompts/list_changed': null,
        },
      },
    },
    directions: {
      // SEP-1865 "Reserved Messages (Sandbox Proxy)": the proxy is the host's iframe, the view's
      // side of the postMessage channel (Sandbox Proxy → Host, Host → Sandbox Proxy); the
      // declarations mark both @internal without a direction
      'ui/notifications/sandbox-proxy-ready': {
        direction: 'clientToServer',
        why: 'sandbox proxy → host (SEP-1865 Reserved Messages)',
      },
      'ui/notifications/sandbox-resource-ready': {
        direction: 'serverToClient',
        why: 'host → sandbox proxy (SEP-1865 Reserved Messages)',
      },
    },
  },
};
