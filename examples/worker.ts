// A stateless MCP server (2026-07-28) as a `fetch` handler: the module a Cloudflare Worker (or
// Deno, Bun, any runtime with Request/Response) serves. README "Deploying a server to a worker";
// bundled and run in workerd, Bun and Deno by test/web/.
import { Server, table } from '../generated/2026-07-28/index.js';
import {
  createStatelessHttpHandler,
  inputRequest,
  inputRequired,
  RequestStateSealer,
  ServerFeatures,
  type RequestContext,
  type StatelessHttpHandler,
} from '../runtime/web.js';
import {
  bearerAuth,
  type BearerAuthOptions,
  protectedResourceMetadata,
  type ResourceMetadataEndpoint,
  resourceMetadataEndpoint,
} from '../runtime/auth/web.js';

/** Bindings of the worker: a `requestState` secret shared by every instance, the public host names. */
export interface Env {
  MCP_REQUEST_STATE_SECRET?: string;
  /** Comma-separated Host values to accept (default: loopback names, for local runs). */
  MCP_ALLOWED_HOSTS?: string;
  /** Comma-separated browser origins allowed by CORS (default: none). */
  MCP_CORS_ORIGINS?: string;
  /**
   * Protect `/mcp` (2025-11-25 basic/authorization): bearer or DPoP-bound tokens of this issuer
   * for `MCP_AUTH_RESOURCE` (the worker's public `/mcp` URL), checked against `MCP_AUTH_JWKS`
   * (the issuer's key set as JSON, or its URL; default the issuer metadata's `jwks_uri`).
   */
  MCP_AUTH_ISSUER?: string;
  MCP_AUTH_RESOURCE?: string;
  MCP_AUTH_JWKS?: string;
}

const text = (t: string) => ({ content: [{ type: 'text' as const, text: t }] });
const list = (s: string | undefined) =>
  s
    ? s
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean)
    : undefined;

/** The token check and the protected resource metadata of a protected worker (see {@link Env}). */
function protection(env: Env): { authorize: ReturnType<typeof bearerAuth>; metadata: ResourceMetadataEndpoint } {
  const resource = env.MCP_AUTH_RESOURCE;
  if (!env.MCP_AUTH_ISSUER || !resource) throw new Error('MCP_AUTH_ISSUER needs MCP_AUTH_RESOURCE');
  const jwks = env.MCP_AUTH_JWKS?.trim().startsWith('{')
    ? (JSON.parse(env.MCP_AUTH_JWKS) as BearerAuthOptions['jwks'])
    : env.MCP_AUTH_JWKS;
  return {
    // DPoP-bound tokens too (RFC 9449); proof ids are remembered by this isolate: give every
    // instance one shared ReplayStore (dpop.replay) where several serve one URL
    authorize: bearerAuth({ resource, issuer: env.MCP_AUTH_ISSUER, jwks, dpop: {} }),
    metadata: resourceMetadataEndpoint(
      protectedResourceMetadata({ resource, authorizationServers: [env.MCP_AUTH_ISSUER] }),
    ),
  };
}

function createServer(env: Env, authorize?: ReturnType<typeof bearerAuth>): StatelessHttpHandler {
  const sealer = new RequestStateSealer({ secret: env.MCP_REQUEST_STATE_SECRET });
  const features = new ServerFeatures();
  features.tool({
    name: 'add',
    description: 'Adds two numbers',
    inputSchema: {
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      required: ['a', 'b'],
      additionalProperties: false,
    },
    outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] },
    handler: (args: { a: number; b: number }) => ({
      ...text(String(args.a + args.b)),
      structuredContent: { sum: args.a + args.b },
    }),
  });
  features.tool({
    name: 'count',
    description: 'Counts to `to`, one progress notification per step',
    inputSchema: { type: 'object', properties: { to: { type: 'integer', minimum: 1, maximum: 20 } }, required: ['to'] },
    handler: async (args: { to: number }, ctx: RequestContext) => {
      for (let i = 1; i <= args.to; i++) await ctx.sendProgress(i, args.to, `step ${i}`);
      return text(`counted to ${args.to}`);
    },
  });
  features.tool({
    name: 'greet',
    description:
      'Asks for a name (input_required round), then for a mood (second round, name in the sealed requestState)',
    handler: (_args, ctx: RequestContext) => {
      const responses = (ctx.params?.inputResponses ?? {}) as Record<
        string,
        { action?: string; content?: Record<string, unknown> }
      >;
      const state = sealer.open<{ name: string }>(ctx);
      if (!state) {
        const name = responses.name?.content?.name;
        if (typeof name !== 'string')
          return inputRequired({
            inputRequests: {
              name: inputRequest.elicit({
                message: 'Your name?',
                requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
              }),
            },
          }) as never;
        return inputRequired({
          inputRequests: {
            mood: inputRequest.elicit({
              message: `How are you, ${name}?`,
              requestedSchema: { type: 'object', properties: { mood: { type: 'string' } }, required: ['mood'] },
            }),
          },
          requestState: sealer.seal(ctx, { name }),
        }) as never;
      }
      const mood = responses.mood?.content?.mood;
      return text(`Hello ${state.name}, glad you are ${typeof mood === 'string' ? mood : 'here'}!`);
    },
  });
  features.tool({
    name: 'add_tool',
    description: 'Registers the tool `extra` (listen streams get notifications/tools/list_changed)',
    handler: () => {
      features.tool({ name: 'extra', description: 'Added at run time', handler: () => text('extra') });
      return text('added');
    },
  });
  const handler = createStatelessHttpHandler({
    tables: [table as never],
    toolSchema: (name) => features.inputSchema(name),
    allowedHosts: list(env.MCP_ALLOWED_HOSTS),
    cors: env.MCP_CORS_ORIGINS ? { allowedOrigins: list(env.MCP_CORS_ORIGINS)! } : undefined,
    authorize,
  });
  const server = new Server({
    serverInfo: { name: 'worker-example', version: '1.0.0' },
    capabilities: features.capabilities() as never,
    handlers: features.handlers({ table: table as never }) as never,
  });
  features.attach(server as never);
  void server.connect(handler.transport);
  return handler;
}

let handler: StatelessHttpHandler | undefined;
let guard: ReturnType<typeof protection> | undefined;

export default {
  /**
   * The worker's entry: `/mcp` is the MCP endpoint, with `MCP_AUTH_ISSUER` also the protected
   * resource metadata at `/.well-known/oauth-protected-resource/mcp`; anything else 404.
   */
  fetch(request: Request, env: Env = {}): Promise<Response> | Response {
    if (env.MCP_AUTH_ISSUER) guard ??= protection(env);
    const path = new URL(request.url).pathname;
    if (guard?.metadata.handles(path)) return guard.metadata.fetch(request);
    if (path !== '/mcp') return new Response('Not Found: the MCP endpoint is /mcp\n', { status: 404 });
    handler ??= createServer(env, guard?.authorize);
    return handler.fetch(request);
  },
};
