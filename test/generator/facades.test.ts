/**
 * The generated `Client` and `Server` classes' named methods (generator/emit/facades.ts): each
 * revision's client has one method per client request and notification of its table (the
 * engine's own left out: initialize, notifications/initialized, cancelled, progress), its server
 * one per server request (not the embedded ones) and notification. The client's request methods
 * are defined on its prototype from a `[name, method]` table after the class, the others are
 * class methods; all behave as a class's own methods: non-enumerable, writable and configurable, named, not
 * constructible, `length` 2 (a request: params, options) or 1 (a notification); each forwards
 * its arguments to `request` / `notify` with its method. A subclass overrides one (and reaches the generated one with
 * `super`), instances are `instanceof` the class, and the declarations are the typed API an
 * editor shows: the parameter and result types of the revision and the docstrings of the schema.
 */
import { join } from 'node:path';
import ts from 'typescript';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as v2024 from '../../generated/2024-11-05/index.js';
import * as v2025 from '../../generated/2025-11-25/index.js';
import * as v2026 from '../../generated/2026-07-28/index.js';
import * as draft from '../../generated/draft/index.js';
import type { ProtocolTable } from '../../runtime/protocol/table.js';
import { ENGINE_METHODS } from '../../generator/emit/facades.js';
import { ROOT, projectOptions } from './support.js';

const test = suite('generator: the generated Client and Server methods');

const REVISIONS = { '2024-11-05': v2024, '2025-11-25': v2025, '2026-07-28': v2026, draft };

/** The methods of `table` that `dir`'s class names: requests not embedded, notifications, no engine methods. */
function named(table: ProtocolTable, dir: 'clientToServer' | 'serverToClient') {
  const requests = Object.values(table.requests[dir])
    .filter((e) => !e.embedded && !ENGINE_METHODS.has(e.method))
    .map((e) => e.method);
  const notifications = Object.keys(table.notifications[dir]).filter((m) => !ENGINE_METHODS.has(m));
  return { requests, notifications };
}

for (const [rev, g] of Object.entries(REVISIONS)) {
  for (const [cls, dir, table] of [
    [g.Client, 'clientToServer', g.clientTable],
    [g.Server, 'serverToClient', g.serverTable],
  ] as const) {
    test(`${rev} ${cls.name}: one method per named request and notification, as a class's own methods are, each forwarding to request / notify`, () => {
      const { requests, notifications } = named(table as ProtocolTable, dir);
      const names = Object.getOwnPropertyNames(cls.prototype).filter((n) => n !== 'constructor');
      assert.is(names.length, requests.length + notifications.length, names.join(', '));
      const seen: string[] = [];
      const calls: unknown[][] = [];
      const spy = Object.create(cls.prototype) as Record<string, (...a: unknown[]) => unknown>;
      spy.request = (...a: unknown[]) => calls.push(['request', ...a]);
      spy.notify = (...a: unknown[]) => calls.push(['notify', ...a]);
      for (const name of names) {
        const d = Object.getOwnPropertyDescriptor(cls.prototype, name)!;
        assert.equal([d.enumerable, d.writable, d.configurable], [false, true, true], `${name}: its descriptor`);
        const f = d.value as (...a: unknown[]) => unknown;
        assert.type(f, 'function');
        assert.is(f.name, name);
        assert.is(Object.hasOwn(f, 'prototype'), false, `${name} is not constructible`);
        calls.length = 0;
        const params = { p: name };
        const options = { o: name };
        spy[name]!(params, options, 'extra');
        const [[kind, method, ...rest]] = calls as [[string, string, ...unknown[]]];
        assert.is(calls.length, 1);
        if (kind === 'request') {
          assert.ok(requests.includes(method), `${name} → ${method}, a request of the table`);
          assert.equal(rest, [params, options]);
          assert.is(f.length, 2);
        } else {
          assert.ok(notifications.includes(method), `${name} → ${method}, a notification of the table`);
          assert.equal(rest, [params]);
          assert.is(f.length, 1);
        }
        seen.push(method);
      }
      assert.equal(seen.sort(), [...requests, ...notifications].sort());
    });
  }
}

test('an instance is instanceof Client; a subclass overrides a named method and reaches the generated one with super', async () => {
  const sent: unknown[] = [];
  class Mine extends v2025.Client {
    override listTools(params?: { cursor?: string }, options?: v2025.ClientOptions & object) {
      sent.push(['mine', params]);
      return super.listTools(params, options);
    }
  }
  const client = new Mine({ clientInfo: { name: 'c', version: '1' } });
  assert.ok(client instanceof v2025.Client);
  assert.ok(client instanceof Mine);
  assert.equal(
    Object.keys(client).filter((k) => k === 'listTools' || k === 'callTool'),
    [],
  );
  (client as unknown as { request: (...a: unknown[]) => Promise<unknown> }).request = (...a) => {
    sent.push(a);
    return Promise.resolve({ tools: [] });
  };
  assert.equal(await client.listTools({ cursor: 'x' }), { tools: [] });
  assert.equal(sent, [
    ['mine', { cursor: 'x' }],
    ['tools/list', { cursor: 'x' }, undefined],
  ]);
  // an instance's own assignment (a test double) replaces the method, as on a class method
  client.callTool = () => Promise.resolve({ content: [] });
  assert.equal(await client.callTool({ name: 't' }), { content: [] });
});

/** Compile-time checks only (tsc on the project): never called. */
export async function typeChecks(client: v2025.Client, server: v2025.Server): Promise<void> {
  const r: v2025.CallToolResult = await client.callTool({ name: 't', arguments: {} });
  const l: v2025.ListToolsResult = await client.listTools();
  await client.sendRootsListChanged();
  const e: v2025.ElicitResult = await server.elicit({
    message: 'm',
    requestedSchema: { type: 'object', properties: {} },
  });
  await server.sendToolListChanged();
  void [r, l, e];
  // @ts-expect-error tools/call needs its params
  await client.callTool();
  // @ts-expect-error a params member of the wrong type
  await client.listTools({ cursor: 1 });
  // @ts-expect-error no such method on this revision's client
  await client.listen2();
  // @ts-expect-error a server request is not the client's
  await client.elicit({});
}

/**
 * Compile-time checks of a stateless revision's client (never called): a request whose params
 * need nothing but the `_meta` the session fills in takes no argument; one with a required member
 * still needs it.
 */
export async function draftTypeChecks(client: draft.Client): Promise<void> {
  const l: draft.ListToolsResult = await client.listTools();
  await client.listPrompts();
  await client.listResources();
  await client.listResourceTemplates();
  await client.discover();
  void l;
  // @ts-expect-error tools/call needs its params
  await client.callTool();
  // @ts-expect-error resources/read needs its params
  await client.readResource();
  // @ts-expect-error a params member of the wrong type
  await client.listTools({ cursor: 1 });
}

test('the editor sees each named method with its docstring and its typed signature (tsc language service on client.gen.ts)', () => {
  const file = join(ROOT, 'generated', '2025-11-25', 'client.gen.ts');
  const program = ts.createProgram({
    rootNames: [file],
    options: projectOptions(),
  });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file)!;
  const decl = source.statements.find((s): s is ts.ClassDeclaration => ts.isClassDeclaration(s))!;
  const type = checker.getTypeAtLocation(decl);
  const callTool = type.getProperty('callTool')!;
  const doc = ts.displayPartsToString(callTool.getDocumentationComment(checker));
  assert.match(doc, '`tools/call`: Used by the client to invoke a tool provided by the server.');
  const signature = checker.typeToString(checker.getTypeOfSymbolAtLocation(callTool, decl));
  assert.is(
    signature,
    '(params: CallToolRequestParams, options?: RequestOptions | undefined) => Promise<CallToolResult>',
  );
  assert.equal(
    ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n')),
    [],
  );
});

test.run();
