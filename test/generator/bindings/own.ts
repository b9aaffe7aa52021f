/**
 * Shared by the tests of the own binding emitters (python, go, rust): the example corpus of each
 * revision, the schema-derived mutations, generation into a temp folder, and the comparison of a
 * driver's results.
 *
 * Corpus: the official examples of `draft`; 2025-11-25 has no examples upstream, so its corpus
 * is every official example (draft and 2026-07-28) whose type exists in 2025-11-25 and which
 * the generated 2025-11-25 validator (generated/2025-11-25/validators.gen.js) accepts.
 *
 * A driver reads `cases.json` (`[{ "type": T, "data": V }]`), decodes each value as its type and
 * writes `results.json`: per case `{ "ok": encoded }` or `{ "path": P, "message": M }`. A case
 * `{ "method": M, "data": V }` decodes V through the method map as the result of the client
 * request M and answers `{ "ok": encoded, "decoded": <the type's name> }`.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as assert from 'uvu/assert';
import type { JsonSchema, ProtocolModel } from '../../../generator/model.js';
import type { Validator } from '../../../runtime/protocol/table.js';
import { schemaMutations } from '../mutations.js';
import { ROOT, SPEC_DIR } from '../support.js';

export const REVISIONS = ['2025-11-25', 'draft'] as const;
export type Revision = (typeof REVISIONS)[number];

const models = new Map<string, ProtocolModel>();
/** The model of a generated revision (generated/<rev>/model.json). */
export function loadModel(revision: string): ProtocolModel {
  let m = models.get(revision);
  if (!m) {
    m = JSON.parse(readFileSync(join(ROOT, 'generated', revision, 'model.json'), 'utf8')) as ProtocolModel;
    models.set(revision, m);
  }
  return m;
}

export interface Example {
  type: string;
  /** `<rev>/<Type>/<file>` of the upstream example. */
  key: string;
  data: unknown;
}

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function officialExamples(revision: string): Example[] {
  const root = join(SPEC_DIR, 'schema', revision, 'examples');
  const out: Example[] = [];
  for (const type of readdirSync(root).sort(compare)) {
    for (const file of readdirSync(join(root, type)).sort(compare)) {
      if (!file.endsWith('.json')) continue;
      out.push({
        type,
        key: `${revision}/${type}/${file}`,
        data: JSON.parse(readFileSync(join(root, type, file), 'utf8')),
      });
    }
  }
  return out;
}

const corpora = new Map<string, Example[]>();
/** The corpus of a revision (see the module doc). */
export async function corpus(revision: Revision): Promise<Example[]> {
  let c = corpora.get(revision);
  if (c) return c;
  if (revision === 'draft') c = officialExamples('draft');
  else {
    const V = (await import(pathToFileURL(join(ROOT, 'generated', revision, 'validators.gen.js')).href)) as Record<
      string,
      Validator
    >;
    const model = loadModel(revision);
    c = [...officialExamples('draft'), ...officialExamples('2026-07-28')].filter(
      (e) => Object.hasOwn(model.types, e.type) && typeof V[e.type] === 'function' && V[e.type](e.data),
    );
  }
  corpora.set(revision, c);
  return c;
}

// ---- mutations derived from the schema (../mutations.ts, as test/generator/validators.test.ts uses them) ----

/** The path a decoder names: `params.content[2].data` (empty for the value itself). */
export function dotted(segs: ReadonlyArray<string | number>): string {
  let out = '';
  for (const s of segs) out += typeof s === 'number' ? `[${s}]` : out ? `.${s}` : s;
  return out;
}

export interface Mutation {
  kind: 'drop required' | 'wrong const' | 'wrong type';
  example: string;
  type: string;
  data: unknown;
  /** The path the error must name. */
  path: string;
}

/** Every mutation of every example: each required member dropped, each const changed, each typed value of another JSON type. */
export function mutations(model: ProtocolModel, examples: Example[]): Mutation[] {
  return examples.flatMap((e) =>
    schemaMutations(model, e.type, e.data).map((m) => ({
      kind: m.kind,
      example: e.key,
      type: e.type,
      data: m.data,
      path: dotted(m.segs),
    })),
  );
}

/** Fails, naming the Debian packages, when a command is not on PATH. */
export function requireCommand(language: string, command: string, aptPackages: readonly string[]): void {
  const found = spawnSync('sh', ['-c', `command -v ${command}`], { encoding: 'utf8' });
  assert.ok(
    found.status === 0,
    `${language}: '${command}' is not installed; install it with: apt-get install -y --no-install-recommends ${aptPackages.join(' ')} (or run scripts/ci-toolchains.sh)`,
  );
}

// ---- generation and driver results ----

const scratch: string[] = [];
process.on('exit', () => {
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

/** Writes `files` (relative path → text) into a fresh temp folder. */
export function writeTemp(name: string, files: Map<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), `mcpgen-${name}-`));
  scratch.push(dir);
  for (const [path, text] of files) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

/** A driver's result: the re-encoded value (with, for a method case, the type it decoded as), or the decode error. */
export type Result = { ok: unknown; decoded?: string } | { path: string; message: string };

/** Decode `data` as the schema type `type`. */
export interface Case {
  type: string;
  data: unknown;
}

/** Decode `data` as the result of the client request `method`, through the method map. */
export interface MethodCase {
  method: string;
  data: unknown;
}

/** Checks a driver's results: every example round-trips to equal JSON. */
export function assertRoundTrips(language: string, revision: string, examples: Example[], results: Result[]): void {
  assert.is(results.length, examples.length, `${language} ${revision}: one result per example`);
  const failing: string[] = [];
  examples.forEach((e, i) => {
    const r = results[i];
    if (!('ok' in r)) failing.push(`${e.key}: refused: ${r.path}: ${r.message}`);
    else {
      try {
        assert.equal(r.ok, e.data);
      } catch {
        failing.push(`${e.key}: re-encoded differs: ${JSON.stringify(r.ok).slice(0, 300)}`);
      }
    }
  });
  assert.equal(
    failing,
    [],
    `${language} ${revision}: ${failing.length} of ${examples.length} examples do not round-trip:\n${failing.slice(0, 15).join('\n')}`,
  );
}

/** Checks a driver's results: every mutation is refused, naming the mutated path. */
export function assertRefused(language: string, revision: string, list: Mutation[], results: Result[]): void {
  assert.is(results.length, list.length, `${language} ${revision}: one result per mutation`);
  const wrong: string[] = [];
  list.forEach((m, i) => {
    const r = results[i];
    if ('ok' in r) wrong.push(`${m.example}: ${m.kind} at ${m.path} accepted`);
    else if (r.path !== m.path) wrong.push(`${m.example}: ${m.kind} at ${m.path}: error names ${r.path}: ${r.message}`);
    else if (m.kind === 'drop required' && r.message !== 'required')
      wrong.push(`${m.example}: drop ${m.path}: message ${r.message}`);
  });
  assert.equal(
    wrong.slice(0, 15),
    [],
    `${language} ${revision}: ${wrong.length} of ${list.length} mutations not refused at their path:\n${wrong.slice(0, 15).join('\n')}`,
  );
  const kinds = new Set(list.map((m) => m.kind));
  assert.equal(
    [...kinds].sort(),
    ['drop required', 'wrong const', 'wrong type'],
    'every kind of mutation is exercised',
  );
}

/**
 * A model with one more variant in `ContentBlock` (`VideoContent`, `type: "video"`): an
 * exhaustive match over ContentBlock written against the real revision must reject it.
 */
export function modelWithExtraVariant(revision: string): ProtocolModel {
  const model = structuredClone(loadModel(revision));
  model.types.VideoContent = {
    name: 'VideoContent',
    description: 'A test-only variant.',
    schema: {
      type: 'object',
      properties: { type: { type: 'string', const: 'video' }, url: { type: 'string' } },
      required: ['type', 'url'],
    },
  };
  const cb = model.types.ContentBlock.schema as { anyOf: JsonSchema[] };
  cb.anyOf = [...cb.anyOf, { $ref: '#/$defs/VideoContent' }];
  return model;
}
