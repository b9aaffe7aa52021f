/** The renderers of a diff report (stable JSON, Markdown) and the small line diff of `mcpgen check`. */
import type { Direction } from '../model.js';
import { stableJson } from '../util.js';
import { type DiffReport, SECTIONS, SECTION_TITLES } from './report.js';

/** Stable JSON for CI: sorted keys, changes in report order, trailing newline. */
export function renderJson(report: DiffReport): string {
  return stableJson(report);
}

export const cell = (s: string | null) => (s ?? '').replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
/**
 * Options of {@link renderMarkdown}: the title (default `MCP protocol diff`) and the names of the
 * two parties (default `client` and `server`; an extension's channel names its own, e.g. `view`
 * and `host`).
 */
export interface MarkdownOptions {
  title?: string;
  parties?: { client: string; server: string };
}
export const flag = (b: boolean) => (b ? '**breaking**' : '·');

/** Markdown for people: a summary table, then one section per kind of change. */
export function renderMarkdown(report: DiffReport, options: MarkdownOptions = {}): string {
  const { from, to, summary } = report;
  const lines: string[] = [];
  const client = options.parties?.client ?? 'client';
  const server = options.parties?.server ?? 'server';
  const dirShort: Record<Direction, string> = {
    clientToServer: `${client} → ${server}`,
    serverToClient: `${server} → ${client}`,
  };
  const Client = client.charAt(0).toUpperCase() + client.slice(1);
  const Server = server.charAt(0).toUpperCase() + server.slice(1);
  lines.push(`# ${options.title ?? 'MCP protocol diff'}: ${from.revision} → ${to.revision}`, '');
  lines.push(
    `Protocol version ${from.protocolVersion} → ${to.protocolVersion} · lifecycle ${from.lifecycle}${from.lifecycle === to.lifecycle ? '' : ` → ${to.lifecycle}`}`,
    '',
  );
  lines.push(
    `**${summary.total} change(s)**, ${summary.breaking} breaking: ${summary.breakingForClient} for ${client}s, ${summary.breakingForServer} for ${server}s.`,
    '',
  );
  if (summary.total === 0) {
    lines.push('No semantic differences.', '');
    return lines.join('\n');
  }
  lines.push(`| Section | Changes | Breaking for ${client}s | Breaking for ${server}s |`, '|---|--:|--:|--:|');
  for (const s of SECTIONS) {
    const c = summary.bySection[s];
    if (c.total) lines.push(`| ${SECTION_TITLES[s]} | ${c.total} | ${c.breakingForClient} | ${c.breakingForServer} |`);
  }
  lines.push(`| **Total** | ${summary.total} | ${summary.breakingForClient} | ${summary.breakingForServer} |`, '');
  for (const s of SECTIONS) {
    const cs = report.changes.filter((c) => c.section === s);
    if (!cs.length) continue;
    lines.push(`## ${SECTION_TITLES[s]} (${cs.length})`, '');
    lines.push(`| Subject | Direction | Change | Detail | ${Client} | ${Server} |`, '|---|---|---|---|---|---|');
    for (const c of cs)
      lines.push(
        `| \`${cell(c.subject)}\` | ${c.direction ? dirShort[c.direction] : ''} | ${c.kind} | ${cell(c.detail)} | ${flag(c.breaking.client)} | ${flag(c.breaking.server)} |`,
      );
    lines.push('');
  }
  return lines.join('\n');
}

// Text diff (for `mcpgen check`)

/**
 * A short unified-style diff of two texts: the first region where their lines differ, with
 * `context` lines around it and at most `maxLines` removed and added lines shown. Empty when
 * the texts are equal.
 */
export function firstLineDiff(
  before: string,
  after: string,
  options: { context?: number; maxLines?: number } = {},
): string[] {
  if (before === after) return [];
  const context = options.context ?? 3;
  const maxLines = options.maxLines ?? 12;
  const a = before.split('\n');
  const b = after.split('\n');
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const from = Math.max(0, start - context);
  const toA = Math.min(a.length, endA + context);
  const toB = Math.min(b.length, endB + context);
  const out = [`@@ -${from + 1},${toA - from} +${from + 1},${toB - from} @@`];
  for (const l of a.slice(from, start)) out.push(` ${l}`);
  const shown = (lines: string[], mark: string) => {
    for (const l of lines.slice(0, maxLines)) out.push(`${mark}${l}`);
    if (lines.length > maxLines) out.push(`${mark}… ${lines.length - maxLines} more line(s)`);
  };
  shown(a.slice(start, endA), '-');
  shown(b.slice(start, endB), '+');
  for (const l of a.slice(endA, toA)) out.push(` ${l}`);
  return out;
}
