/**
 * The two runtime entries share one list of what runs anywhere (runtime/portable.ts): the
 * names `@mcpgen/runtime` (runtime/index.ts) and its web form (runtime/web.ts) export, values
 * and types, are exactly the ones below, read with the TypeScript checker; the names both
 * export are the same bindings except the HTTP client transports, which are the `node:http`
 * ones in the Node entry and the fetch ones in the web entry.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import ts from 'typescript';
import * as nodeEntry from '../../runtime/index.js';
import * as webEntry from '../../runtime/web.js';
import * as nodeSession from '../../runtime/transport/http/session/client.js';
import * as fetchSession from '../../runtime/transport/http/session/fetch-client.js';
import * as nodeStateless from '../../runtime/transport/http/stateless/client.js';
import * as fetchStateless from '../../runtime/transport/http/stateless/fetch-client.js';
import { root } from '../runtime/tasks/serve-process.js';

const INDEX = ['AuthInfo', 'AuthRefusal', 'AuthRequest', 'AuthVerdict', 'AuthorizationError', 'Authorizer', 'BearerAuthOptions', 'BusMessage', 'CapabilityNotDeclaredError', 'CapabilityShape', 'ClientRegistration', 'ClientSession', 'ClientSessionOptions', 'ConnectionClosedError', 'Cors', 'CorsOptions', 'CreateTaskResult', 'DEFAULT_EXPOSED_HEADERS', 'DetailedTask', 'DiscoveryError', 'DualEraHttpHandler', 'EraRouter', 'ErrorCode', 'ErrorObject', 'EventStore', 'FallbackHttpClientTransport', 'FollowEnd', 'HttpClientTransport', 'HttpStatusError', 'Implementation', 'InMemoryTaskStore', 'InvalidResultError', 'JSONRPCMessage', 'LegacySseClientOptions', 'LegacySseClientTransport', 'LegacySseHandler', 'LegacySseOptions', 'LegacySseServerTransport', 'LogLevel', 'LoopbackRedirect', 'LoopbackRedirectOptions', 'MemoryEventStore', 'MemoryNotificationBus', 'MemorySessionRegistry', 'MemorySessionStore', 'MemoryTokenStore', 'MemoryTransport', 'MessageInfo', 'MethodEntry', 'NotJsonRpcError', 'NotificationBus', 'OAuthClientOptions', 'OAuthFetch', 'OutputSchemaError', 'ParamHeader', 'Peer', 'PeerOptions', 'ProtectedResourceMetadata', 'ProtocolMaps', 'ProtocolTable', 'RequestAbortedError', 'RequestContext', 'RequestOptions', 'RequestStateSealer', 'RequestTimeoutError', 'ResourceMetadataEndpoint', 'RpcError', 'SchemaEngine', 'ServerDescription', 'ServerFeatures', 'ServerSession', 'ServerSessionOptions', 'SessionExpiredError', 'SessionInfo', 'SessionLimitError', 'SessionRecord', 'SessionRegistry', 'SessionStore', 'SessionStoreOptions', 'SharedEventStore', 'SharedSessions', 'StatelessHttpClientTransport', 'StatelessHttpHandler', 'StatelessHttpOptions', 'StatelessHttpServerTransport', 'StdioClientOptions', 'StdioClientTransport', 'StdioServerOptions', 'StdioServerTransport', 'StoredTokens', 'Subscription', 'SubscriptionFilter', 'TASKS_EXTENSION', 'Task', 'TaskCancelledError', 'TaskContext', 'TaskHandle', 'TaskNotSupportedError', 'TaskReceiver', 'TaskReceiverOptions', 'TaskStatus', 'TaskStore', 'TaskSupport', 'TasksExtension', 'TasksExtensionClient', 'TasksExtensionClientOptions', 'TasksExtensionOptions', 'TokenStore', 'Transport', 'TransportEvents', 'UnsupportedVersionError', 'UserAgent', 'WriteQueueFullError', 'attachTaskReceiver', 'batchProtocolVersions', 'bearerAuth', 'bearerChallenge', 'callWithTask', 'capabilitiesOf', 'codeGenerationAllowed', 'connectHttp', 'continueAfterChecks', 'createDualEraHttpHandler', 'createLegacySseHandler', 'createMemoryPair', 'createStatelessHttpHandler', 'createStreamableHttpHandler', 'declaresTasksExtension', 'decodeHeaderValue', 'discoverAuthorizationServer', 'discoverResourceMetadata', 'encodeHeaderValue', 'inputRequest', 'inputRequired', 'isCreateTaskResult', 'isModernRequest', 'oauthFetch', 'paginate', 'paramHeaders', 'parseBearerChallenge', 'protectedResourceMetadata', 'readInput', 'requireClientCapabilities', 'resourceMetadataEndpoint', 'resourceMetadataUrl', 'schemaEngine', 'startLoopbackRedirect', 'taskOf', 'useSchemaEngine'];
const WEB = ['Cancel', 'CapabilityNotDeclaredError', 'CapabilityShape', 'ClientSession', 'ClientSessionOptions', 'ConnectionClosedError', 'Cors', 'CorsOptions', 'CreateTaskResult', 'DEFAULT_EXPOSED_HEADERS', 'DetailedTask', 'DualEraHttpHandler', 'EraRouter', 'ErrorCode', 'ErrorObject', 'HttpClientTransport', 'HttpClientTransportOptions', 'HttpReply', 'HttpRequestInit', 'HttpStatusError', 'Implementation', 'InMemoryTaskStore', 'InvalidResultError', 'JSONRPCMessage', 'LogLevel', 'MemoryEventStore', 'MemorySessionRegistry', 'MemoryTransport', 'MessageInfo', 'MethodEntry', 'OutputSchemaError', 'ParamHeader', 'Peer', 'PeerOptions', 'ProtocolMaps', 'ProtocolTable', 'ReconnectOptions', 'RequestAbortedError', 'RequestContext', 'RequestOptions', 'RequestStateSealer', 'RequestTimeoutError', 'Requester', 'RpcError', 'SchemaEngine', 'ServerDescription', 'ServerFeatures', 'ServerSession', 'ServerSessionOptions', 'SessionExpiredError', 'SessionRegistry', 'StatelessClientIo', 'StatelessHttpClientOptions', 'StatelessHttpClientTransport', 'StatelessHttpHandler', 'StatelessHttpOptions', 'StatelessHttpServerTransport', 'StreamableHttpHandler', 'StreamableHttpOptions', 'Subscription', 'SubscriptionFilter', 'TASKS_EXTENSION', 'Task', 'TaskCancelledError', 'TaskContext', 'TaskHandle', 'TaskNotSupportedError', 'TaskReceiver', 'TaskReceiverOptions', 'TaskStatus', 'TaskStore', 'TaskSupport', 'TasksExtension', 'TasksExtensionClient', 'TasksExtensionClientOptions', 'TasksExtensionOptions', 'Transport', 'TransportEvents', 'UnsupportedVersionError', 'attachTaskReceiver', 'batchProtocolVersions', 'callWithTask', 'capabilitiesOf', 'codeGenerationAllowed', 'createDualEraHttpHandler', 'createMemoryPair', 'createStatelessHttpHandler', 'createStreamableHttpHandler', 'declaresTasksExtension', 'decodeHeaderValue', 'encodeHeaderValue', 'inputRequest', 'inputRequired', 'isCreateTaskResult', 'isModernRequest', 'paginate', 'paramHeaders', 'readInput', 'requireClientCapabilities', 'schemaEngine', 'taskOf', 'useSchemaEngine'];

/** Every name (values and types) a module exports, as the compiler sees it. */
function exportedNames(files: string[]): Map<string, string[]> {
  const program = ts.createProgram(files, { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022, strict: true, noEmit: true, skipLibCheck: true, types: [] });
  const checker = program.getTypeChecker();
  return new Map(files.map((f) => [f, checker.getExportsOfModule(checker.getSymbolAtLocation(program.getSourceFile(f)!)!).map((s) => s.name).sort()]));
}

test('the export names of both entries, values and types', () => {
  const index = `${root}runtime/index.ts`;
  const web = `${root}runtime/web.ts`;
  const names = exportedNames([index, web]);
  assert.equal(names.get(index), INDEX);
  assert.equal(names.get(web), WEB);
});

test('shared names are one binding; the HTTP client transports differ by entry', () => {
  const node = nodeEntry as Record<string, unknown>;
  const web = webEntry as Record<string, unknown>;
  const clients = new Set(['HttpClientTransport', 'HttpStatusError', 'SessionExpiredError', 'StatelessHttpClientTransport']);
  const shared = Object.keys(web).filter((k) => k in node);
  assert.ok(shared.length > 40, `${shared.length} shared values`);
  for (const k of shared) if (!clients.has(k)) assert.is(node[k], web[k], k);
  assert.is(node.HttpClientTransport, nodeSession.HttpClientTransport);
  assert.is(web.HttpClientTransport, fetchSession.HttpClientTransport);
  assert.is(node.StatelessHttpClientTransport, nodeStateless.StatelessHttpClientTransport);
  assert.is(web.StatelessHttpClientTransport, fetchStateless.StatelessHttpClientTransport);
  assert.is.not(node.HttpClientTransport, web.HttpClientTransport);
});

test.run();
