// The MCP Apps example's host page: a generated MCP client (2025-11-25, over Streamable HTTP)
// calls the UI tool, reads the view it names, renders it in a sandboxed iframe under the CSP the
// resource declares (`mountAppFrame`) and serves it (`AppHost`): tool input and result, the
// view's server tool calls (proxied, visibility enforced), its messages and sizes.
import { AppHost, isModelVisible, mountAppFrame, type AppResourceContent } from '@mcpgen/runtime/apps';
import { HttpClientTransport } from '@mcpgen/runtime/web';
import { Client } from '../../generated/2025-11-25/index.js';
import {
  appsTable,
  type AppClientCapabilities,
  type AppTool,
  type AppsProtocol,
} from '../../generated/2025-11-25/apps/index.js';

/** What the page saw, for the test (and a person reading the console). */
export interface HostRecord {
  modelTools: string[];
  messages: string[];
  sizes: Array<{ width?: number; height?: number }>;
  refused: string[];
  /** postMessage events the transport refused (another window, not JSON-RPC 2.0). */
  transportRefusals: string[];
  csp: string;
}

/** Calls `show_weather` for `city` on the server at `url` and renders its view into `container`. */
export async function showWeather(url: string, city: string, container: HTMLElement): Promise<HostRecord> {
  const capabilities: AppClientCapabilities = {
    extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } },
  };
  const client = new Client({ clientInfo: { name: 'weather-host', version: '1.0.0' }, capabilities });
  await client.connect(new HttpClientTransport({ url }));
  const tools = (await client.listTools({})).tools as AppTool[];
  const record: HostRecord = {
    // what the model may see: tools whose visibility includes "model"
    modelTools: tools.filter(isModelVisible).map((t) => t.name),
    messages: [],
    sizes: [],
    refused: [],
    transportRefusals: [],
    csp: '',
  };
  const tool = tools.find((t) => t.name === 'show_weather')!;
  const uri = tool._meta?.ui?.resourceUri as string;
  const args = { city };
  const result = await client.callTool({ name: tool.name, arguments: args });
  const read = await client.readResource({ uri });
  const frame = mountAppFrame({
    container,
    content: read.contents[0] as AppResourceContent,
    onRefused: (reason) => record.transportRefusals.push(reason),
  });
  record.csp = frame.csp;
  const host = new AppHost<AppsProtocol>({
    table: appsTable,
    hostInfo: { name: 'weather-host', version: '1.0.0' },
    hostCapabilities: { serverTools: {}, message: { text: {} }, logging: {} },
    hostContext: { theme: 'light', displayMode: 'inline', toolInfo: { tool } },
    server: { request: (method, params, options) => client.request(method as never, params as never, options) },
  });
  host.onmessage = async ({ content }) => {
    record.messages.push(content.map((c) => ('text' in c ? c.text : c.type)).join(' '));
    return {};
  };
  host.onsizechange = (size) => {
    record.sizes.push(size);
    frame.iframe.setAttribute('style', `border: 0; width: 100%; height: ${size.height ?? 200}px`);
  };
  host.onrefused = (_method, reason) => record.refused.push(reason);
  await host.connect(frame.transport); // in the same task as the mount: the view's first message is not missed
  await host.sendToolInput({ arguments: args });
  await host.sendToolResult(result);
  return record;
}
