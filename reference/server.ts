// size: the reference fixtures of the conformance scenarios, one per scenario
/**
 * The reference server behind `mcpgen serve`: a small set of tools, resources and prompts with
 * well-known names (the ones MCP conformance suites exercise), built on {@link ServerFeatures}
 * and the generated `Server` of any handshake revision. {@link referenceDefinition} builds it
 * once for any number of sessions (what `mcpgen serve --http` does per endpoint);
 * {@link createReferenceServer} makes a single session.
 *
 * Tools of every revision: `echo`, `test_simple_text`, `test_image_content`, `test_audio_content`,
 * `test_embedded_resource`, `test_multiple_content_types`, `json_schema_2020_12_tool`,
 * `test_tool_with_progress`, `test_error_handling`. Handshake revisions (a session, 2025-11-25
 * and earlier) add `test_reconnection`, `test_tool_with_logging`, `test_sampling`,
 * `test_elicitation`, `test_elicitation_sep1034_defaults`, `test_elicitation_sep1330_enums`:
 * server→client requests and a resumable SSE connection have no stateless counterpart under
 * these names, so a stateless revision lists its own instead (./stateless.ts). Progress and log
 * messages of a call go out on behalf of its request (`ctx.sendProgress`, `ctx.log`: over
 * Streamable HTTP on the request's own stream).
 * Resources: `test://static-text`, `test://static-binary`, `test://watched-resource`
 * (subscribable), template `test://template/{id}/data`.
 * Prompts: `test_simple_prompt`, `test_prompt_with_arguments` (arguments `arg1`, `arg2`),
 * `test_prompt_with_embedded_resource` (argument `resourceUri`), `test_prompt_with_image`.
 * Handshake revisions whose table has task-augmented tools/call (2025-11-25) add the task tools
 * of ./tasks.ts (`slow_compute`, `failing_job`, `confirm_job`, `batch_job`) and a task
 * receiver per session; stateless revisions add the fixtures of ../examples/reference-stateless.ts.
 */
import { type FeaturesTableInfo, ServerFeatures } from '@mcpgen/runtime/features';
import type { Logger } from '@mcpgen/runtime/engine';
import type { RequestContext, RequestHandler } from '@mcpgen/runtime/engine';
import type { Params, RequestId } from '@mcpgen/runtime/jsonrpc';
import type { TaskStore } from '@mcpgen/runtime/tasks';
import type { NotificationBus } from '@mcpgen/runtime/stores';
import { addStatelessFixtures, addTaskFixtures } from './stateless.js';
import { ReferenceTasks, addTaskTools, hasTaskTools, requestFailure } from './tasks.js';
import type { ServerSession, ServerSessionOptions } from '@mcpgen/runtime/session';
import type { ProtocolMaps, ProtocolTable } from '@mcpgen/runtime/protocol';
import type { TasksExtension } from '@mcpgen/runtime/tasks';

/** A generated `Server` class (e.g. `generated/2025-11-25`'s). */
// biome-ignore lint/suspicious/noExplicitAny: any options type: a generated class's constructor takes its own revision's
export type ServerClass = new (options: ServerSessionOptions<any>) => ServerSession<ProtocolMaps>;

/** A 1×1 transparent PNG. */
export const PNG_1X1 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';
export const STATIC_TEXT = 'This is the content of the static text resource.';
/** A 1 ms, 8 kHz, 8-bit mono WAV of silence. */
export const WAV_SILENCE = 'UklGRiwAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQgAAACAgICAgICAgA==';

/** Options of the reference server. */
export interface ReferenceOptions {
  /** Pause between the steps of the progress and logging tools, ms (default 10). */
  progressDelayMs?: number;
  /**
   * Streamable HTTP: closes the SSE connection of the request `ctx` serves without ending its
   * stream (the `HttpServerSession.closeSseConnection` of the session `ctx.info.sessionId`);
   * `test_reconnection` uses it.
   */
  closeSseConnection?: (requestId: RequestId, ctx: RequestContext) => Promise<void>;
  /** Serve the task tools of ./tasks.ts when the table has tasks (default true). */
  taskTools?: boolean;
  /** Stateless: the bus carrying list_changed / resources/updated to the listen streams of other processes (ServerSessionOptions.listenBus). */
  listenBus?: NotificationBus;
  /** Where the task tools keep their tasks (default: an `InMemoryTaskStore`; several processes share a `RedisTaskStore`). */
  taskStore?: TaskStore;
  /**
   * Older handshake tables a session also answers `initialize` with when the client asks for
   * their version (2025-11-25 basic/lifecycle, "Version Negotiation"); newest first.
   */
  fallbackTables?: readonly ProtocolTable[];
  /**
   * Stateless revisions: the HMAC secret of `requestState` (≥ 32 bytes; default random per
   * session). Processes serving one endpoint share it (ServerSessionOptions.requestStateSecret).
   */
  requestStateSecret?: string | Uint8Array;
  /** Adds further tools, resources or prompts to the reference ones (a test's own fixtures). */
  extend?: (features: ServerFeatures) => void;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const text = (t: string) => ({ content: [{ type: 'text', text: t }] });

/** The session a request belongs to (the engine passes it as `ctx.session`). */
const sessionOf = (ctx: RequestContext): ServerSession<ProtocolMaps> => {
  if (!ctx.session) throw new Error('the reference server needs its ServerSession as ctx.session');
  return ctx.session as ServerSession<ProtocolMaps>;
};

/**
 * The features of the reference server: one definition that any number of sessions share (tool
 * handlers reach their own session as `ctx.session`). `era.lifecycle` is the served table's
 * (`'stateless'`: without the handshake-only fixtures; default: a handshake revision).
 */
// size: the reference tools, resources and prompts, one registration each
export function referenceFeatures(options: ReferenceOptions = {}, era: { lifecycle?: string } = {}): ServerFeatures {
  const delay = options.progressDelayMs ?? 10;
  // a stateless revision has no session: its own fixtures (./stateless.ts) stand for these
  const handshake = era.lifecycle !== 'stateless';
  const f = new ServerFeatures();
  f.tool<{ text?: string }>({
    name: 'echo',
    description: 'Echoes the text argument',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    handler: (a) => text(String(a.text)),
  });
  f.tool({
    name: 'test_simple_text',
    description: 'Returns a simple text response',
    handler: () => text('This is a simple text response for testing.'),
  });
  f.tool({
    name: 'test_image_content',
    description: 'Returns an image',
    handler: () => ({ content: [{ type: 'image', data: PNG_1X1, mimeType: 'image/png' }] }),
  });
  f.tool({
    name: 'test_audio_content',
    description: 'Returns audio',
    handler: () => ({ content: [{ type: 'audio', data: WAV_SILENCE, mimeType: 'audio/wav' }] }),
  });
  const embedded = {
    type: 'resource',
    resource: {
      uri: 'test://embedded-resource',
      mimeType: 'text/plain',
      text: 'This is an embedded resource content.',
    },
  };
  f.tool({
    name: 'test_embedded_resource',
    description: 'Returns an embedded resource',
    handler: () => ({ content: [embedded] }),
  });
  f.tool({
    name: 'test_multiple_content_types',
    description: 'Returns text, an image and an embedded resource',
    handler: () => ({
      content: [
        { type: 'text', text: 'Multiple content types test:' },
        { type: 'image', data: PNG_1X1, mimeType: 'image/png' },
        {
          type: 'resource',
          resource: {
            uri: 'test://mixed-content-resource',
            mimeType: 'application/json',
            text: JSON.stringify({ test: 'data', value: 123 }),
          },
        },
      ],
    }),
  });
  f.tool({
    name: 'json_schema_2020_12_tool',
    description: 'Tool with JSON Schema 2020-12 features',
    inputSchema: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      $defs: { address: { type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } } },
      properties: { name: { type: 'string' }, address: { $ref: '#/$defs/address' } },
      additionalProperties: false,
    },
    handler: (a) => text(`JSON Schema 2020-12 tool called with: ${JSON.stringify(a)}`),
  });
  f.tool({
    name: 'test_tool_with_progress',
    description: 'Reports progress 0, 50, 100 of 100, then returns',
    handler: async (_a, ctx) => {
      for (const p of [0, 50, 100]) {
        await ctx.sendProgress(p, 100, `Completed step ${p / 50 + 1} of 3`);
        // The pause after the last step too: a client that dispatches notifications a tick later
        // than responses (the TypeScript SDK) drops progress read in the same chunk as the result.
        await sleep(delay);
      }
      return text('Progress completed');
    },
  });
  f.tool({
    name: 'test_error_handling',
    description: 'Always fails with a tool execution error',
    handler: () => ({ ...text('This tool intentionally returns an error for testing'), isError: true }),
  });
  if (handshake) addSessionFixtures(f, options, delay);
  f.resource({
    uri: 'test://static-text',
    name: 'static-text',
    title: 'Static Text Resource',
    mimeType: 'text/plain',
    text: STATIC_TEXT,
  });
  f.resource({
    uri: 'test://static-binary',
    name: 'static-binary',
    title: 'Static Binary Resource',
    mimeType: 'image/png',
    blob: PNG_1X1,
  });
  f.resource({
    uri: 'test://watched-resource',
    name: 'watched-resource',
    title: 'Watched Resource',
    description: 'A resource clients may subscribe to',
    mimeType: 'text/plain',
    text: 'Watched resource content',
  });
  f.resourceTemplate({
    uriTemplate: 'test://template/{id}/data',
    name: 'template',
    title: 'Resource Template',
    mimeType: 'application/json',
    read: (uri, v) => [
      {
        uri,
        mimeType: 'application/json',
        text: JSON.stringify({ id: v.id, templateTest: true, data: `Data for ID: ${v.id}` }),
      },
    ],
    complete: { id: (value) => ['1', '2', '3', '42'].filter((x) => x.startsWith(value)) },
  });
  f.prompt({
    name: 'test_simple_prompt',
    description: 'A prompt without arguments',
    get: () => [{ role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } }],
  });
  f.prompt({
    name: 'test_prompt_with_arguments',
    description: 'A prompt with two required arguments',
    arguments: [
      {
        name: 'arg1',
        description: 'First test argument',
        required: true,
        complete: (v) => ['alpha', 'beta', 'gamma'].filter((x) => x.startsWith(v)),
      },
      { name: 'arg2', description: 'Second test argument', required: true },
    ],
    get: (a) => [
      { role: 'user', content: { type: 'text', text: `Prompt with arguments: arg1='${a.arg1}', arg2='${a.arg2}'` } },
    ],
  });
  f.prompt({
    name: 'test_prompt_with_embedded_resource',
    description: 'A prompt that embeds the resource named by its argument',
    arguments: [{ name: 'resourceUri', description: 'URI of the resource to embed', required: true }],
    get: (a) => [
      {
        role: 'user',
        content: {
          type: 'resource',
          resource: { uri: a.resourceUri, mimeType: 'text/plain', text: 'Embedded resource content for testing.' },
        },
      },
      { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } },
    ],
  });
  f.prompt({
    name: 'test_prompt_with_image',
    description: 'A prompt with an image',
    get: () => [
      { role: 'user', content: { type: 'image', data: PNG_1X1, mimeType: 'image/png' } },
      { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
    ],
  });
  options.extend?.(f);
  return f;
}

/**
 * The fixtures that need a handshake revision's session: server→client requests (sampling,
 * elicitation), a resumable SSE connection, and logging at the session's level. A stateless
 * revision's counterparts are in ./stateless.ts (`test_input_required_result_*`,
 * `test_logging_tool`).
 */
// size: the session-only fixtures, one registration each
function addSessionFixtures(f: ServerFeatures, options: ReferenceOptions, delay: number): void {
  f.tool({
    name: 'test_reconnection',
    description: 'Closes the SSE connection of its own request mid-call; the result arrives after the client resumes',
    handler: async (_a, ctx) => {
      const close = options.closeSseConnection;
      if (!close) return text('Reconnection test completed (no SSE connection to close on this transport)');
      // a related notification first: the reply becomes an SSE stream (primed, so resumable)
      await ctx.sendNotification('notifications/message', {
        level: 'info',
        logger: 'reference-server',
        data: 'closing the SSE connection',
      });
      await close(ctx.requestId, ctx);
      await sleep(100);
      return text('Reconnection test completed successfully');
    },
  });

  f.tool({
    name: 'test_tool_with_logging',
    description: 'Sends three log messages (info) on behalf of its request while running',
    handler: async (_a, ctx) => {
      // on behalf of its request (relatedRequestId): over Streamable HTTP on the request's own
      // stream, not the session's standalone GET stream (2025-11-25 basic/transports)
      for (const m of ['Tool execution started', 'Tool processing data', 'Tool execution completed']) {
        await ctx.log('info', m, 'reference-server');
        await sleep(delay);
      }
      return text('Logging completed');
    },
  });

  f.tool<{ prompt?: string }>({
    name: 'test_sampling',
    description: 'Asks the client to sample an LLM with the prompt argument',
    inputSchema: { type: 'object', properties: { prompt: { type: 'string' } }, required: ['prompt'] },
    handler: async (a, ctx) => {
      try {
        const r = (await sessionOf(ctx).request(
          'sampling/createMessage' as never,
          {
            messages: [{ role: 'user', content: { type: 'text', text: a.prompt } }],
            maxTokens: 100,
          } as never,
          { relatedRequestId: ctx.requestId, signal: ctx.signal },
        )) as { content?: { type?: string; text?: string } };
        return text(`LLM response: ${r.content?.type === 'text' ? r.content.text : JSON.stringify(r.content)}`);
      } catch (e) {
        return { ...text(`Sampling failed: ${requestFailure(e)}`), isError: true };
      }
    },
  });

  f.tool<{ message?: string }>({
    name: 'test_elicitation',
    description: 'Asks the user for a username and an email through elicitation',
    inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
    handler: async (a, ctx) => {
      try {
        const r = (await sessionOf(ctx).request(
          'elicitation/create' as never,
          {
            message: a.message,
            requestedSchema: {
              type: 'object',
              properties: {
                username: { type: 'string', description: "User's response" },
                email: { type: 'string', description: "User's email address" },
              },
              required: ['username', 'email'],
            },
          } as never,
          { relatedRequestId: ctx.requestId, signal: ctx.signal },
        )) as { action: string; content?: unknown };
        return text(`User response: action=${r.action}${r.content ? `, content=${JSON.stringify(r.content)}` : ''}`);
      } catch (e) {
        return { ...text(`Elicitation failed: ${requestFailure(e)}`), isError: true };
      }
    },
  });

  const elicit = async (ctx: RequestContext, message: string, requestedSchema: Record<string, unknown>) => {
    try {
      const r = (await sessionOf(ctx).request('elicitation/create' as never, { message, requestedSchema } as never, {
        relatedRequestId: ctx.requestId,
        signal: ctx.signal,
      })) as { action: string; content?: unknown };
      return text(
        `Elicitation completed: action=${r.action}${r.content ? `, content=${JSON.stringify(r.content)}` : ''}`,
      );
    } catch (e) {
      return { ...text(`Elicitation failed: ${requestFailure(e)}`), isError: true };
    }
  };
  f.tool({
    name: 'test_elicitation_sep1034_defaults',
    description: 'Elicitation whose fields carry default values (SEP-1034)',
    handler: (_a, ctx) =>
      elicit(ctx, 'Please review and update the form fields with defaults', {
        type: 'object',
        properties: {
          name: { type: 'string', description: 'User name', default: 'John Doe' },
          age: { type: 'integer', description: 'User age', default: 30 },
          score: { type: 'number', description: 'User score', default: 95.5 },
          status: {
            type: 'string',
            description: 'User status',
            enum: ['active', 'inactive', 'pending'],
            default: 'active',
          },
          verified: { type: 'boolean', description: 'Verification status', default: true },
        },
        required: [],
      }),
  });
  f.tool({
    name: 'test_elicitation_sep1330_enums',
    description: 'Elicitation with every enum schema form (SEP-1330)',
    handler: (_a, ctx) =>
      elicit(ctx, 'Please select options from the enum fields', {
        type: 'object',
        properties: {
          untitledSingle: { type: 'string', description: 'Select one option', enum: ['option1', 'option2', 'option3'] },
          titledSingle: {
            type: 'string',
            description: 'Select one option with titles',
            oneOf: [
              { const: 'value1', title: 'First Option' },
              { const: 'value2', title: 'Second Option' },
              { const: 'value3', title: 'Third Option' },
            ],
          },
          legacyEnum: {
            type: 'string',
            description: 'Select one option (legacy)',
            enum: ['opt1', 'opt2', 'opt3'],
            enumNames: ['Option One', 'Option Two', 'Option Three'],
          },
          untitledMulti: {
            type: 'array',
            description: 'Select multiple options',
            minItems: 1,
            maxItems: 3,
            items: { type: 'string', enum: ['option1', 'option2', 'option3'] },
          },
          titledMulti: {
            type: 'array',
            description: 'Select multiple options with titles',
            minItems: 1,
            maxItems: 3,
            items: {
              anyOf: [
                { const: 'value1', title: 'First Choice' },
                { const: 'value2', title: 'Second Choice' },
                { const: 'value3', title: 'Third Choice' },
              ],
            },
          },
        },
        required: [],
      }),
  });
}

/** A reference server definition: shared by every session created from it. */
export interface ReferenceDefinition {
  features: ServerFeatures;
  /** The task store and receivers of the task tools (revisions with tasks only). */
  tasks?: ReferenceTasks;
  /** The options every session gets (one object: handler tables, capabilities, info). */
  options: ServerSessionOptions<ProtocolMaps>;
  /** A new session (attached to `features` for list_changed until it closes); connect it to a transport. */
  createSession(): ServerSession<ProtocolMaps>;
}

/**
 * The reference server's definition on a generated `Server` class (pass the revision's `table`
 * for stateless revisions): features, handler tables and session options are built once;
 * each `createSession()` allocates only the session's own state.
 */
export function referenceDefinition(
  ServerCtor: ServerClass,
  options: ReferenceOptions & { logger?: Logger; table?: FeaturesTableInfo } = {},
): ReferenceDefinition {
  // the full table when given, else the one the generated class is built on
  const table =
    options.table && 'requests' in options.table
      ? (options.table as ProtocolTable)
      : new ServerCtor({ serverInfo: { name: 'probe', version: '0' } }).ownTable;
  const features = referenceFeatures(options, { lifecycle: options.table?.lifecycle ?? table.lifecycle });
  const taskTools =
    options.taskTools !== false && hasTaskTools(table) ? new ReferenceTasks(table, options.taskStore) : undefined;
  if (taskTools) addTaskTools(features);
  let handlers = features.handlers({ table: options.table });
  if (taskTools) handlers = taskTools.handlers(handlers as Record<string, RequestHandler>) as typeof handlers;
  let tasks: TasksExtension | undefined;
  if (options.table?.lifecycle === 'stateless') {
    // the fixtures read a retry's inputResponses and requestState beside the tool's arguments
    const params = new WeakMap<RequestContext, Params>();
    addStatelessFixtures(features, (ctx) => params.get(ctx));
    tasks = addTaskFixtures(features, options.table as ProtocolTable, (ctx) => params.get(ctx));
    handlers = tasks.handlers(
      Object.fromEntries(
        Object.entries(handlers).map(([method, h]) => [
          method,
          (p: Params, ctx: RequestContext) => {
            if (p) params.set(ctx, p);
            return h(p, ctx);
          },
        ]),
      ),
    );
  }
  const sessionOptions: ServerSessionOptions<ProtocolMaps> = {
    serverInfo: { name: 'mcpgen-reference-server', version: '0.1.0' },
    capabilities: {
      ...(tasks ? tasks.capabilities(features.capabilities()) : features.capabilities()),
      ...(taskTools ? { tasks: taskTools.capabilities() } : {}),
      logging: {},
    },
    extensionMethods: tasks?.methods,
    instructions: 'mcpgen reference server: test tools, resources and prompts.',
    handlers: handlers as ServerSessionOptions<ProtocolMaps>['handlers'],
    fallbackTables: options.fallbackTables,
    logger: options.logger,
    ...(options.requestStateSecret === undefined ? {} : { requestStateSecret: options.requestStateSecret }),
    ...(options.listenBus ? { listenBus: options.listenBus } : {}),
  };
  return {
    features,
    tasks: taskTools,
    options: sessionOptions,
    createSession() {
      const session = new ServerCtor(sessionOptions);
      features.attach(session as never);
      return session;
    },
  };
}

/**
 * Creates one reference server on a generated `Server` class (pass the revision's `table` for
 * stateless revisions); connect it to a transport. Many sessions: {@link referenceDefinition}.
 */
export function createReferenceServer(
  ServerCtor: ServerClass,
  options: ReferenceOptions & { logger?: Logger; table?: FeaturesTableInfo } = {},
): { server: ServerSession<ProtocolMaps>; features: ServerFeatures } {
  const d = referenceDefinition(ServerCtor, options);
  return { server: d.createSession(), features: d.features };
}
