/**
 * Message bindings for other languages. `emitTargets` is the entry `generate` uses: the
 * languages of own.ts are rendered from the ProtocolModel by mcpgen's own emitters
 * (../<lang>/bindings.ts), the SDK targets by ../<lang>/sdk.ts. Each is pure: the same model
 * gives byte-identical files.
 *
 * C++ and Swift were rendered by quicktype-core from the schema's `$defs`; those bindings
 * dropped undeclared members (a tool's `inputSchema` lost `$defs` and `oneOf`), accepted messages
 * missing required members and rewrote values (`"data":42` as `"data":"42"`), so they are
 * withdrawn from `--target` (`WITHDRAWN_TARGETS`) until mcpgen renders them from the model.
 */
import type { ProtocolModel } from '../../model.js';
import { byCodeUnit } from '../../util.js';
import { emitGoSdk } from '../go/sdk.js';
import { emitPythonSdk } from '../python/sdk.js';
import { OWN_BINDING_LANGUAGES, isOwnLanguage } from './own.js';

export { OWN_BINDING_LANGUAGES, OWN_BINDING_LANGUAGE_IDS, isOwnLanguage } from './own.js';
export type { BindingTest, OwnLanguage, OwnLanguageId } from './own.js';

/**
 * The SDK targets: a whole SDK of a language (models, method maps, typed client and server) on
 * that language's mcpgen runtime, written under `<lang>/` of the revision's folder
 * (`python-sdk`: generator/emit/python/sdk.ts, the package `mcp_<rev>` over `mcpgen_runtime`;
 * `go-sdk`: generator/emit/go/sdk.ts, the package `mcp<rev digits>` over the Go module
 * `mcpgen.dev/runtime`).
 */
export const SDK_TARGETS: Readonly<Record<string, (model: ProtocolModel) => Map<string, string>>> = {
  'python-sdk': emitPythonSdk,
  'go-sdk': emitGoSdk,
};

/** Every `--target` language: mcpgen's own binding emitters, then the SDKs. */
export const TARGET_IDS: readonly string[] = [...Object.keys(OWN_BINDING_LANGUAGES), ...Object.keys(SDK_TARGETS)];

const QUICKTYPE_FAULTS =
  'its quicktype-rendered binding dropped undeclared members, accepted messages missing required members and rewrote values';

/**
 * Targets mcpgen offered before and offers no longer: id → why, and what to use instead. `--target`
 * refuses them with this text (cli/main.ts), so a build that named one fails with the reason.
 */
export const WITHDRAWN_TARGETS: Readonly<Record<string, string>> = {
  cpp: `C++ bindings are withdrawn: ${QUICKTYPE_FAULTS}; they come back when mcpgen renders them from the ProtocolModel (the messages are described by the revision's schema.json, which nlohmann/json users can validate against)`,
  swift: `Swift bindings are withdrawn: ${QUICKTYPE_FAULTS}, and no Swift compiler could test them; they come back when mcpgen renders them from the ProtocolModel`,
};

/** The message of a withdrawn target, or undefined. */
export function withdrawnTarget(id: string): string | undefined {
  return Object.hasOwn(WITHDRAWN_TARGETS, id) ? WITHDRAWN_TARGETS[id] : undefined;
}

/**
 * The bindings of one revision for `targets` (ids of TARGET_IDS): relative path → text, in
 * code-unit order. `onLanguage` is called after each language with the number of files it made
 * and its duration in ms (own languages first, then the SDKs, each in code-unit order). An id
 * outside TARGET_IDS is an error (a withdrawn one with its reason).
 */
export async function emitTargets(
  model: ProtocolModel,
  targets: readonly string[],
  onLanguage?: (language: string, files: number, ms: number) => void,
): Promise<Map<string, string>> {
  const ids = [...new Set(targets)].sort(byCodeUnit);
  for (const id of ids) {
    if (isOwnLanguage(id) || Object.hasOwn(SDK_TARGETS, id)) continue;
    throw new Error(withdrawnTarget(id) ?? `unknown target ${id} (targets: ${TARGET_IDS.join(', ')})`);
  }
  const files = new Map<string, string>();
  const emitters = [
    ...ids.filter(isOwnLanguage).map((id) => [id, OWN_BINDING_LANGUAGES[id].emit] as const),
    ...ids.filter((id) => Object.hasOwn(SDK_TARGETS, id)).map((id) => [id, SDK_TARGETS[id]] as const),
  ];
  for (const [id, emit] of emitters) {
    const t0 = performance.now();
    const out = emit(model);
    for (const [path, text] of out) files.set(path, text);
    onLanguage?.(id, out.size, performance.now() - t0);
  }
  return new Map([...files].sort(([a], [b]) => byCodeUnit(a, b)));
}
