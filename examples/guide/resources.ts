// docs/guide/resources.md: static resources, resource templates, subscriptions to updates.
import assert from 'node:assert/strict';
import { Client, Server, type Protocol } from '../../generated/2025-11-25/index.js';
import { RpcError } from '@mcpgen/runtime';
import { ServerFeatures } from '@mcpgen/runtime/features';
import { createMemoryPair } from '@mcpgen/runtime/memory';

let motd = 'Welcome.';
const features = new ServerFeatures<Protocol>();
features.resource({
  uri: 'config://app/settings.json',
  name: 'settings',
  mimeType: 'application/json',
  text: '{"theme":"dark"}',
});
features.resource({ uri: 'motd://today', name: 'motd', mimeType: 'text/plain', read: (uri) => [{ uri, text: motd }] });
features.resourceTemplate({
  name: 'user-notes',
  uriTemplate: 'notes://{user}/{id}{?rev}',
  mimeType: 'text/plain',
  // vars: { user: string; id: string; rev?: string }, from the template
  read: (uri, { user, id, rev }) => [
    { uri, mimeType: 'text/plain', text: `note ${id} of ${user}, revision ${rev ?? 'latest'}` },
  ],
});

const updated: string[] = [];
let gotUpdate!: () => void;
const update = new Promise<void>((resolve) => (gotUpdate = resolve));
const server = new Server({
  serverInfo: { name: 'files', version: '1.0.0' },
  capabilities: features.capabilities(),
  handlers: features.handlers(),
});
features.attach(server); // list_changed and resources/updated go out through this server
const client = new Client({
  clientInfo: { name: 'app', version: '1.0.0' },
  notificationHandlers: { 'notifications/resources/updated': ({ uri }) => void (updated.push(uri), gotUpdate()) },
});
const [clientSide, serverSide] = createMemoryPair();
await server.connect(serverSide);
await client.connect(clientSide);

const { resources } = await client.listResources({});
const { resourceTemplates } = await client.listResourceTemplates({});
console.log(
  resources.map((r) => r.uri),
  resourceTemplates.map((t) => t.uriTemplate),
);
// [ 'config://app/settings.json', 'motd://today' ] [ 'notes://{user}/{id}{?rev}' ]
const note = await client.readResource({ uri: 'notes://ada/7?rev=3' });
console.log(note.contents); // [ { uri: 'notes://ada/7?rev=3', mimeType: 'text/plain', text: 'note 7 of ada, revision 3' } ]

assert.deepEqual(
  resources.map((r) => r.uri),
  ['config://app/settings.json', 'motd://today'],
);
assert.deepEqual(
  resourceTemplates.map((t) => t.uriTemplate),
  ['notes://{user}/{id}{?rev}'],
);
assert.deepEqual(note.contents, [
  { uri: 'notes://ada/7?rev=3', mimeType: 'text/plain', text: 'note 7 of ada, revision 3' },
]);
assert.deepEqual((await client.readResource({ uri: 'config://app/settings.json' })).contents, [
  { uri: 'config://app/settings.json', mimeType: 'application/json', text: '{"theme":"dark"}' },
]);
assert.deepEqual((await client.readResource({ uri: 'notes://bob/1' })).contents, [
  { uri: 'notes://bob/1', mimeType: 'text/plain', text: 'note 1 of bob, revision latest' },
]);

// an unknown URI: -32002 Resource not found, data.uri names it
await assert.rejects(
  client.readResource({ uri: 'config://app/missing' }),
  (e: unknown) =>
    e instanceof RpcError && e.code === -32002 && (e.data as { uri: string }).uri === 'config://app/missing',
);

// subscribe, then the server reports changes of that URI
assert.deepEqual(server.options.capabilities?.resources, { subscribe: true, listChanged: true });
await client.subscribe({ uri: 'motd://today' });
motd = 'Maintenance at noon.';
assert.equal(await features.notifyResourceUpdated('motd://today'), true); // sent to the subscriber
assert.equal(await features.notifyResourceUpdated('config://app/settings.json'), false); // nobody subscribed
await update;
assert.deepEqual(updated, ['motd://today']);
assert.deepEqual((await client.readResource({ uri: 'motd://today' })).contents, [
  { uri: 'motd://today', text: 'Maintenance at noon.' },
]);
await client.unsubscribe({ uri: 'motd://today' });
assert.equal(await features.notifyResourceUpdated('motd://today'), false);

await client.close();
console.log('ok resources');
