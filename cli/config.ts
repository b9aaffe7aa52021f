/**
 * The project's configuration, `mcpgen.config.json` (schema/config.schema.json), found in the
 * working folder or named by `--config FILE`, and the lock of pins beside it (./lock.ts).
 *
 * ```json
 * { "revisions": ["2025-11-25", "draft"], "out": "src/mcp", "targets": [],
 *   "runtimeImport": "@mcpgen/runtime/codegen/v1",
 *   "inputs": { "specDir": "../modelcontextprotocol", "cacheDir": ".mcpgen-cache",
 *               "lock": "mcpgen.lock.json", "baseUrl": "https://mirror.example/{commit}/{path}" } }
 * ```
 *
 * Relative paths are relative to the folder of the config file. Precedence, for each setting:
 * command-line flag, then the config file, then the environment (`MCP_SPEC_DIR`,
 * `MCPGEN_CACHE`), then the default. Without a config file the project is the working folder
 * (its `mcpgen.lock.json`, if any, still applies). Problems are ConfigError (exit 2).
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { EmitOptions } from '../generator/emit/common.js';
import { type Pins, loadPins } from '../schema/resolve.js';
import { withdrawnTarget } from '../generator/emit/bindings/index.js';
import { didYouMean } from './nearest.js';
import { ConfigError, readProjectFile, shownPath } from './json-file.js';
import { LOCK_FILE, type Lock, mergePins, readLock } from './lock.js';

export { ConfigError };
export const CONFIG_FILE = 'mcpgen.config.json';

/** The keys of mcpgen.config.json (see schema/config.schema.json for each). */
export interface McpgenConfig {
  $schema?: string;
  revisions?: string[];
  out?: string;
  targets?: string[];
  runtimeImport?: string;
  validators?: 'compact' | 'ajv';
  /** MCP extensions generated beside each revision, by name in the pins (`["apps"]`). */
  extensions?: string[];
  inputs?: { specDir?: string; cacheDir?: string; lock?: string; baseUrl?: string };
}

/** A loaded project: its config (empty without a file), lock and the pins in effect. */
export interface Project {
  /** Absolute path of the config file; null when the project has none. */
  configFile: string | null;
  config: McpgenConfig;
  /** The folder relative paths of the config resolve against. */
  root: string;
  /** Absolute path of the lock (it may not exist yet). */
  lockFile: string;
  lock: Lock | null;
  /** The shipped pins with the lock's revisions in place of or beside them. */
  pins: Pins;
  /** `inputs.*` of the config, paths absolute; undefined when the config does not say. */
  out?: string;
  specDir?: string;
  cacheDir?: string;
  baseUrl?: string;
}

/**
 * Loads the project: `configPath` (from `--config`; must exist) or `<cwd>/mcpgen.config.json`
 * when present, and its lock. Throws ConfigError naming the file and the field, among them an
 * `inputs.lock` that names no file (unless `lockMayBeAbsent`: `mcpgen pin` writes it).
 */
export function loadProject(
  configPath?: string,
  cwd = process.cwd(),
  options: { lockMayBeAbsent?: boolean } = {},
): Project {
  const found =
    configPath !== undefined
      ? resolve(cwd, configPath)
      : existsSync(join(cwd, CONFIG_FILE))
        ? join(cwd, CONFIG_FILE)
        : null;
  const config = found ? readProjectFile<McpgenConfig>(found, 'config.schema.json', cwd, explainConfig) : {};
  const root = found ? dirname(found) : cwd;
  const at = (p: string | undefined) => (p === undefined ? undefined : resolve(root, p));
  const lockFile = at(config.inputs?.lock) ?? join(root, LOCK_FILE);
  // a lock the config names must be there (else its pins would silently not apply); `pin` creates it
  if (found && config.inputs?.lock !== undefined && !options.lockMayBeAbsent && !existsSync(lockFile)) {
    throw new ConfigError(
      shownPath(found, cwd),
      'inputs.lock',
      `${JSON.stringify(config.inputs.lock)}: no such file (${shownPath(lockFile, cwd)}); mcpgen pin <rev> creates it`,
    );
  }
  const lock = readLock(lockFile);
  return {
    configFile: found,
    config,
    root,
    lockFile,
    lock,
    pins: mergePins(loadPins(), lock, lockFile),
    out: at(config.out),
    specDir: at(config.inputs?.specDir),
    cacheDir: at(config.inputs?.cacheDir),
    baseUrl: config.inputs?.baseUrl,
  };
}

/** A withdrawn language in `targets` gets the explanation `--target` gives, not the list of allowed values. */
function explainConfig(keyword: string, field: string, value: unknown): string | undefined {
  if (keyword !== 'enum' || !/^targets\[\d+\]$/.test(field) || typeof value !== 'string') return undefined;
  const why = withdrawnTarget(value);
  return why && `${JSON.stringify(value)}: ${why}`;
}

/** A ConfigError about `field` of the project's config file. */
export function configError(project: Project, field: string, problem: string): ConfigError {
  return new ConfigError(project.configFile ? shownPath(project.configFile) : CONFIG_FILE, field, problem);
}

/**
 * The config's `revisions` as a `--rev` value (comma list), each checked to be pinned in the
 * lock or shipped with mcpgen; undefined when the config does not list any.
 */
export function configuredRevisions(project: Project): string | undefined {
  const revs = project.config.revisions;
  if (!revs) return undefined;
  revs.forEach((r, i) => {
    if (!Object.hasOwn(project.pins.revisions, r)) {
      throw configError(
        project,
        `revisions[${i}]`,
        `"${r}" is not pinned${didYouMean(r, Object.keys(project.pins.revisions))} (pinned: ${Object.keys(project.pins.revisions).join(', ')}); pin it first: mcpgen pin ${r} --commit <sha>`,
      );
    }
  });
  return revs.join(',');
}

/** The config's `targets` as a `--target` value; undefined when it does not say. */
export function configuredTargets(project: Project): string | undefined {
  const t = project.config.targets;
  return t === undefined ? undefined : t.includes('all') ? 'all' : t.length ? t.join(',') : undefined;
}

/**
 * The emit options the config sets: the one place the config's `runtimeImport` and
 * `validators` reach the generator (generate and check). Command-line `--runtime-import` and
 * `--validators` take precedence over them.
 */
export function configEmitOptions(
  project: Project,
  runtimeImportFlag?: string,
  validatorsFlag?: 'compact' | 'ajv',
): Partial<EmitOptions> {
  const runtimeImport = runtimeImportFlag ?? project.config.runtimeImport;
  const validators = validatorsFlag ?? project.config.validators;
  return {
    ...(runtimeImport === undefined ? {} : { runtimeImport }),
    ...(validators === undefined ? {} : { validators }),
  };
}

/**
 * Removes `--config FILE` (or `--config=FILE`) from `args`: the option every command that reads
 * the project takes. A `--config` without a value, or given twice, is a ConfigError.
 */
export function takeConfigFlag(args: string[]): { args: string[]; config?: string } {
  const rest: string[] = [];
  let config: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--') {
      rest.push(...args.slice(i));
      break;
    }
    if (a === '--config' || a.startsWith('--config=')) {
      const value = a === '--config' ? args[++i] : a.slice('--config='.length);
      if (!value || (a === '--config' && value.startsWith('--')))
        throw new ConfigError('--config', null, 'needs a file (mcpgen.config.json)');
      if (config !== undefined) throw new ConfigError('--config', null, 'is given more than once; it takes one file');
      config = value;
    } else rest.push(a);
  }
  return { args: rest, config };
}
