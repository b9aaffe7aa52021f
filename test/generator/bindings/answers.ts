/**
 * Real answers of `mcpgen serve --stdio` to `tools/call`, for the method-map tests of every
 * binding language: each must decode through the method map's result decoder (`decode_result`,
 * `DecodeResult`, `decodeResult`, …) as the result type the answer is, and re-encode equal.
 *
 * - draft: the `input_required` answer of `test_input_required_result_elicitation`
 *   (InputRequiredResult) and the complete answer of `echo` (CallToolResult);
 * - 2025-11-25: the task-augmented call of `batch_job` (CreateTaskResult) and `echo`
 *   (CallToolResult), after the handshake.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from '../support.js';
import { loadModel, type Revision } from './own.js';

/** One answer: the request's method, its `result`, and the type it must decode as. */
export interface MethodAnswer {
  method: string;
  data: unknown;
  /** The schema type the answer is (the class, struct or dataclass name a binding gives it). */
  expect: string;
  label: string;
}

/** Sends `messages` (one per line) to `serve --stdio --rev <revision>`; resolves with the answers to the ids in `wait`. */
function converse(revision: string, messages: object[], wait: number[]): Promise<Map<number, unknown>> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, 'bin', 'mcpgen.js'), 'serve', '--stdio', '--rev', revision], {
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    const answers = new Map<number, unknown>();
    let buffered = '';
    const timer = setTimeout(() => {
      child.kill();
      reject(
        new Error(`serve --rev ${revision}: answered ${[...answers.keys()].join(', ')} of ${wait.join(', ')} in 60 s`),
      );
    }, 60_000);
    child.on('error', reject);
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      buffered += chunk;
      for (let i = buffered.indexOf('\n'); i >= 0; i = buffered.indexOf('\n')) {
        const line = buffered.slice(0, i);
        buffered = buffered.slice(i + 1);
        const m = JSON.parse(line) as { id?: number; result?: unknown; error?: { message: string } };
        if (typeof m.id !== 'number' || !wait.includes(m.id)) continue;
        if (m.error) {
          clearTimeout(timer);
          child.kill();
          reject(new Error(`serve --rev ${revision}: request ${m.id}: ${m.error.message}`));
          return;
        }
        answers.set(m.id, m.result);
        if (wait.every((id) => answers.has(id))) {
          clearTimeout(timer);
          child.kill();
          resolve(answers);
        }
      }
    });
    for (const m of messages) child.stdin.write(`${JSON.stringify(m)}\n`);
  });
}

const cache = new Map<string, Promise<MethodAnswer[]>>();

/** The answers of a revision (see the module doc), fetched once per test process. */
export function methodAnswers(revision: Revision): Promise<MethodAnswer[]> {
  let p = cache.get(revision);
  if (p) return p;
  const call = (id: number, name: string, args: object, extra: object = {}) => ({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name, arguments: args, ...extra },
  });
  if (revision === 'draft') {
    const meta = {
      'io.modelcontextprotocol/protocolVersion': loadModel('draft').protocolVersion,
      'io.modelcontextprotocol/clientInfo': { name: 'mcpgen-bindings-test', version: '1.0.0' },
      'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
    };
    p = converse(
      'draft',
      [
        call(1, 'test_input_required_result_elicitation', {}, { _meta: meta }),
        call(2, 'echo', { text: 'hello' }, { _meta: meta }),
      ],
      [1, 2],
    ).then((a) => [
      { method: 'tools/call', data: a.get(1), expect: 'InputRequiredResult', label: 'draft input_required answer' },
      { method: 'tools/call', data: a.get(2), expect: 'CallToolResult', label: 'draft complete answer' },
    ]);
  } else {
    p = converse(
      revision,
      [
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: {
            protocolVersion: loadModel(revision).protocolVersion,
            capabilities: {},
            clientInfo: { name: 'mcpgen-bindings-test', version: '1.0.0' },
          },
        },
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        call(2, 'batch_job', { items: 1 }, { task: { ttl: 60_000 } }),
        call(3, 'echo', { text: 'hello' }),
      ],
      [1, 2, 3],
    ).then((a) => [
      { method: 'tools/call', data: a.get(2), expect: 'CreateTaskResult', label: `${revision} task-augmented answer` },
      { method: 'tools/call', data: a.get(3), expect: 'CallToolResult', label: `${revision} complete answer` },
    ]);
  }
  cache.set(revision, p);
  return p;
}
