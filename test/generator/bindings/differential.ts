/**
 * The differential test of every binding language: a binding must give each input the verdict
 * the schema gives it (ajv, JSON Schema 2020-12, on the revision's schema as mcpgen ingests it:
 * schema.json, widened where schema.ts allows `null` or any number and schema.json lost it, as
 * the TypeScript validators check it; `officialAgreement` shows the official schema.json agrees
 * except at those widenings), keep everything it accepts (re-encoded, the value is equal to the
 * input as JSON: unknown members and explicit nulls included), and refuse everything the schema
 * refuses.
 *
 * Inputs of a revision (`differentialInputs`):
 * - every official example whose type the revision declares (draft's and 2026-07-28's, as
 *   ./own.ts reads them), whatever the schema says of it;
 * - mutations of each example at every depth, inside unions too (the verdict is ajv's, so no
 *   branch needs choosing): each member dropped; an unknown member added to each object (one
 *   holding a nested value with nulls, one holding null); each value below the root replaced by
 *   null, by a value of another JSON kind, and by a nearby value of its own kind (a string with a
 *   suffix, an integer made fractional or negative, an array emptied or with its first item
 *   repeated);
 * - the messages of a real stdio transcript of @modelcontextprotocol/server-everything
 *   (initialize, notifications/tools/list_changed, tools/list), as JSONRPCMessage, and the
 *   results as InitializeResult and ListToolsResult.
 *
 * `format` is an annotation in 2020-12 (ajv `validateFormats: false`), so no binding is asked to
 * check one; no mutation changes a string's format anyway.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv';
import { SPEC_DIR } from '../support.js';
import { corpus, dotted, loadModel, type Case, type Result, type Revision } from './own.js';
import { withAt } from '../mutations.js';

/** One input of the differential test and the schema's verdict on it. */
export interface DifferentialInput extends Case {
  /** What the input is: `<example> <mutation> at <path>`, or the transcript line. */
  label: string;
  /** ajv's verdict on the schema mcpgen generates from (`schemaVerdict`, source `model`). */
  valid: boolean;
}

type Validate = (type: string, data: unknown) => boolean;

/**
 * Where a verdict comes from: `model` is the schema mcpgen generates from (generated/<rev>/
 * model.json: schema.json, widened where schema.ts allows `null` or any number and schema.json
 * lost it, each widening a warning of the model); `official` is the revision's schema.json as
 * published.
 */
export type SchemaSource = 'model' | 'official';

function definitions(revision: string, source: SchemaSource): Record<string, unknown> {
  if (source === 'official')
    return (
      JSON.parse(readFileSync(join(SPEC_DIR, 'schema', revision, 'schema.json'), 'utf8')) as {
        $defs: Record<string, unknown>;
      }
    ).$defs;
  const types = loadModel(revision).types;
  return Object.fromEntries(Object.keys(types).map((name) => [name, types[name].schema]));
}

const validators = new Map<string, Validate>();
/** A schema as a verdict function: ajv, JSON Schema 2020-12, strict off, formats as annotations. */
export function schemaVerdict(revision: string, source: SchemaSource = 'model'): Validate {
  const key = `${revision} ${source}`;
  let v = validators.get(key);
  if (v) return v;
  const defs = definitions(revision, source);
  const Ajv = Ajv2020 as unknown as typeof Ajv2020.default;
  const ajv = new Ajv({ strict: false, validateFormats: false, allErrors: false });
  ajv.addSchema({ $schema: 'https://json-schema.org/draft/2020-12/schema', $defs: defs }, 'mcp');
  const compiled = new Map<string, ValidateFunction>();
  v = (type, data) => {
    let f = compiled.get(type);
    if (!f) {
      if (!Object.hasOwn(defs, type)) throw new Error(`${revision}: no $defs/${type}`);
      f = ajv.getSchema(`mcp#/$defs/${type}`) as ValidateFunction;
      compiled.set(type, f);
    }
    return f(data) as boolean;
  };
  validators.set(key, v);
  return v;
}

const UNKNOWN_NESTED = { nested: [1, null, 'text', { deeper: null }], flag: false };

/** `[label, mutated value]` for one value below the root (see the module doc). */
function valueMutations(value: unknown): Array<[string, unknown]> {
  const out: Array<[string, unknown]> = [];
  if (value !== null) out.push(['null', null]);
  if (typeof value === 'string') {
    out.push(['other kind', 12345], ['suffixed', `${value}-mutated`]);
  } else if (typeof value === 'number') {
    out.push(['other kind', 'mutated']);
    if (Number.isInteger(value)) out.push(['fractional', value + 0.5]);
    out.push(['negative', -1 - Math.abs(value)]);
  } else if (typeof value === 'boolean') {
    out.push(['other kind', 'mutated'], ['flipped', !value]);
  } else if (Array.isArray(value)) {
    out.push(['other kind', { mutated: true }], ['emptied', []]);
    if (value.length > 0) out.push(['first item repeated', [...value, structuredClone(value[0])]]);
  } else if (value !== null && typeof value === 'object') {
    out.push(['other kind', ['mutated']]);
  } else out.push(['other kind', 'mutated']);
  return out;
}

/** Every mutation of one example (see the module doc). */
export function deepMutations(data: unknown): Array<{ label: string; data: unknown }> {
  const out: Array<{ label: string; data: unknown }> = [];
  const walk = (value: unknown, segs: Array<string | number>): void => {
    const at = dotted(segs) || '(root)';
    if (segs.length > 0)
      for (const [label, v] of valueMutations(value))
        out.push({ label: `${label} at ${at}`, data: withAt(data, segs, v) });
    if (Array.isArray(value))
      value.forEach((item, i) => {
        walk(item, [...segs, i]);
      });
    else if (value !== null && typeof value === 'object') {
      const o = value as Record<string, unknown>;
      for (const k of Object.keys(o))
        out.push({ label: `drop ${dotted([...segs, k])}`, data: withAt(data, [...segs, k], undefined, true) });
      out.push({
        label: `unknown member at ${at}`,
        data: withAt(data, [...segs, 'x-mcpgen-unknown'], structuredClone(UNKNOWN_NESTED)),
      });
      out.push({ label: `unknown null member at ${at}`, data: withAt(data, [...segs, 'x-mcpgen-null'], null) });
      for (const k of Object.keys(o)) walk(o[k], [...segs, k]);
    }
  };
  walk(data, []);
  return out;
}

const require = createRequire(import.meta.url);
let transcript: Promise<string[]> | undefined;

/**
 * The stdio transcript of server-everything (its lines as written): the answer to initialize
 * (protocol version 2025-11-25), the notifications it sends, and the answer to tools/list.
 */
export function everythingTranscript(): Promise<string[]> {
  transcript ??= new Promise<string[]>((resolve, reject) => {
    const pkg = require.resolve('@modelcontextprotocol/server-everything/package.json');
    const bin = join(
      dirname(pkg),
      (JSON.parse(readFileSync(pkg, 'utf8')) as { bin: Record<string, string> }).bin['mcp-server-everything'],
    );
    const child = spawn(process.execPath, [bin, 'stdio'], { stdio: ['pipe', 'pipe', 'ignore'] });
    const lines: string[] = [];
    let buffered = '';
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`server-everything: no tools/list answer in 60 s; lines: ${lines.join('\n').slice(0, 500)}`));
    }, 60_000);
    const send = (m: object) => child.stdin.write(`${JSON.stringify(m)}\n`);
    child.on('error', reject);
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      buffered += chunk;
      for (let i = buffered.indexOf('\n'); i >= 0; i = buffered.indexOf('\n')) {
        const line = buffered.slice(0, i);
        buffered = buffered.slice(i + 1);
        if (!line.trim()) continue;
        lines.push(line);
        const m = JSON.parse(line) as { id?: unknown };
        if (m.id === 1) {
          send({ jsonrpc: '2.0', method: 'notifications/initialized' });
          send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
        } else if (m.id === 2) {
          clearTimeout(timer);
          child.kill();
          resolve(lines);
        }
      }
    });
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'mcpgen-test', version: '1.0.0' },
      },
    });
  });
  return transcript;
}

/** The transcript's messages as inputs: each line as JSONRPCMessage, the results as their types. */
export async function transcriptInputs(revision: Revision): Promise<Array<Case & { label: string }>> {
  const lines = await everythingTranscript();
  const out: Array<Case & { label: string }> = [];
  for (const [i, line] of lines.entries()) {
    const m = JSON.parse(line) as { id?: number; result?: unknown };
    out.push({ type: 'JSONRPCMessage', data: m, label: `server-everything line ${i + 1}` });
    if (m.id === 1)
      out.push({ type: 'InitializeResult', data: m.result, label: 'server-everything initialize result' });
    if (m.id === 2) out.push({ type: 'ListToolsResult', data: m.result, label: 'server-everything tools/list result' });
  }
  void revision;
  return out;
}

/** Every input of a revision with the schema's verdict (see the module doc), in a fixed order. */
export async function differentialInputs(revision: Revision): Promise<DifferentialInput[]> {
  const verdict = schemaVerdict(revision);
  const defs = loadModel(revision).types;
  const out: DifferentialInput[] = [];
  const seen = new Set<string>();
  const add = (type: string, data: unknown, label: string): void => {
    if (!Object.hasOwn(defs, type)) return;
    const key = `${type}\n${JSON.stringify(data)}`;
    if (seen.has(key)) return;
    seen.add(key);
    out.push({ type, data, label, valid: verdict(type, data) });
  };
  for (const e of await allExamples(revision)) {
    add(e.type, e.data, e.key);
    for (const m of deepMutations(e.data)) add(e.type, m.data, `${e.key}: ${m.label}`);
  }
  for (const t of await transcriptInputs(revision)) add(t.type, t.data, t.label);
  return out;
}

/** Examples of both corpora whose type the revision declares, accepted by the schema or not. */
async function allExamples(revision: Revision): Promise<Array<{ type: string; key: string; data: unknown }>> {
  const own = await corpus(revision);
  if (revision === 'draft') return own;
  // 2025-11-25's corpus (./own.ts) holds only the examples its validator accepts; the others are
  // inputs too, with the schema's refusal as their verdict.
  const { readdirSync } = await import('node:fs');
  const out: Array<{ type: string; key: string; data: unknown }> = [];
  for (const rev of ['draft', '2026-07-28']) {
    const root = join(SPEC_DIR, 'schema', rev, 'examples');
    for (const type of readdirSync(root).sort()) {
      for (const file of readdirSync(join(root, type)).sort()) {
        if (!file.endsWith('.json')) continue;
        out.push({
          type,
          key: `${rev}/${type}/${file}`,
          data: JSON.parse(readFileSync(join(root, type, file), 'utf8')),
        });
      }
    }
  }
  return out;
}

/** JSON equality of two parsed values (object member order ignored). */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b))
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => sameJson(x, b[i]));
  if (typeof a === 'object' && a !== null && typeof b === 'object' && b !== null) {
    const ka = Object.keys(a).sort();
    const kb = Object.keys(b).sort();
    return (
      ka.length === kb.length &&
      ka.every((k, i) => k === kb[i] && sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
    );
  }
  return false;
}

/** What went wrong with each input whose result differs from the schema's verdict or value. */
export function differences(inputs: DifferentialInput[], results: Result[]): string[] {
  if (results.length !== inputs.length) return [`${results.length} results for ${inputs.length} inputs`];
  const out: string[] = [];
  inputs.forEach((input, i) => {
    const r = results[i];
    const accepted = 'ok' in r;
    if (input.valid && !accepted) out.push(`${input.label} (${input.type}): refused at ${r.path}: ${r.message}`);
    else if (!input.valid && accepted) out.push(`${input.label} (${input.type}): accepted, the schema refuses it`);
    else if (accepted && !sameJson(r.ok, input.data))
      out.push(
        `${input.label} (${input.type}): re-encoded differs: ${JSON.stringify(r.ok).slice(0, 300)} vs ${JSON.stringify(input.data).slice(0, 300)}`,
      );
  });
  return out;
}

/**
 * Inputs on which the official schema.json and the ingested schema disagree. The ingested one
 * only widens (an input the official schema accepts, it accepts), and only where the model says
 * it follows schema.ts: the second list holds the disagreements in revisions whose model reports
 * no such widening (it must be empty).
 */
export function officialAgreement(
  revision: Revision,
  inputs: DifferentialInput[],
): { widened: string[]; unexplained: string[] } {
  const official = schemaVerdict(revision, 'official');
  const widens = loadModel(revision).warnings.some((w) => w.endsWith('following schema.ts'));
  const widened: string[] = [];
  const unexplained: string[] = [];
  for (const input of inputs) {
    const o = official(input.type, input.data);
    if (o === input.valid) continue;
    if (o || !widens)
      unexplained.push(
        `${input.label}: official ${o ? 'accepts' : 'refuses'}, ingested ${input.valid ? 'accepts' : 'refuses'}`,
      );
    else widened.push(input.label);
  }
  return { widened, unexplained };
}
