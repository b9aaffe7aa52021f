/**
 * Load with matching (`npm run bench:load`, and at a small size test/fuzz/load.test.ts):
 * - sessions: `sessions` concurrent Streamable HTTP sessions (2025-11-25) against
 *   `mcpgen serve --http 0`, each initialized, then `calls` echo `tools/call`s, then DELETE;
 * - stateless: `stateless` concurrent clients against the dual-era `mcpgen serve --http 0
 *   --rev draft`, each sending `calls` stateless `tools/call`s (2026-07-28 `_meta` and headers).
 * Every call carries a token of its own (client, call, a random part) that the echo tool
 * returns: an answer counts only when its POST carries exactly one response, with the request's
 * id and its own token. Anything else is `lost` (no answer, an error, a wrong status) or
 * `crossed` (another request's id or token). Raw node:http POSTs on one keep-alive Agent, so
 * the client side stays cheap next to the server.
 */
import { randomBytes } from 'node:crypto';
import { Agent, request } from 'node:http';
import { fileURLToPath } from 'node:url';
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { SseParser } from '../runtime/codec/sse.js';
import { pct, startServer, stopChild } from './measure.js';

const root = fileURLToPath(new URL('..', import.meta.url));

export interface LoadOptions {
  sessions: number;
  /** Calls per session and per stateless client. */
  calls: number;
  stateless: number;
  /** Sockets of the client Agent (default 256). */
  sockets?: number;
  /** ms one POST may take (default 120000). */
  timeoutMs?: number;
}

export interface LoadPart {
  clients: number;
  calls: number;
  answered: number;
  lost: number;
  crossed: number;
  /** Distinct session ids minted (sessions part). */
  sessions?: number;
  seconds: number;
  p50: number;
  p99: number;
  rssStart: number;
  rssPeak: number;
  rssEnd: number;
  /** The first few problems. */
  problems: string[];
}

function rss(child: ChildProcess): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  messages: Record<string, unknown>[];
}

function post(
  agent: Agent,
  url: URL,
  body: string,
  headers: Record<string, string>,
  timeoutMs: number,
  method = 'POST',
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const r = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method,
        agent,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'content-length': Buffer.byteLength(body),
          ...headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const ct = String(res.headers['content-type'] ?? '');
          let messages: Record<string, unknown>[] = [];
          try {
            if (ct.startsWith('text/event-stream')) {
              const p = new SseParser();
              messages = [...p.push(Buffer.from(text)), ...p.end()]
                .filter((e) => e.data !== '')
                .map((e) => JSON.parse(e.data) as Record<string, unknown>);
            } else if (text.trim()) messages = [JSON.parse(text) as Record<string, unknown>];
          } catch {
            messages = [];
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, messages });
        });
      },
    );
    r.setTimeout(timeoutMs, () => r.destroy(new Error(`timeout after ${timeoutMs} ms`)));
    r.on('error', reject);
    r.end(body);
  });
}

/** Checks one call's reply: exactly one response, the request's id, the call's own token. */
function judge(reply: Reply, id: number | string, token: string): 'ok' | 'lost' | 'crossed' {
  const responses = reply.messages.filter((m) => m.method === undefined);
  if (reply.status !== 200 || responses.length === 0) return 'lost';
  if (responses.length !== 1 || responses[0].id !== id) return 'crossed';
  const result = responses[0].result as { content?: { text?: string }[] } | undefined;
  if (!result) return 'lost';
  return result.content?.[0]?.text === token ? 'ok' : 'crossed';
}

async function measure(
  child: ChildProcess,
  clients: number,
  client: (
    c: number,
    record: (outcome: 'ok' | 'lost' | 'crossed', ms: number, problem?: string) => void,
  ) => Promise<void>,
): Promise<LoadPart> {
  const part: LoadPart = {
    clients,
    calls: 0,
    answered: 0,
    lost: 0,
    crossed: 0,
    seconds: 0,
    p50: 0,
    p99: 0,
    rssStart: rss(child),
    rssPeak: 0,
    rssEnd: 0,
    problems: [],
  };
  part.rssPeak = part.rssStart;
  const sampler = setInterval(() => (part.rssPeak = Math.max(part.rssPeak, rss(child))), 200);
  const times: number[] = [];
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: clients }, (_, c) =>
      client(c, (outcome, ms, problem) => {
        part.calls++;
        times.push(ms);
        if (outcome === 'ok') part.answered++;
        else if (outcome === 'lost') part.lost++;
        else part.crossed++;
        if (problem && part.problems.length < 10) part.problems.push(problem);
      }),
    ),
  );
  part.seconds = (performance.now() - t0) / 1000;
  clearInterval(sampler);
  times.sort((a, b) => a - b);
  part.p50 = pct(times, 50);
  part.p99 = pct(times, 99);
  part.rssEnd = rss(child);
  part.rssPeak = Math.max(part.rssPeak, part.rssEnd);
  return part;
}

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'load', version: '1' },
};

/** Runs both parts, each against its own `mcpgen serve` child process. */
// size: one load run from start to report, a benchmark script
export async function runLoad(o: LoadOptions): Promise<{ sessions: LoadPart; stateless: LoadPart }> {
  const timeoutMs = o.timeoutMs ?? 120_000;
  const sockets = o.sockets ?? 256;
  const bin = `${root}bin/mcpgen.js`;

  const legacy = await startServer([bin, 'serve', '--http', '0'], root);
  let sessions: LoadPart;
  try {
    const url = new URL(legacy.url);
    const agent = new Agent({ keepAlive: true, maxSockets: sockets });
    const ids = new Set<string>();
    sessions = await measure(legacy.child, o.sessions, async (c, record) => {
      const v = { 'mcp-protocol-version': '2025-11-25' };
      let sid: string;
      try {
        const init = await post(
          agent,
          url,
          JSON.stringify({
            jsonrpc: '2.0',
            id: 0,
            method: 'initialize',
            params: {
              protocolVersion: '2025-11-25',
              capabilities: {},
              clientInfo: { name: `load-${c}`, version: '1' },
            },
          }),
          {},
          timeoutMs,
        );
        const h = init.headers['mcp-session-id'];
        if (init.status !== 200 || typeof h !== 'string') throw new Error(`initialize: ${init.status}`);
        sid = h;
        ids.add(sid);
        await post(
          agent,
          url,
          '{"jsonrpc":"2.0","method":"notifications/initialized"}',
          { ...v, 'mcp-session-id': sid },
          timeoutMs,
        );
      } catch (e) {
        for (let i = 0; i < o.calls; i++) record('lost', 0, `session ${c}: ${(e as Error).message}`);
        return;
      }
      for (let i = 1; i <= o.calls; i++) {
        const token = `s${c}:${i}:${randomBytes(6).toString('hex')}`;
        const t = performance.now();
        try {
          const r = await post(
            agent,
            url,
            JSON.stringify({
              jsonrpc: '2.0',
              id: i,
              method: 'tools/call',
              params: { name: 'echo', arguments: { text: token } },
            }),
            { ...v, 'mcp-session-id': sid },
            timeoutMs,
          );
          const outcome = judge(r, i, token);
          record(
            outcome,
            performance.now() - t,
            outcome === 'ok'
              ? undefined
              : `session ${c} call ${i}: ${r.status} ${JSON.stringify(r.messages).slice(0, 160)}`,
          );
        } catch (e) {
          record('lost', performance.now() - t, `session ${c} call ${i}: ${(e as Error).message}`);
        }
      }
      await post(agent, url, '', { ...v, 'mcp-session-id': sid }, timeoutMs, 'DELETE').catch(() => undefined);
    });
    sessions.sessions = ids.size;
    agent.destroy();
  } finally {
    await stopChild(legacy.child);
  }

  const modern = await startServer([bin, 'serve', '--http', '0', '--rev', 'draft'], root);
  let stateless: LoadPart;
  try {
    const url = new URL(modern.url);
    const agent = new Agent({ keepAlive: true, maxSockets: sockets });
    stateless = await measure(modern.child, o.stateless, async (c, record) => {
      for (let i = 1; i <= o.calls; i++) {
        // every client uses the same ids: requests of different POSTs must never meet
        const token = `m${c}:${i}:${randomBytes(6).toString('hex')}`;
        const t = performance.now();
        try {
          const r = await post(
            agent,
            url,
            JSON.stringify({
              jsonrpc: '2.0',
              id: i,
              method: 'tools/call',
              params: { name: 'echo', arguments: { text: token }, _meta: META },
            }),
            { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'echo' },
            timeoutMs,
          );
          const outcome = judge(r, i, token);
          record(
            outcome,
            performance.now() - t,
            outcome === 'ok'
              ? undefined
              : `client ${c} call ${i}: ${r.status} ${JSON.stringify(r.messages).slice(0, 160)}`,
          );
        } catch (e) {
          record('lost', performance.now() - t, `client ${c} call ${i}: ${(e as Error).message}`);
        }
      }
    });
    agent.destroy();
  } finally {
    await stopChild(modern.child);
  }
  return { sessions, stateless };
}

/** The figures of a part, `name: value unit`. */
export function loadFigures(name: string, p: LoadPart): string[] {
  const mib = (b: number) => (b / 1048576).toFixed(1);
  return [
    `load.${name}.clients: ${p.clients} clients`,
    ...(p.sessions !== undefined ? [`load.${name}.sessions: ${p.sessions} sessions`] : []),
    `load.${name}.calls: ${p.calls} calls`,
    `load.${name}.answered: ${p.answered} calls`,
    `load.${name}.lost: ${p.lost} calls`,
    `load.${name}.crossed: ${p.crossed} calls`,
    `load.${name}.throughput: ${(p.calls / Math.max(p.seconds, 0.001)).toFixed(0)} calls/s`,
    `load.${name}.p50: ${p.p50.toFixed(1)} ms`,
    `load.${name}.p99: ${p.p99.toFixed(1)} ms`,
    `load.${name}.seconds: ${p.seconds.toFixed(1)} s`,
    `load.${name}.rss_start: ${mib(p.rssStart)} MiB`,
    `load.${name}.rss_peak: ${mib(p.rssPeak)} MiB`,
    `load.${name}.rss_end: ${mib(p.rssEnd)} MiB`,
  ];
}
