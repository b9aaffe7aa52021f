// The MCP Apps example's server (docs/guide/apps.md): an mcpgen server (MCP 2025-11-25) over
// Streamable HTTP whose tool `show_weather` is linked to a view, the UI resource
// ui://weather/view.html; `refresh_weather` is for the view only (visibility ["app"]),
// `delete_history` for the model only (visibility ["model"]: a view may not call it).
// test/apps/browser.test.ts runs it with the view bundled into the resource's HTML.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ServerFeatures } from '@mcpgen/runtime/features';
import { createStreamableHttpHandler } from '@mcpgen/runtime/http';
import { withAppsCapability } from '@mcpgen/runtime/apps';
import { Server, table, type Protocol } from '../../generated/2025-11-25/index.js';

/** A running weather server: its MCP endpoint, what its tools were asked, and how to stop it. */
export interface WeatherServer {
  url: string;
  calls: string[];
  close(): Promise<void>;
}

/** Starts the server on 127.0.0.1 (a free port); `viewHtml` is the view's document, `corsOrigin` the host page's origin. */
export async function startWeatherServer(options: { viewHtml: string; corsOrigin: string }): Promise<WeatherServer> {
  const calls: string[] = [];
  const features = new ServerFeatures<Protocol>();
  features.appResource({
    uri: 'ui://weather/view.html',
    name: 'weather_view',
    description: 'The forecast, drawn',
    html: options.viewHtml,
    ui: { csp: { connectDomains: [] }, prefersBorder: true },
  });
  features.appTool({
    name: 'show_weather',
    description: 'The weather of a city, with a view',
    inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    ui: { resourceUri: 'ui://weather/view.html' },
    handler: ({ city }) => {
      calls.push(`show_weather ${city}`);
      return {
        content: [{ type: 'text', text: `${city}: sunny, 21 °C` }],
        structuredContent: { city, sky: 'Sunny', celsius: 21 },
      };
    },
  });
  let refreshed = 0;
  features.appTool({
    name: 'refresh_weather',
    description: 'A fresh reading (for the view)',
    inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    ui: { resourceUri: 'ui://weather/view.html', visibility: ['app'] },
    handler: ({ city }) => {
      calls.push(`refresh_weather ${city}`);
      refreshed++;
      return {
        content: [{ type: 'text', text: `${city}: cloudy, ${18 + refreshed} °C` }],
        structuredContent: { city, sky: 'Cloudy', celsius: 18 + refreshed },
      };
    },
  });
  features.appTool({
    name: 'delete_history',
    description: 'Forgets every reading (for the model only)',
    inputSchema: { type: 'object' },
    ui: { visibility: ['model'] },
    handler: () => {
      calls.push('delete_history');
      return { content: [{ type: 'text', text: 'deleted' }] };
    },
  });
  const handlers = features.handlers();
  const capabilities = withAppsCapability(features.capabilities());
  const http = createServer(
    createStreamableHttpHandler({
      tables: [table],
      cors: { allowedOrigins: [options.corsOrigin] },
      onSession: (transport) =>
        new Server({ serverInfo: { name: 'weather', version: '1.0.0' }, capabilities, handlers }).connect(transport),
    }),
  );
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}
