/**
 * Model completeness. The expectations are computed here from each revision's schema.ts with
 * the TypeScript compiler API (independently of ingest): the members of ClientRequest,
 * ServerRequest, ClientNotification, ServerNotification and InputRequest, each member's method
 * literal, its `@category`, and the `result` of its `*ResultResponse` where one exists. Every
 * pinned revision and every draft snapshot in $MCP_SPEC_DIR/history/draft is held to them; the
 * snapshots are generated through the CLI's --unpinned and type-checked.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ingest } from '../../generator/ingest.js';
import type { ProtocolModel } from '../../generator/model.js';
import { RESULT_OVERRIDES } from '../../generator/overrides.js';
import { resolveUnpinned } from '../../schema/resolve.js';
import { PINNED, SPEC_DIR, cli, listFiles, pinnedModel, showDiagnostics, tempOutput, typecheck } from './support.js';

const test = suite('generator: model completeness');

interface Declared {
  /** union name → member type names (in source order) */
  unions: Map<string, string[]>;
  /** interface name → `method` literal */
  methods: Map<string, string>;
  /** declaration name → `@category` text */
  categories: Map<string, string>;
  /** `XResultResponse` → type names referenced by its `result` member */
  resultResponses: Map<string, string[]>;
  exported: Set<string>;
}

const UNIONS = ['ClientRequest', 'ServerRequest', 'ClientNotification', 'ServerNotification', 'InputRequest'] as const;

/** Reads what the expectations need straight from schema.ts. */
function declared(file: string): Declared {
  const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const d: Declared = {
    unions: new Map(),
    methods: new Map(),
    categories: new Map(),
    resultResponses: new Map(),
    exported: new Set(),
  };
  const refs = (t: ts.TypeNode): string[] => {
    if (ts.isUnionTypeNode(t)) return t.types.flatMap(refs);
    if (ts.isParenthesizedTypeNode(t)) return refs(t.type);
    if (ts.isTypeReferenceNode(t) && ts.isIdentifier(t.typeName)) return [t.typeName.text];
    return [];
  };
  for (const st of sf.statements) {
    if (!(ts.isInterfaceDeclaration(st) || ts.isTypeAliasDeclaration(st))) continue;
    const name = st.name.text;
    d.exported.add(name);
    for (const tag of ts.getJSDocTags(st)) {
      if (tag.tagName.text === 'category')
        d.categories.set(name, (ts.getTextOfJSDocComment(tag.comment) ?? '').replace(/`/g, '').trim());
    }
    if (ts.isTypeAliasDeclaration(st) && (UNIONS as readonly string[]).includes(name)) {
      const members = refs(st.type);
      assert.ok(members.length > 0, `${file}: ${name} is not a union of type references`);
      d.unions.set(name, members);
    }
    if (ts.isInterfaceDeclaration(st)) {
      for (const m of st.members) {
        if (!ts.isPropertySignature(m) || !m.type || !ts.isIdentifier(m.name)) continue;
        if (m.name.text === 'method' && ts.isLiteralTypeNode(m.type) && ts.isStringLiteral(m.type.literal))
          d.methods.set(name, m.type.literal.text);
        if (m.name.text === 'result' && name.endsWith('ResultResponse')) d.resultResponses.set(name, refs(m.type));
      }
    }
  }
  return d;
}

/** method of a message type: its own literal in schema.ts, else the const in schema.json. */
function methodOf(
  d: Declared,
  defs: Record<string, { properties?: { method?: { const?: string } } }>,
  type: string,
): string | undefined {
  return d.methods.get(type) ?? defs[type]?.properties?.method?.const;
}

/**
 * Holds one model to what its schema.ts declares; returns the number of checked entries.
 * `strict` (pinned revisions): every union member must be in schema.json and in the model.
 * Otherwise a member schema.json lacks must be named in a model warning instead.
 */
function checkModel(model: ProtocolModel, schemaTs: string, schemaJson: string, strict: boolean): number {
  const d = declared(schemaTs);
  const defs = JSON.parse(readFileSync(schemaJson, 'utf8')) as { $defs?: object; definitions?: object };
  const jsonDefs = (defs.$defs ?? defs.definitions) as Record<string, { properties?: { method?: { const?: string } } }>;
  const rev = model.revision;
  const present = (type: string, union: string) => {
    if (Object.hasOwn(jsonDefs, type)) return true;
    assert.ok(!strict, `${rev}: ${union} member ${type} has no schema.json definition`);
    assert.ok(
      model.warnings.some((w) => w.includes(`${union} member ${type}`)),
      `${rev}: ${union} member ${type} is missing from schema.json and no warning says so`,
    );
    return false;
  };

  const clientReq = (d.unions.get('ClientRequest') ?? []).filter((t) => present(t, 'ClientRequest'));
  const serverReq = (d.unions.get('ServerRequest') ?? []).filter((t) => present(t, 'ServerRequest'));
  const inputReq = (d.unions.get('InputRequest') ?? []).filter((t) => present(t, 'InputRequest'));
  const clientNote = (d.unions.get('ClientNotification') ?? []).filter((t) => present(t, 'ClientNotification'));
  const serverNote = (d.unions.get('ServerNotification') ?? []).filter((t) => present(t, 'ServerNotification'));
  assert.ok(clientReq.length > 0, `${rev}: schema.ts declares no ClientRequest members`);
  assert.ok(serverNote.length > 0, `${rev}: schema.ts declares no ServerNotification members`);

  const expectRequests = [
    ...clientReq.map((t) => ({ t, dir: 'clientToServer', embedded: false })),
    ...serverReq.map((t) => ({ t, dir: 'serverToClient', embedded: false })),
    ...inputReq.filter((t) => !serverReq.includes(t)).map((t) => ({ t, dir: 'serverToClient', embedded: true })),
  ];
  for (const { t, dir, embedded } of expectRequests) {
    const entries = model.requests.filter((r) => r.requestType === t && r.direction === dir);
    assert.is(entries.length, 1, `${rev}: ${t} (${dir}) has ${entries.length} model entries`);
    const r = entries[0];
    assert.is(r.method, methodOf(d, jsonDefs, t), `${rev}: ${t}: method`);
    assert.is(r.embedded, embedded, `${rev}: ${t}: embedded`);
    for (const res of [r.resultType, ...r.altResultTypes]) {
      assert.ok(Object.hasOwn(model.types, res), `${rev}: ${r.method}: result type ${res} is not in model.types`);
    }
    // the pairing agrees with what schema.ts says about it
    const rr = `${t.replace(/Request$/, '')}ResultResponse`;
    const named = d.resultResponses.get(rr);
    const over = RESULT_OVERRIDES.find((o) => o.method === r.method && (!o.revisions || o.revisions.includes(rev)));
    if (over) {
      assert.is(r.resultType, over.result, `${rev}: ${r.method}: override result`);
    } else if (r.pairedBy === 'override') {
      // no pairing rule applied: only an unseen revision may get there, and it must say so
      assert.ok(!strict, `${rev}: ${r.method}: paired by the fallback`);
      assert.ok(
        model.warnings.some((w) => w.includes(`${t}: no result type for ${r.method}`)),
        `${rev}: ${r.method}: fallback pairing without a warning`,
      );
    } else if (named) {
      assert.ok(
        named.includes(r.resultType),
        `${rev}: ${r.method}: ${r.resultType} is not in ${rr}.result (${named.join(' | ')})`,
      );
      assert.is(r.inputRequired, named.includes('InputRequiredResult'), `${rev}: ${r.method}: inputRequired`);
    } else if (d.categories.get(t)) {
      assert.is(
        d.categories.get(r.resultType),
        d.categories.get(t),
        `${rev}: ${r.method}: ${r.resultType} is not in @category ${d.categories.get(t)}`,
      );
    } else if (r.pairedBy === 'name') {
      assert.is(r.resultType, `${t.replace(/Request$/, '')}Result`, `${rev}: ${r.method}: paired by name`);
    }
  }
  assert.is(model.requests.length, expectRequests.length, `${rev}: model has requests that no union declares`);

  const expectNotes = [
    ...clientNote.map((t) => ({ t, dir: 'clientToServer' })),
    ...serverNote.map((t) => ({ t, dir: 'serverToClient' })),
  ];
  for (const { t, dir } of expectNotes) {
    const entries = model.notifications.filter((n) => n.notificationType === t && n.direction === dir);
    assert.is(entries.length, 1, `${rev}: ${t} (${dir}) has ${entries.length} model entries`);
    assert.is(entries[0].method, methodOf(d, jsonDefs, t), `${rev}: ${t}: method`);
  }
  assert.is(model.notifications.length, expectNotes.length, `${rev}: model has notifications that no union declares`);
  // every method is unique within its direction
  for (const list of [model.requests, model.notifications]) {
    const keys = list.map((x) => `${x.direction} ${x.method}`);
    assert.is(new Set(keys).size, keys.length, `${rev}: duplicate method in one direction`);
  }
  return expectRequests.length + expectNotes.length;
}

for (const rev of PINNED) {
  test(`${rev}: one model entry per union member, in its direction, with an existing result type`, () => {
    const model = pinnedModel(rev);
    const dir = join(SPEC_DIR, 'schema', rev);
    const n = checkModel(model, join(dir, 'schema.ts'), join(dir, 'schema.json'), true);
    assert.ok(n >= 10, `${rev}: only ${n} messages`);
  });
}

const SNAPSHOTS_DIR = join(SPEC_DIR, 'history', 'draft');
const snapshots = readdirSync(SNAPSHOTS_DIR)
  .filter((n) => statSync(join(SNAPSHOTS_DIR, n)).isDirectory())
  .sort();

test('there are draft snapshots to check', () => {
  assert.ok(snapshots.length > 0, `no folders in ${SNAPSHOTS_DIR}`);
});

for (const snap of snapshots) {
  test(`draft snapshot ${snap}: model completeness`, () => {
    const r = resolveUnpinned(join(SNAPSHOTS_DIR, snap));
    const model = ingest({
      revision: r.revision,
      schemaJson: r.files['schema.json'],
      schemaTs: r.files['schema.ts'],
      pinned: false,
      commit: null,
    });
    checkModel(model, r.files['schema.ts'].path, r.files['schema.json'].path, false);
  });
}

test('every draft snapshot generates through `mcpgen generate --unpinned` and type-checks under strict', async () => {
  const t = tempOutput();
  try {
    for (const snap of snapshots) {
      const res = await cli(['generate', '--unpinned', join(SNAPSHOTS_DIR, snap), '--out', t.out]);
      assert.is(res.code, 0, `${snap}: exit ${res.code}\n${res.stderr}`);
      assert.match(res.stdout, `${snap}: `);
    }
    const files = snapshots.flatMap((snap) =>
      listFiles(join(t.out, snap))
        // parity with upstream is checked for the pinned revisions (parity.test.ts)
        .filter((f) => f.endsWith('.ts') && f !== 'parity.gen.ts')
        .map((f) => join(t.out, snap, f)),
    );
    assert.ok(files.length >= snapshots.length * 5, `only ${files.length} TypeScript files generated`);
    const diags = typecheck(files);
    assert.is(diags.length, 0, showDiagnostics(diags));
  } finally {
    t.cleanup();
  }
});

test.run();
