/**
 * The tests every own binding (python, go, rust) passes, registered on the uvu suite of the
 * language's test file; what differs per language is how it builds and runs its programs:
 * - `corpusTests`: per revision, every example decodes and re-encodes to equal JSON; every input
 *   of the differential test (./differential.ts) gets the schema's verdict, and what is accepted
 *   re-encodes to equal JSON; every schema-derived mutation is refused naming the mutated path
 *   (./own.ts); then the language's own per-revision tests;
 * - `issueCasesTest`: the cases of the issue that asked for the bindings, with the exact path and
 *   message each error must give;
 * - `stdioClientTests`: the language's stdio client against `mcpgen serve --stdio` of 2025-11-25
 *   (initialize, tools/list, tools/call) and draft (server/discover, per-request _meta).
 */
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ROOT } from '../support.js';
import {
  REVISIONS,
  assertRefused,
  assertRoundTrips,
  corpus,
  loadModel,
  mutations,
  type Case,
  type MethodCase,
  type Result,
  type Revision,
} from './own.js';
import { differences, differentialInputs, sameJson } from './differential.js';
import { methodAnswers } from './answers.js';

/** `mcpgen serve --stdio --rev` as argv; a client appends the revision and spawns it. */
export const SERVE_STDIO = ['node', join(ROOT, 'bin', 'mcpgen.js'), 'serve', '--stdio', '--rev'];

/** Decodes `cases` with the binding of `revision` (a driver program, see ./own.ts) and returns its results. */
export type RunCases = (revision: string, cases: Array<Case | MethodCase>) => Result[] | Promise<Result[]>;

export interface CorpusTests {
  /** `python`, `go`, `rust`: the first word of each title and of each failure message. */
  language: string;
  /** Appended to the round-trip test's title (how the language runs the driver). */
  roundTripNote?: string;
  runCases: RunCases;
  /** Registers the language's own tests of a revision (after the round-trip and mutation tests). */
  perRevision?: (revision: Revision) => void;
}

/** Registers, per revision, the round-trip and mutation tests, then `perRevision`. */
export function corpusTests({ language, roundTripNote, runCases, perRevision }: CorpusTests): void {
  for (const revision of REVISIONS) {
    test(`${language} ${revision}: every example decodes and re-encodes to equal JSON${roundTripNote ? ` ${roundTripNote}` : ''}`, async () => {
      const examples = await corpus(revision);
      assert.ok(examples.length >= (revision === 'draft' ? 80 : 40), `${revision}: only ${examples.length} examples`);
      assertRoundTrips(language, revision, examples, await runCases(revision, examples));
    });

    test(`${language} ${revision}: the schema's verdict on every input (examples, mutations at every depth, server-everything), what it accepts kept`, async () => {
      const inputs = await differentialInputs(revision);
      const wrong = differences(
        inputs,
        await runCases(
          revision,
          inputs.map(({ type, data }) => ({ type, data })),
        ),
      );
      assert.ok(
        wrong.length === 0,
        `${language} ${revision}: ${wrong.length} of ${inputs.length} inputs differ from the schema:\n${wrong.slice(0, 20).join('\n')}`,
      );
    });

    test(`${language} ${revision}: schema-derived mutations are refused with the mutated path`, async () => {
      const list = mutations(loadModel(revision), await corpus(revision));
      assert.ok(list.length >= 300, `${revision}: only ${list.length} mutations`);
      assertRefused(language, revision, list, await runCases(revision, list));
    });

    test(`${language} ${revision}: serve's answers to tools/call decode through the method map as the result they are`, async () => {
      const answers = await methodAnswers(revision);
      const results = await runCases(
        revision,
        answers.map(({ method, data }) => ({ method, data })),
      );
      const got = results.map((r, i) =>
        'ok' in r ? { decoded: r.decoded, equal: sameJson(r.ok, answers[i].data) } : r,
      );
      assert.equal(
        got,
        answers.map((a) => ({ decoded: a.expect, equal: true })),
        answers.map((a) => a.label).join(', '),
      );
    });

    if (revision === 'draft')
      test(`${language} ${revision}: a result is decoded as the type its resultType names ("complete": the request's result, "input_required": InputRequiredResult); another resultType by best match`, async () => {
        const results = await runCases(
          revision,
          RESULT_TYPE_CASES.map(({ method, data }) => ({ method, data })),
        );
        const got = results.map((r) => ('ok' in r ? { decoded: r.decoded } : { path: r.path }));
        assert.equal(
          got,
          RESULT_TYPE_CASES.map((c) => c.expect),
          RESULT_TYPE_CASES.map((c) => c.label).join(', '),
        );
      });

    perRevision?.(revision);
  }
}

/**
 * Results of draft requests that may answer with an InputRequiredResult, through the method
 * map's result decoder. InputRequiredResult has nothing but optional members besides
 * `resultType`, so decoded by best match any object with a string `resultType` got through as
 * one: a `"complete"` result must be the request's result type and is refused at the member
 * that is wrong; an `"input_required"` one an InputRequiredResult; another resultType (the
 * tasks extension's `"task"`) is decoded by best match as before.
 */
const RESULT_TYPE_CASES: Array<{ label: string; method: string; data: unknown; expect: object }> = [
  {
    label: 'tools/call complete with a content block of no known type',
    method: 'tools/call',
    data: { resultType: 'complete', content: [{ type: 'txt' }] },
    expect: { path: 'result.content[0].type' },
  },
  {
    label: 'tools/call complete without content',
    method: 'tools/call',
    data: { resultType: 'complete' },
    expect: { path: 'result.content' },
  },
  {
    label: 'prompts/get complete with a message of no known content type',
    method: 'prompts/get',
    data: { resultType: 'complete', messages: [{ role: 'user', content: { type: 'txt' } }] },
    expect: { path: 'result.messages[0].content.type' },
  },
  {
    label: 'tools/call complete',
    method: 'tools/call',
    data: { resultType: 'complete', content: [{ type: 'text', text: 'a' }] },
    expect: { decoded: 'CallToolResult' },
  },
  {
    label: 'tools/call input_required',
    method: 'tools/call',
    data: { resultType: 'input_required', requestState: 'opaque' },
    expect: { decoded: 'InputRequiredResult' },
  },
  {
    label: 'tools/call task (tasks extension)',
    method: 'tools/call',
    data: {
      resultType: 'task',
      task: { taskId: 't-1', status: 'working', createdAt: '2026-12-06T18:00:00Z', ttl: 60000 },
    },
    expect: { decoded: 'InputRequiredResult' },
  },
];

/** Registers the test of the issue's cases (2025-11-25): each is refused with this path and message. */
export function issueCasesTest(title: string, runCases: RunCases): void {
  test(title, async () => {
    const r = await runCases('2025-11-25', [
      { type: 'ContentBlock', data: { type: 'image' } },
      { type: 'TextContent', data: { type: 'text', text: 7 } },
      {
        type: 'CallToolResult',
        data: {
          content: [
            { type: 'text', text: 'a' },
            { type: 'text', text: 'b' },
            { type: 'image', mimeType: 'image/png' },
          ],
        },
      },
      { type: 'ContentBlock', data: { type: 'video', url: 'x' } },
      { type: 'JSONRPCMessage', data: { jsonrpc: '2.0', id: 1 } },
    ]);
    assert.equal(r, [
      { path: 'data', message: 'required' },
      { path: 'text', message: 'expected string, got integer' },
      { path: 'content[2].data', message: 'required' },
      { path: 'type', message: 'expected one of "text", "image", "audio", "resource_link", "resource", got "video"' },
      { path: '', message: 'not a JSON-RPC message (no method, result or error)' },
    ]);
  });
}

export interface StdioClientTests {
  language: string;
  /**
   * Runs the language's client against `[...SERVE_STDIO, revision]`, asserts it exited 0 and
   * returns the summary it printed (JSON: `initialize` or `discover`, `tools`, `call`).
   */
  client: (revision: string) => any;
  /** Whether the summary's `tools` and `call` name their result types (ListToolsResult, CallToolResult). */
  namesResultTypes: boolean;
}

/** Registers the two stdio client tests (2025-11-25 handshake, draft stateless). */
export function stdioClientTests({ language, client, namesResultTypes }: StdioClientTests): void {
  test(`${language}: stdio client against serve --rev 2025-11-25 (initialize, tools/list, tools/call)`, () => {
    const s = client('2025-11-25');
    assert.equal(s.initialize, {
      type: 'InitializeResult',
      protocolVersion: '2025-11-25',
      server: 'mcpgen-reference-server',
    });
    if (namesResultTypes) assert.is(s.tools.type, 'ListToolsResult');
    assert.ok(s.tools.names.includes('echo'), s.tools.names.join(','));
    if (namesResultTypes) assert.is(s.call.type, 'CallToolResult');
    assert.equal(s.call.blockTypes, ['TextContent']);
    assert.equal(s.call.content, [{ type: 'text', text: `hello from ${language}` }]);
  });

  test(`${language}: stdio client against serve --rev draft (server/discover, per-request _meta)`, () => {
    const s = client('draft');
    assert.is(s.discover.type, 'DiscoverResult');
    assert.ok(s.discover.versions.includes(loadModel('draft').protocolVersion), JSON.stringify(s.discover));
    assert.is(s.discover.resultType, 'complete');
    assert.is(s.discover.tools, true);
    assert.ok(s.tools.names.includes('echo'));
    assert.equal(s.call.content, [{ type: 'text', text: `hello from ${language}` }]);
  });
}
