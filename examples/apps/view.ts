// The MCP Apps example's view (bundled into the UI resource's HTML): an `App` that draws the
// tool's result, then asks the server for a fresh reading through the host (`refresh_weather`),
// tells the conversation (`ui/message`) and reports its size. It also tries `delete_history`,
// which the host refuses (a tool for the model only).
import { App } from '@mcpgen/runtime/apps';
import { appsTable, type AppsProtocol } from '../../generated/2025-11-25/apps/index.js';

type Reading = { city: string; sky: string; celsius: number };
const doc = document;
const line = (id: string, text: string) => {
  const el = doc.getElementById(id) ?? doc.body.appendChild(Object.assign(doc.createElement('p'), { id }));
  el.textContent = text;
};

const app = new App<AppsProtocol>({ table: appsTable, appInfo: { name: 'weather-view', version: '1.0.0' } });
app.ontoolinput = ({ arguments: args }) => line('input', `Asked for ${String(args?.city)}`);
app.ontoolresult = async (result) => {
  const r = result.structuredContent as Reading;
  line('now', `${r.city} ${r.sky} ${r.celsius}C`);
  const fresh = await app.callServerTool({ name: 'refresh_weather', arguments: { city: r.city } });
  const f = fresh.structuredContent as Reading;
  line('fresh', `Later ${f.sky} ${f.celsius}C`);
  const refused = await app.callServerTool({ name: 'delete_history', arguments: {} }).then(
    () => 'called',
    (e: Error) => `refused: ${e.message}`,
  );
  line('hidden', refused);
  await app.sendMessage({ role: 'user', content: [{ type: 'text', text: `${f.city} is ${f.sky.toLowerCase()}` }] });
  line('done', 'Done');
};
await app.connect();
line('host', `Host ${String((app.initializeResult?.hostInfo as { name?: string } | undefined)?.name)}`);
