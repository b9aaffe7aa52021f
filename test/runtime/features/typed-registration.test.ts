/**
 * Tool, prompt and resource-template registration typed from their schemas. `typeChecks` is
 * compiled by `npx tsc -p tsconfig.json --noEmit` (this file is in the project, and `npm test`
 * runs tsc first): every `@ts-expect-error` line must fail to compile, else tsc reports the
 * unused directive; the lines without one must compile. Each rule is checked with a JSON Schema
 * literal, a zod 4 schema and a valibot schema (wrapped by `toStandardJsonSchema`). The run-time
 * tests talk to the typed definitions over the memory pair with 2025-11-25's generated Client.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as z from 'zod';
import * as v from 'valibot';
import { toStandardJsonSchema } from '@valibot/to-json-schema';
import * as v2025 from '../../../generated/2025-11-25/index.js';
import { ServerFeatures } from '../../../runtime/features/server-features.js';
import { createMemoryPair } from '../../../runtime/transport/memory.js';

const text = (t: string) => ({ content: [{ type: 'text' as const, text: t }] });

/** Compile-time checks only: never called. */
export function typeChecks(): void {
  const f = new ServerFeatures<v2025.Protocol>();

  // ---- tool arguments ----
  f.tool({
    name: 'json',
    inputSchema: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer' } }, required: ['city'], additionalProperties: false },
    handler: (args) => {
      const city: string = args.city;
      const days: number | undefined = args.days;
      // @ts-expect-error wrong argument type: city is a string
      const n: number = args.city;
      // @ts-expect-error unknown argument (additionalProperties: false)
      void args.country;
      return text(`${city} ${days ?? 1} ${n}`);
    },
  });
  const schema = { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } as const;
  f.tool({ name: 'as-const', inputSchema: schema, handler: ({ q }) => text(q.toUpperCase()) });
  f.tool({
    name: 'zod',
    inputSchema: z.object({ city: z.string(), days: z.number().int().default(1) }),
    handler: (args) => {
      const days: number = args.days; // the parsed output: the default applied
      // @ts-expect-error wrong argument type
      const n: number = args.city;
      // @ts-expect-error unknown argument
      void args.country;
      return text(`${args.city} ${days} ${n}`);
    },
  });
  f.tool({
    name: 'valibot',
    inputSchema: toStandardJsonSchema(v.object({ city: v.string() })),
    handler: (args) => {
      // @ts-expect-error wrong argument type
      const n: number = args.city;
      // @ts-expect-error unknown argument
      void args.country;
      return text(args.city + n);
    },
  });
  // @ts-expect-error a valibot schema without its Standard JSON Schema (nothing to list)
  f.tool({ name: 'valibot-bare', inputSchema: v.object({ city: v.string() }), handler: () => 'x' });
  // stating the arguments' type instead of inferring it (the schema then types nothing)
  f.tool<{ a?: number }>({ name: 'explicit', inputSchema: { type: 'object' }, handler: (args) => text(String(args.a)) });

  // ---- content blocks ----
  // @ts-expect-error wrong content block (JSON Schema tool)
  f.tool({ name: 'b1', inputSchema: schema, handler: () => ({ content: [{ type: 'txt', text: 'a' }] }) });
  // @ts-expect-error wrong content block (zod tool)
  f.tool({ name: 'b2', inputSchema: z.object({}), handler: () => ({ content: [{ type: 'text', text: 1 }] }) });
  // @ts-expect-error wrong content block (valibot tool)
  f.tool({ name: 'b3', inputSchema: toStandardJsonSchema(v.object({})), handler: () => ({ content: [{ type: 'image', data: 'AA==' }] }) });

  // ---- structuredContent from outputSchema ----
  const weather = { type: 'object', properties: { celsius: { type: 'number' } }, required: ['celsius'], additionalProperties: false } as const;
  f.tool({ name: 's1', outputSchema: weather, handler: () => ({ content: [], structuredContent: { celsius: 21 } }) });
  // @ts-expect-error structuredContent not matching outputSchema (JSON Schema)
  f.tool({ name: 's2', outputSchema: weather, handler: () => ({ content: [], structuredContent: { celsius: 'warm' } }) });
  // @ts-expect-error outputSchema declared, structuredContent missing
  f.tool({ name: 's3', outputSchema: weather, handler: () => ({ content: [] }) });
  // a tool execution error need not carry structuredContent
  f.tool({ name: 's4', outputSchema: weather, handler: () => ({ content: [{ type: 'text', text: 'no sensor' }], isError: true }) });
  f.tool({ name: 's5', outputSchema: z.object({ celsius: z.number() }), handler: async () => ({ content: [], structuredContent: { celsius: 3 } }) });
  // @ts-expect-error structuredContent not matching outputSchema (zod)
  f.tool({ name: 's6', outputSchema: z.object({ celsius: z.number() }), handler: async () => ({ content: [], structuredContent: { celsius: '3' } }) });
  // @ts-expect-error structuredContent not matching outputSchema (valibot)
  f.tool({ name: 's7', outputSchema: toStandardJsonSchema(v.object({ celsius: v.number() })), handler: () => ({ content: [], structuredContent: { kelvin: 3 } }) });

  // ---- prompt arguments ----
  f.prompt({
    name: 'p-list',
    arguments: [{ name: 'code', required: true }, { name: 'language' }],
    get: (a) => {
      const code: string = a.code;
      const lang: string | undefined = a.language;
      // @ts-expect-error a prompt argument that is optional is not always there
      const l: string = a.language;
      // @ts-expect-error wrong prompt argument
      void a.style;
      return [{ role: 'user', content: { type: 'text', text: code + lang + l } }];
    },
  });
  f.prompt({
    name: 'p-json',
    argsSchema: { type: 'object', properties: { code: { type: 'string' } }, required: ['code'], additionalProperties: false },
    complete: { code: () => ['x'] },
    get: (a) => {
      // @ts-expect-error wrong prompt argument
      void a.style;
      return [{ role: 'user', content: { type: 'text', text: a.code } }];
    },
  });
  f.prompt({
    name: 'p-zod',
    argsSchema: z.object({ code: z.string(), language: z.string().optional() }),
    // @ts-expect-error completion of an argument the prompt does not have
    complete: { style: () => ['x'] },
    get: (a) => {
      // @ts-expect-error wrong prompt argument
      void a.style;
      return [{ role: 'user', content: { type: 'text', text: a.code } }];
    },
  });
  f.prompt({
    name: 'p-valibot',
    argsSchema: toStandardJsonSchema(v.object({ code: v.string() })),
    get: (a) => {
      // @ts-expect-error wrong prompt argument
      void a.style;
      return [{ role: 'user', content: { type: 'text', text: a.code } }];
    },
  });

  // ---- resource template variables ----
  f.resourceTemplate({
    name: 't',
    uriTemplate: 'mem://users/{id}/files/{+path}{?rev}',
    read: (uri, vars) => {
      const id: string = vars.id;
      const rev: string | undefined = vars.rev;
      // @ts-expect-error a query variable may be absent
      const r: string = vars.rev;
      // @ts-expect-error wrong template variable name
      void vars.user;
      return [{ uri, text: id + vars.path + rev + r }];
    },
    complete: { id: () => ['alice'], path: () => [] },
  });
  // @ts-expect-error completion of a variable the template does not have
  f.resourceTemplate({ name: 't2', uriTemplate: 'mem://{a}', read: (uri) => [{ uri, text: '' }], complete: { b: () => [] } });
}

test.run();
