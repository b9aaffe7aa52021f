// size: the stateless reference fixtures, one per conformance scenario
/**
 * The reference server's fixtures for stateless revisions (2026-07-28, draft): multi round-trip
 * requests (`input_required`), per-request client capabilities and log level, list changes for
 * listen streams. The names are the ones the MCP conformance suite's 2026-07-28 scenarios call.
 *
 * Tools: `json_schema_2020_12_tool` (replaced: the 2020-12 vocabulary with `$anchor`,
 * composition and conditionals), `test_missing_capability` (needs `sampling`), `test_streaming_elicitation`,
 * `test_logging_tool`, `test_trigger_tool_change`, `test_trigger_prompt_change`,
 * `test_x_mcp_header`, `test_input_required_result_{elicitation,sampling,list_roots,
 * request_state,multiple_inputs,multi_round,tampered_state,capabilities}`.
 * Prompt: `test_input_required_result_prompt`.
 *
 * Tasks extension (SEP-2663, ../runtime/tasks/extension.ts; {@link addTaskFixtures}): `greet`
 * (never a task), `slow_compute` (`seconds` of sleep, 0 to 60, cancellable), `failing_job` (task required;
 * a tool execution error after about 1 s), `protocol_error_job` (fails with -32603),
 * `confirm_delete` (one elicitation through the task), `multi_input` (two elicitations at once),
 * `test_tool_with_task` (task required; asks for `user_name` by input_required first, then
 * answers through a task).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { RequestContext } from '@mcpgen/runtime/engine';
import { MAX_SLOW_COMPUTE_SECONDS, slowComputeSeconds } from './tasks.js';
import { ErrorCode, RpcError } from '@mcpgen/runtime/jsonrpc';
import type { ServerFeatures } from '@mcpgen/runtime/features';
import type { Params } from '@mcpgen/runtime/jsonrpc';
import type { ProtocolTable } from '@mcpgen/runtime/protocol';
import { TasksExtension } from '@mcpgen/runtime/tasks';
import {
  clientCapabilitiesOf,
  inputRequest,
  inputRequired,
  type InputRequests,
  readInput,
  RequestStateSealer,
  requireClientCapabilities,
} from '@mcpgen/runtime/stateless';

type Obj = Record<string, unknown>;
const text = (t: string) => ({ content: [{ type: 'text', text: t }] });
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

const LOG_LEVEL_META = 'io.modelcontextprotocol/logLevel';

/** The content of an accepted elicitation answer, or undefined (declined, cancelled, malformed). */
function accepted(answer: unknown): Obj | undefined {
  return isObj(answer) && answer.action === 'accept' && isObj(answer.content) ? answer.content : undefined;
}

/** The text of a sampling answer (CreateMessageResult), or undefined. */
function sampled(answer: unknown): string | undefined {
  if (!isObj(answer)) return undefined;
  const c = Array.isArray(answer.content) ? answer.content[0] : answer.content;
  return isObj(c) && c.type === 'text' && typeof c.text === 'string' ? c.text : undefined;
}

/** The roots of a roots/list answer (ListRootsResult), or undefined. */
function rootsOf(answer: unknown): Obj[] | undefined {
  return isObj(answer) && Array.isArray(answer.roots) ? answer.roots.filter(isObj) : undefined;
}

const askName = (message = 'What is your name?') =>
  inputRequest.elicit({
    message,
    requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
  });
const askConfirm = () =>
  inputRequest.elicit({
    message: 'Please confirm',
    requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
  });
const askCapital = () =>
  inputRequest.sample({
    messages: [{ role: 'user', content: { type: 'text', text: 'What is the capital of France?' } }],
    maxTokens: 100,
  });

/**
 * Adds the stateless fixtures to `f`. `paramsOf(ctx)` gives a request's full params (the
 * retry's `inputResponses` and `requestState` are beside the tool's arguments).
 */
// size: the stateless fixtures, one registration each
export function addStatelessFixtures(f: ServerFeatures, paramsOf: (ctx: RequestContext) => Params | undefined): void {
  // the serving session's sealer (its `requestStateSecret`); each state is bound to its request
  const own = new RequestStateSealer();
  const sealerOf = (ctx: RequestContext): RequestStateSealer =>
    (ctx.session as { requestState?: RequestStateSealer } | undefined)?.requestState ?? own;
  const input = (ctx: RequestContext) => readInput(paramsOf(ctx));

  f.tool({
    name: 'test_missing_capability',
    description: 'Needs the sampling client capability: -32021 unless the request declares it',
    handler: (_a, ctx) => {
      requireClientCapabilities(ctx, { sampling: {} });
      return text('The client declared sampling');
    },
  });
  f.tool({
    name: 'test_streaming_elicitation',
    description: 'Asks for a name through an input_required result (never a request on the response stream)',
    handler: (_a, ctx) => {
      const name = accepted(input(ctx).inputResponses.user_name)?.name;
      if (typeof name !== 'string') return inputRequired({ inputRequests: { user_name: askName() } }) as never;
      return text(`Hello, ${name}!`);
    },
  });
  f.tool({
    name: 'test_logging_tool',
    description: `Logs three messages at info: sent only when the request set _meta["${LOG_LEVEL_META}"] at or below info`,
    handler: async (_a, ctx) => {
      // ctx.log filters by the request's own level (none set: nothing is sent)
      for (const m of ['Tool execution started', 'Tool processing data', 'Tool execution completed'])
        await ctx.log('info', m, 'reference-server');
      return text('Logging completed');
    },
  });
  let toolToggle = false;
  f.tool({
    name: 'test_trigger_tool_change',
    description: 'Adds or removes the tool test_dynamic_tool (tools list_changed)',
    handler: () => {
      toolToggle = !toolToggle;
      if (toolToggle)
        f.tool({
          name: 'test_dynamic_tool',
          description: 'Added by test_trigger_tool_change',
          handler: () => text('dynamic'),
        });
      else f.removeTool('test_dynamic_tool');
      return text(`test_dynamic_tool ${toolToggle ? 'added' : 'removed'}`);
    },
  });
  let promptToggle = false;
  f.tool({
    name: 'test_trigger_prompt_change',
    description: 'Adds or removes the prompt test_dynamic_prompt (prompts list_changed)',
    handler: () => {
      promptToggle = !promptToggle;
      if (promptToggle)
        f.prompt({
          name: 'test_dynamic_prompt',
          description: 'Added by test_trigger_prompt_change',
          get: () => [{ role: 'user', content: { type: 'text', text: 'dynamic' } }],
        });
      else f.removePrompt('test_dynamic_prompt');
      return text(`test_dynamic_prompt ${promptToggle ? 'added' : 'removed'}`);
    },
  });
  f.tool<{ region?: string }>({
    name: 'test_x_mcp_header',
    description: 'Echoes its region argument, mirrored into the Mcp-Param-Region header',
    inputSchema: { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } } },
    handler: (a) => text(`region=${String(a.region)}`),
  });

  // the broader JSON Schema 2020-12 vocabulary of this revision's tool schemas ($anchor, allOf/anyOf, if/then/else)
  f.tool({
    name: 'json_schema_2020_12_tool',
    description: 'Tool with JSON Schema 2020-12 features',
    inputSchema: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      $defs: {
        address: {
          $anchor: 'addressDef',
          type: 'object',
          properties: { street: { type: 'string' }, city: { type: 'string' } },
        },
      },
      properties: {
        name: { type: 'string' },
        address: { $ref: '#/$defs/address' },
        contactMethod: { type: 'string', enum: ['phone', 'email'] },
        phone: { type: 'string' },
        email: { type: 'string' },
      },
      allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
      if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
      then: { required: ['phone'] },
      else: { required: ['email'] },
      additionalProperties: false,
    },
    handler: (a) => text(`JSON Schema 2020-12 tool called with: ${JSON.stringify(a)}`),
  });

  f.tool({
    name: 'test_input_required_result_elicitation',
    description: 'input_required: one elicitation (user_name), then greets',
    handler: (_a, ctx) => {
      const name = accepted(input(ctx).inputResponses.user_name)?.name;
      if (typeof name !== 'string') return inputRequired({ inputRequests: { user_name: askName() } }) as never;
      return text(`Hello, ${name}!`);
    },
  });
  f.tool({
    name: 'test_input_required_result_sampling',
    description: 'input_required: one sampling request (capital_question), then returns the answer',
    handler: (_a, ctx) => {
      const answer = sampled(input(ctx).inputResponses.capital_question);
      if (answer === undefined) return inputRequired({ inputRequests: { capital_question: askCapital() } }) as never;
      return text(`LLM response: ${answer}`);
    },
  });
  f.tool({
    name: 'test_input_required_result_list_roots',
    description: 'input_required: roots/list (client_roots), then names the roots',
    handler: (_a, ctx) => {
      const roots = rootsOf(input(ctx).inputResponses.client_roots);
      if (!roots) return inputRequired({ inputRequests: { client_roots: inputRequest.roots() } }) as never;
      return text(`Client roots: ${roots.map((r) => String(r.uri)).join(', ') || '(none)'}`);
    },
  });
  f.tool({
    name: 'test_input_required_result_request_state',
    description: 'input_required with sealed requestState; answers state-ok once the state verifies',
    handler: (_a, ctx) => {
      const { inputResponses, requestState } = input(ctx);
      const ok = accepted(inputResponses.confirm);
      if (requestState === undefined || !ok) {
        return inputRequired({
          inputRequests: { confirm: askConfirm() },
          requestState: sealerOf(ctx).seal(ctx, { tool: 'request_state' }),
        }) as never;
      }
      sealerOf(ctx).verifyRequestState(requestState, ctx);
      return text(`state-ok: confirmed=${String(ok.ok)}`);
    },
  });
  f.tool({
    name: 'test_input_required_result_multiple_inputs',
    description: 'input_required: elicitation, sampling and roots/list at once, with requestState',
    handler: (_a, ctx) => {
      const { inputResponses: r, requestState } = input(ctx);
      const requests: InputRequests = {};
      const name = accepted(r.user_name)?.name;
      const greeting = sampled(r.greeting);
      const roots = rootsOf(r.client_roots);
      if (typeof name !== 'string') requests.user_name = askName();
      if (greeting === undefined) {
        requests.greeting = inputRequest.sample({
          messages: [{ role: 'user', content: { type: 'text', text: 'Generate a greeting' } }],
          maxTokens: 50,
        });
      }
      if (!roots) requests.client_roots = inputRequest.roots();
      if (requestState !== undefined) sealerOf(ctx).verifyRequestState(requestState, ctx);
      if (Object.keys(requests).length || requestState === undefined) {
        return inputRequired({
          inputRequests: Object.keys(requests).length
            ? requests
            : {
                user_name: askName(),
                greeting: inputRequest.sample({
                  messages: [{ role: 'user', content: { type: 'text', text: 'Generate a greeting' } }],
                  maxTokens: 50,
                }),
                client_roots: inputRequest.roots(),
              },
          requestState: sealerOf(ctx).seal(ctx, { tool: 'multiple_inputs' }),
        }) as never;
      }
      return text(`${greeting} ${name} (roots: ${roots!.map((x) => String(x.uri)).join(', ')})`);
    },
  });
  f.tool({
    name: 'test_input_required_result_multi_round',
    description: 'input_required twice (step1: name, step2: colour), the round sealed in requestState',
    handler: (_a, ctx) => {
      const { inputResponses: r, requestState } = input(ctx);
      const step1 = () =>
        inputRequired({
          inputRequests: { step1: askName('Step 1: What is your name?') },
          requestState: sealerOf(ctx).seal(ctx, { round: 1 }),
        }) as never;
      if (requestState === undefined) return step1();
      const state = sealerOf(ctx).verifyRequestState<{ round?: number; name?: string }>(requestState, ctx);
      if (state?.round === 1) {
        const name = accepted(r.step1)?.name;
        if (typeof name !== 'string') return step1();
        return inputRequired({
          inputRequests: {
            step2: inputRequest.elicit({
              message: 'Step 2: What is your favorite color?',
              requestedSchema: { type: 'object', properties: { color: { type: 'string' } }, required: ['color'] },
            }),
          },
          requestState: sealerOf(ctx).seal(ctx, { round: 2, name }),
        }) as never;
      }
      const color = accepted(r.step2)?.color;
      if (typeof color !== 'string') return step1();
      return text(`${String(state?.name)} likes ${color}`);
    },
  });
  f.tool({
    name: 'test_input_required_result_tampered_state',
    description: 'input_required with HMAC-sealed requestState; a tampered state is refused with -32602',
    handler: (_a, ctx) => {
      const { inputResponses, requestState } = input(ctx);
      if (requestState === undefined) {
        return inputRequired({
          inputRequests: { confirm: askConfirm() },
          requestState: sealerOf(ctx).seal(ctx, { tool: 'tampered_state' }),
        }) as never;
      }
      sealerOf(ctx).verifyRequestState(requestState, ctx);
      if (!accepted(inputResponses.confirm))
        return inputRequired({ inputRequests: { confirm: askConfirm() }, requestState }) as never;
      return text('state verified');
    },
  });
  f.tool({
    name: 'test_input_required_result_capabilities',
    description: 'input_required asking only for what the request declared among elicitation, sampling and roots',
    handler: (_a, ctx) => {
      const caps = clientCapabilitiesOf(ctx) ?? {};
      const { inputResponses: r } = input(ctx);
      const requests: InputRequests = {};
      if (caps.elicitation && typeof accepted(r.user_name)?.name !== 'string') requests.user_name = askName();
      if (caps.sampling && sampled(r.capital_question) === undefined) requests.capital_question = askCapital();
      if (caps.roots && !rootsOf(r.client_roots)) requests.client_roots = inputRequest.roots();
      if (Object.keys(requests).length) return inputRequired({ inputRequests: requests }) as never;
      return text(
        `Answered: ${
          Object.keys(r)
            .filter((k) => ['user_name', 'capital_question', 'client_roots'].includes(k))
            .join(', ') || 'nothing (no input capability declared)'
        }`,
      );
    },
  });
  f.prompt({
    name: 'test_input_required_result_prompt',
    description: 'input_required on prompts/get: asks for the context first',
    get: (_a, ctx) => {
      const context = accepted(input(ctx).inputResponses.user_context)?.context;
      if (typeof context !== 'string') {
        return inputRequired({
          inputRequests: {
            user_context: inputRequest.elicit({
              message: 'What context should the prompt use?',
              requestedSchema: { type: 'object', properties: { context: { type: 'string' } }, required: ['context'] },
            }),
          },
        }) as never;
      }
      return [{ role: 'user', content: { type: 'text', text: `Use this context: ${context}` } }];
    },
  });
}

/** Sleeps `seconds` (not keeping the process alive); rejects with `signal`'s reason when it aborts. */
const pause = (seconds: number, signal: AbortSignal) =>
  sleep(Math.max(0, seconds) * 1000, undefined, { signal, ref: false });
const askDelete = (filename: string) =>
  inputRequest.elicit({
    message: `Delete ${filename}?`,
    requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean' } }, required: ['confirm'] },
  });

/**
 * Adds the tasks-extension fixtures to `f` and returns the extension serving them; wire it with
 * `tasks.handlers(...)`, `tasks.capabilities(...)` and `extensionMethods: tasks.methods`.
 */
export function addTaskFixtures(
  f: ServerFeatures,
  table: ProtocolTable,
  paramsOf: (ctx: RequestContext) => Params | undefined,
): TasksExtension {
  const tasks = new TasksExtension({
    table,
    tools: {
      slow_compute: 'optional',
      failing_job: 'required',
      protocol_error_job: 'optional',
      confirm_delete: 'optional',
      multi_input: 'optional',
      test_tool_with_task: 'required',
    },
  });
  const input = (ctx: RequestContext) => readInput(paramsOf(ctx));
  f.tool<{ name?: string }>({
    name: 'greet',
    description: 'Greets by name, synchronously (never a task)',
    inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    handler: (a) => text(`Hello, ${a.name}!`),
  });
  f.tool<{ seconds?: number; label?: string }>({
    name: 'slow_compute',
    description: 'Sleeps `seconds` then answers; a task when the request opts into tasks (tasks/cancel stops it)',
    inputSchema: {
      type: 'object',
      properties: {
        seconds: { type: 'number', minimum: 0, maximum: MAX_SLOW_COMPUTE_SECONDS },
        label: { type: 'string', maxLength: 256 },
      },
    },
    handler: (a, ctx) => {
      const seconds = slowComputeSeconds(a.seconds ?? 1);
      return tasks.run(ctx, async (task) => {
        await pause(seconds, task.signal);
        return text(`slow_compute${a.label ? ` ${a.label}` : ''}: done after ${seconds} s`);
      }) as never;
    },
  });
  f.tool({
    name: 'failing_job',
    description: 'Runs only as a task; ends after about 1 s with a tool execution error (isError)',
    handler: (_a, ctx) =>
      tasks.run(ctx, async (task) => {
        await pause(1, task.signal);
        return { ...text('failing_job: the job failed (tool execution error)'), isError: true };
      }) as never,
  });
  f.tool({
    name: 'protocol_error_job',
    description: 'Fails with a JSON-RPC error (-32603): a task ends failed with that error',
    handler: (_a, ctx) =>
      tasks.run(ctx, async (task) => {
        await pause(0.1, task.signal);
        throw new RpcError(ErrorCode.InternalError, 'protocol_error_job: internal failure while running the job');
      }) as never,
  });
  f.tool<{ filename?: string }>({
    name: 'confirm_delete',
    description: 'Asks to confirm deleting `filename` (through the task, else by input_required), then answers',
    inputSchema: { type: 'object', properties: { filename: { type: 'string' } }, required: ['filename'] },
    handler: (a, ctx) =>
      tasks.run(ctx, async (task) => {
        const file = String(a.filename);
        const answer =
          task.taskId === undefined
            ? input(ctx).inputResponses.confirm_delete
            : (await task.input({ confirm_delete: askDelete(file) })).confirm_delete;
        if (task.taskId === undefined && answer === undefined)
          return inputRequired({ inputRequests: { confirm_delete: askDelete(file) } }) as never;
        return text(accepted(answer)?.confirm === true ? `Deleted ${file}` : `Kept ${file}`);
      }) as never,
  });
  f.tool({
    name: 'multi_input',
    description: 'Asks two questions at once (a name and a confirmation), then answers with both',
    handler: (_a, ctx) =>
      tasks.run(ctx, async (task) => {
        const requests = { first_input: askName(), second_input: askConfirm() };
        const r = task.taskId === undefined ? input(ctx).inputResponses : await task.input(requests);
        if (task.taskId === undefined && (!r.first_input || !r.second_input))
          return inputRequired({ inputRequests: requests }) as never;
        return text(
          `multi_input: name=${String(accepted(r.first_input)?.name)}, confirmed=${String(accepted(r.second_input)?.ok ?? accepted(r.second_input)?.confirm)}`,
        );
      }) as never,
  });
  f.tool({
    name: 'test_tool_with_task',
    description: 'Runs only as a task: asks for user_name by input_required first, then answers through a task',
    handler: (_a, ctx) => {
      const name = accepted(input(ctx).inputResponses.user_name)?.name;
      if (typeof name !== 'string') return inputRequired({ inputRequests: { user_name: askName() } }) as never;
      return tasks.run(ctx, () => text(`Hello, ${name}! (gathered before the task was created)`)) as never;
    },
  });
  return tasks;
}
