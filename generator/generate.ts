/**
 * The generator as a pure function: ProtocolModel → files (path relative to generated/<rev>/ →
 * text). No I/O; the CLI writes what it returns. The output holds no machine path: the same
 * inputs give the same bytes whatever the folders of the checkout, the inputs and the output
 * (model.json names its inputs by sha256 and size; generated code imports the runtime by the
 * `runtimeImport` specifier, default `@mcpgen/runtime/codegen/v1`). The parity check against
 * upstream schema.ts, which must import that file by path, is not part of the output: see
 * emit/parity.ts.
 */
import type { ProtocolModel } from './model.js';
import { DEFAULT_EMIT_OPTIONS, DEFAULT_RUNTIME_IMPORT, type EmitOptions, type Files } from './emit/common.js';
import { emitFacades } from './emit/facades.js';
import { emitPackage } from './emit/package.js';
import { emitProtocol } from './emit/protocol.js';
import { emitTypes } from './emit/types.js';
import { emitValidators, validatorsForm } from './emit/validators.js';
import { emitTargets } from './emit/bindings/index.js';
import { emitExtension } from './extension/emit.js';
import type { ExtensionModel } from './extension/model.js';
import { byCodeUnit, stableJson } from './util.js';
import { IngestError } from './ingest-error.js';
import { runtimeGaps } from './runtime-facts.js';

export type Step = 'model' | 'types' | 'validators' | 'protocol' | 'facades' | 'package' | 'extensions' | 'bindings';
export const STEPS: readonly Step[] = [
  'model',
  'types',
  'validators',
  'protocol',
  'facades',
  'package',
  'extensions',
  'bindings',
];

/**
 * Options of {@link generate}. `runtimeImport` (from {@link EmitOptions}): the import specifier
 * generated modules use for the runtime entry, default {@link DEFAULT_RUNTIME_IMPORT}
 * (`@mcpgen/runtime/codegen/v1`); any specifier the output folder resolves (a package name, a
 * tsconfig path, a relative path such as `../../runtime/codegen/v1.js`) is written verbatim.
 */
export interface GenerateOptions extends Partial<EmitOptions> {
  /** Called after each step with its duration in ms. */
  onStep?: (step: Step, ms: number) => void;
  /** Called as each step begins (before its synchronous work). */
  onStepStart?: (step: Step) => void;
  /** Other-language message bindings to emit under bindings/<lang>/ (ids of TARGET_IDS). */
  targets?: readonly string[];
  /** Called after each language of the `bindings` step with its file count and duration in ms. */
  onTarget?: (language: string, files: number, ms: number) => void;
  /**
   * Called with what the output differs in from what the options asked for (a revision whose
   * schemas compact validators cannot express gets ajv validators: the message names the
   * keyword and its JSON Pointer).
   */
  onWarning?: (message: string) => void;
  /** Extensions to emit beside the revision, each under `<name>/` (./extension/emit.ts). */
  extensions?: readonly ExtensionModel[];
}

/**
 * The files of `model`'s revision (path relative to generated/<rev>/ → text), sorted by path.
 * @throws IngestError naming schema.ts and every fact the runtime needs and the revision lacks
 *   (./runtime-facts.ts `runtimeGaps`): a revision that generates is one the runtime can serve.
 */
export async function generate(model: ProtocolModel, options: GenerateOptions = {}): Promise<Files> {
  const gaps = runtimeGaps(model);
  if (gaps.length)
    throw new IngestError(
      model.inputs.schemaTs.path,
      'runtime facts',
      `revision ${model.revision} (protocol version ${model.protocolVersion}, ${model.lifecycle} lifecycle) cannot be served by the runtime: it lacks ${gaps.join('; ')}`,
    );
  const opts: EmitOptions = { ...DEFAULT_EMIT_OPTIONS, ...options };
  const out: Files = new Map();
  const step = async (name: Step, fn: () => Files | Promise<Files>) => {
    options.onStepStart?.(name);
    const t0 = performance.now();
    for (const [k, v] of await fn()) out.set(k, v);
    options.onStep?.(name, performance.now() - t0);
  };
  await step('model', () => new Map([['model.json', modelJson(model)]]));
  await step('types', () => emitTypes(model));
  const form = validatorsForm(model, opts);
  if (form.unsupported) {
    const u = form.unsupported;
    options.onWarning?.(`validators: ajv form, not compact: ${u.pointer} (${u.keyword}): ${u.why}`);
  }
  await step('validators', () => emitValidators(model, opts));
  await step('protocol', () => emitProtocol(model, opts));
  await step('facades', () => emitFacades(model, opts));
  await step('package', () => emitPackage(model));
  if (options.extensions?.length) {
    await step('extensions', async () => {
      const files: Files = new Map();
      for (const ext of options.extensions!)
        for (const [p, t] of await emitExtension(ext, model, opts)) files.set(p, t);
      return files;
    });
  }
  if (options.targets?.length) await step('bindings', () => emitTargets(model, options.targets!, options.onTarget));
  return new Map([...out].sort(([a], [b]) => byCodeUnit(a, b)));
}

export { DEFAULT_RUNTIME_IMPORT };

/**
 * model.json: the model as stable JSON, its inputs named by sha256 and size only, and the
 * warnings naming them `schema.json` / `schema.ts` (where they were read from is a fact of the
 * machine, not of the inputs).
 */
export function modelJson(model: ProtocolModel): string {
  const { schemaJson, schemaTs } = model.inputs;
  const file = (f: typeof schemaJson) => ({ sha256: f.sha256, size: f.size });
  const unplaced = (w: string) => w.split(schemaJson.path).join('schema.json').split(schemaTs.path).join('schema.ts');
  return stableJson({
    ...model,
    inputs: { ...model.inputs, schemaJson: file(schemaJson), schemaTs: file(schemaTs) },
    warnings: model.warnings.map(unplaced),
  });
}
