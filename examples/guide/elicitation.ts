// Guide: elicitation (docs/guide/elicitation.md). A 2025-11-25 server asks the user for data
// through the client: a form with a requested schema, a URL to open, and the -32042 error.
import assert from 'node:assert/strict';
import { ErrorCode, RpcError, ServerFeatures, createMemoryPair } from '@mcpgen/runtime';
import { type RequestedSchema, checkElicitationContent, elicitationDefaults } from '@mcpgen/runtime/features';
import {
  Client,
  Server,
  table,
  type ElicitRequestParams,
  type ElicitResult,
  type Protocol,
} from '../../generated/2025-11-25/index.js';

// ---- the server ----
const features = new ServerFeatures<Protocol>();
features.tool({
  name: 'book_table',
  inputSchema: { type: 'object', properties: { restaurant: { type: 'string' } }, required: ['restaurant'] },
  handler: async ({ restaurant }, ctx) => {
    const ask: ElicitRequestParams = {
      mode: 'form',
      message: `Booking at ${restaurant}: who and how many?`,
      requestedSchema: {
        type: 'object',
        properties: {
          name: { type: 'string', title: 'Name', minLength: 1 },
          guests: { type: 'integer', title: 'Guests', minimum: 1, maximum: 12 },
          time: { type: 'string', enum: ['19:00', '20:00', '21:00'] },
        },
        required: ['name', 'guests'],
      },
    };
    const answer = await ctx.sendRequest<ElicitResult>('elicitation/create', ask);
    switch (answer.action) {
      case 'accept': {
        const { name, guests, time = '19:00' } = answer.content as { name: string; guests: number; time?: string };
        return { content: [{ type: 'text', text: `Booked ${restaurant} for ${guests} at ${time}, name ${name}` }] };
      }
      case 'decline':
        return { content: [{ type: 'text', text: 'Booking declined' }] };
      case 'cancel':
        return { content: [{ type: 'text', text: 'Booking cancelled: ask again later' }] };
    }
  },
});

// URL mode: the user opens a page of the server's own (a login, a payment), out of the client's sight.
const connected = new Set<string>(); // users who finished the flow (here: one user)
features.tool({
  name: 'read_calendar',
  inputSchema: { type: 'object' },
  handler: async () => {
    if (!connected.has('user-1')) {
      // the call cannot proceed until the user completes the URL flow: -32042 with the elicitations
      throw new RpcError(ErrorCode.UrlElicitationRequired, 'This request requires connecting your calendar.', {
        elicitations: [
          {
            mode: 'url',
            elicitationId: 'cal-1',
            url: 'https://mcp.example.com/connect?id=cal-1',
            message: 'Connect your calendar',
          },
        ],
      });
    }
    return { content: [{ type: 'text', text: '3 meetings today' }] };
  },
});

// ---- the client: a scripted "user" answers each form in turn ----
const user: ElicitResult[] = [
  { action: 'accept', content: { name: 'Ada', guests: 2, time: '20:00' } },
  { action: 'decline' },
  { action: 'cancel' },
];
const opened: string[] = [];
const completed: string[] = [];
const client = new Client({
  clientInfo: { name: 'chat-app', version: '1.0.0' },
  capabilities: { elicitation: { form: {}, url: {} } },
  handlers: {
    'elicitation/create': (params) => {
      if (params.mode === 'url') {
        opened.push(params.url); // show the URL, ask for consent, open it in a browser
        return { action: 'accept' }; // accept = the user agreed to open it (no content)
      }
      return user.shift() ?? { action: 'cancel' };
    },
  },
  notificationHandlers: {
    'notifications/elicitation/complete': ({ elicitationId }) => void completed.push(elicitationId),
  },
});
const server = new Server({
  serverInfo: { name: 'concierge', version: '1.0.0' },
  capabilities: features.capabilities(),
  handlers: features.handlers({ table }),
});
const [a, b] = createMemoryPair();
await server.connect(b);
await client.connect(a);

const text = async (restaurant: string) => {
  const r = await client.callTool({ name: 'book_table', arguments: { restaurant } });
  return r.content[0].type === 'text' ? r.content[0].text : '';
};
assert.equal(await text('Chez Nous'), 'Booked Chez Nous for 2 at 20:00, name Ada');
assert.equal(await text('Chez Nous'), 'Booking declined');
assert.equal(await text('Chez Nous'), 'Booking cancelled: ask again later');

// The accepted content is checked against the revision's schema (content values are primitives):
user.push({ action: 'accept', content: { name: 'Ada', guests: { count: 2 } } as never });
const invalid = await server
  .elicit({ mode: 'form', message: 'again', requestedSchema: { type: 'object', properties: {} } })
  .catch((e: unknown) => e);
assert.ok(invalid instanceof RpcError);
assert.equal(invalid.code, ErrorCode.InternalError); // the client answers -32603: its own result fails the schema

// A server may send a URL elicitation itself, then tell the client when the flow is done:
const consent = await server.elicit({
  mode: 'url',
  elicitationId: 'pay-7',
  url: 'https://mcp.example.com/pay?id=pay-7',
  message: 'Confirm the deposit',
});
assert.deepEqual(consent, { action: 'accept' });
await server.sendElicitationComplete({ elicitationId: 'pay-7' });

// The -32042 error: the client opens each URL, and retries once the flow has completed.
const required = await client.callTool({ name: 'read_calendar', arguments: {} }).catch((e: unknown) => e);
assert.ok(required instanceof RpcError);
assert.equal(required.code, -32042);
const { elicitations } = required.data as { elicitations: Extract<ElicitRequestParams, { mode: 'url' }>[] };
assert.equal(elicitations[0].elicitationId, 'cal-1');
opened.push(elicitations[0].url);
connected.add('user-1'); // the server learns it from its own web page
await server.sendElicitationComplete({ elicitationId: 'cal-1' });
const retried = await client.callTool({ name: 'read_calendar', arguments: {} });
assert.deepEqual(retried.content, [{ type: 'text', text: '3 meetings today' }]);
assert.deepEqual(opened, ['https://mcp.example.com/pay?id=pay-7', 'https://mcp.example.com/connect?id=cal-1']);
assert.deepEqual(completed, ['pay-7', 'cal-1']);

// A client that declared form mode only is never sent a URL elicitation (and would answer -32602):
const formOnly = new Client({ clientInfo: { name: 'kiosk', version: '1.0.0' }, capabilities: { elicitation: {} } }); // {} = form
const kioskServer = new Server({ serverInfo: { name: 'concierge', version: '1.0.0' }, capabilities: {} });
const [c, d] = createMemoryPair();
await kioskServer.connect(d);
await formOnly.connect(c);
const noUrl = await kioskServer
  .elicit({ mode: 'url', elicitationId: 'x', url: 'https://mcp.example.com/x', message: 'Open' })
  .catch((e: unknown) => e);
assert.ok(noUrl instanceof RpcError);
assert.equal(noUrl.code, -32601);
assert.deepEqual(noUrl.data, { method: 'elicitation/create', capability: 'elicitation.url' });

// ---- a form's defaults, and its answer checked against the requested schema ----
const form: RequestedSchema = {
  type: 'object',
  properties: {
    guests: { type: 'integer', title: 'Guests', minimum: 1, maximum: 12, default: 2 },
    time: { type: 'string', enum: ['19:00', '20:00', '21:00'], default: '19:00' },
    notify: { type: 'boolean', default: true },
  },
  required: ['guests'],
};
console.log(elicitationDefaults(form)); // { guests: 2, time: '19:00', notify: true }: what the client pre-fills
console.log(await checkElicitationContent(form, { guests: 20, time: '23:00' }));
// [ 'guests: must be <= 12', 'time: must be equal to one of the allowed values' ]
assert.deepEqual(elicitationDefaults(form), { guests: 2, time: '19:00', notify: true });
assert.deepEqual(await checkElicitationContent(form, { guests: 20, time: '23:00' }), [
  'guests: must be <= 12',
  'time: must be equal to one of the allowed values',
]);
assert.deepEqual(await checkElicitationContent(form, { ...elicitationDefaults(form) }), []);
assert.deepEqual(await checkElicitationContent(form, {}), ['guests: is required']);

await formOnly.close();
await client.close();
console.log('ok elicitation');
