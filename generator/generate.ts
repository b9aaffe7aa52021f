/**
 * The generator as a pure function: ProtocolModel → files (path relative to generated/<rev>/ →
 * text). No I/O; the CLI writes what it returns.
 */
import type { ProtocolModel } from './model.js';
import { DEFAULT_EMIT_OPTIONS, type EmitOptions, type Files } from './emit/common.js';
import { emitParity } from './emit/parity.js';
import { emitFacades } from './emit/facades.js';
import { emitPackage } from './emit/package.js';
import { emitProtocol } from './emit/protocol.js';
import { emitTypes } from './emit/types.js';
import { emitValidators } from './emit/validators.js';
import { emitTargets } from './emit/bindings/index.js';
import { preamble } from './emit/common.js';
import { byCodeUnit, stableJson } from './util.js';

export type Step = 'model' | 'types' | 'validators' | 'protocol' | 'facades' | 'parity' | 'package' | 'bindings';
export const STEPS: readonly Step[] = ['model', 'types', 'validators', 'protocol', 'facades', 'parity', 'package', 'bindings'];

export interface GenerateOptions extends Partial<EmitOptions> {
  /** Called after each step with its duration in ms. */
  onStep?: (step: Step, ms: number) => void;
  /** Other-language message bindings to emit under bindings/<lang>/ (ids of TARGET_IDS). */
  targets?: readonly string[];
  /** Called after each language of the `bindings` step with its file count and duration in ms. */
  onTarget?: (language: string, files: number, ms: number) => void;
}

export async function generate(model: ProtocolModel, options: GenerateOptions = {}): Promise<Files> {
  const opts: EmitOptions = { ...DEFAULT_EMIT_OPTIONS, ...options };
  const out: Files = new Map();
  const step = async (name: Step, fn: () => Files | Promise<Files>) => {
    const t0 = performance.now();
    for (const [k, v] of await fn()) out.set(k, v);
    options.onStep?.(name, performance.now() - t0);
  };
  await step('model', () => new Map([['model.json', stableJson(model)]]));
  await step('types', () => emitTypes(model));
  await step('validators', () => emitValidators(model, opts));
  await step('protocol', () => emitProtocol(model, opts));
  await step('facades', () => emitFacades(model, opts));
  await step('parity', () => emitParity(model));
  await step('package', () => emitPackage(model));
  if (options.targets?.length) {
    const header = preamble(model, '').trim();
    await step('bindings', () => emitTargets(model, options.targets!, header, options.onTarget));
  }
  return new Map([...out].sort(([a], [b]) => byCodeUnit(a, b)));
}
