/**
 * The shape of a model diff: sections, kinds of change, who a change breaks (client, server),
 * the report and its options; and the rule that turns a change's effect on the sender or the
 * receiver of a payload into who it breaks.
 */
import type { Direction, ProtocolModel } from '../model.js';

export type Party = 'client' | 'server';

export type Section =
  | 'lifecycle'
  | 'methods'
  | 'notifications'
  | 'params'
  | 'results'
  | 'capabilities'
  | 'types'
  | 'errors';
/** Report order of the sections. */
export const SECTIONS: readonly Section[] = [
  'lifecycle',
  'methods',
  'notifications',
  'params',
  'results',
  'capabilities',
  'types',
  'errors',
];
export const SECTION_TITLES: Readonly<Record<Section, string>> = {
  lifecycle: 'Lifecycle',
  methods: 'Requests',
  notifications: 'Notifications',
  params: 'Params fields',
  results: 'Result fields',
  capabilities: 'Capabilities',
  types: 'Named types',
  errors: 'Error codes',
};

export type ChangeKind =
  | 'lifecycle'
  | 'protocol-version'
  | 'method-added'
  | 'method-removed'
  | 'notification-added'
  | 'notification-removed'
  | 'direction'
  | 'embedded'
  | 'capability-gate'
  | 'result-type'
  | 'alt-result-added'
  | 'alt-result-removed'
  | 'field-added'
  | 'field-removed'
  | 'optional-to-required'
  | 'required-to-optional'
  | 'type'
  | 'enum'
  | 'const'
  | 'variant-added'
  | 'variant-removed'
  | 'constraint'
  | 'type-added'
  | 'type-removed'
  | 'deprecated'
  | 'error-code-added'
  | 'error-code-removed'
  | 'error-code-changed';

export interface Breaking {
  client: boolean;
  server: boolean;
}

export interface Change {
  section: Section;
  kind: ChangeKind;
  /** What changed: a method, a field path (`tools/call params.arguments`), a type or an error name. */
  subject: string;
  /** The method the change belongs to, when it belongs to one. */
  method: string | null;
  direction: Direction | null;
  before: string | null;
  after: string | null;
  /** One line for people. */
  detail: string;
  breaking: Breaking;
}

export interface ModelRef {
  revision: string;
  protocolVersion: string;
  lifecycle: ProtocolModel['lifecycle'];
}

export interface Counts {
  total: number;
  breakingForClient: number;
  breakingForServer: number;
}

export interface DiffReport {
  from: ModelRef;
  to: ModelRef;
  /** Sorted by section (SECTIONS order), subject, direction, kind, detail. */
  changes: Change[];
  summary: Counts & {
    breaking: number;
    bySection: Record<Section, Counts>;
    byKind: Partial<Record<ChangeKind, number>>;
  };
}

export interface DiffOptions {
  /** How many levels below a params/result/capabilities root the walk descends. Default 10. */
  maxDepth?: number;
}

export const DEFAULT_MAX_DEPTH = 10;

/** Who a change breaks, relative to the payload: its sender, its receiver, both or nobody. */
export type Effect = 'none' | 'sender' | 'receiver' | 'both';
export interface Roles {
  sender: Party;
  receiver: Party;
}

export const fromOf = (d: Direction): Party => (d === 'clientToServer' ? 'client' : 'server');
export const toOf = (d: Direction): Party => (d === 'clientToServer' ? 'server' : 'client');
export const other = (p: Party): Party => (p === 'client' ? 'server' : 'client');

export function breakingOf(effect: Effect, roles: Roles): Breaking {
  const b: Breaking = { client: false, server: false };
  if (effect === 'sender' || effect === 'both') b[roles.sender] = true;
  if (effect === 'receiver' || effect === 'both') b[roles.receiver] = true;
  return b;
}
export const anyBreaking = (...bs: Breaking[]): Breaking => ({
  client: bs.some((b) => b.client),
  server: bs.some((b) => b.server),
});
export const NOBODY: Breaking = { client: false, server: false };
export const BOTH: Breaking = { client: true, server: true };
