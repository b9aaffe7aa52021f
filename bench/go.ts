/**
 * `npm run bench:go [-- --benchtime 3s]`: one tool call (tools/call of an echo tool) with the Go
 * SDK, go-sdk (github.com/modelcontextprotocol/go-sdk, pinned in go/reference/go.mod) and a bare
 * limit (the same JSON-RPC exchange with encoding/json only; over HTTP a net/http POST echo), over
 * stdio framing on OS pipes and over Streamable HTTP (2025-11-25, a session), in one run of
 * go/reference/bench (go test -bench -benchmem; client and server in one process, so each figure
 * counts both sides). Prints per transport and implementation `name: value unit` (calls/s of one
 * caller, CPU per call, allocations and bytes per call) and the comparisons `name: N.NNx`.
 */
import { parseArgs } from 'node:util';
import { generateGo } from '../go/generate.js';
import { go } from '../test/go/support.js';

const { values } = parseArgs({ options: { benchtime: { type: 'string' } }, strict: true });
const benchtime = values.benchtime ?? '3s';

generateGo();
const r = await go(['test', '-run', '^$', '-bench', '.', '-benchmem', '-benchtime', benchtime, './bench'], 'reference');
if (r.status !== 0) {
  console.error(r.output);
  process.exit(1);
}

interface Figures {
  nsPerOp: number;
  cpuNsPerOp: number;
  bytesPerOp: number;
  allocsPerOp: number;
}
const results = new Map<string, Figures>();
for (const line of r.stdout.split('\n')) {
  const m =
    /^Benchmark(\w+)\/([\w-]+?)(?:-\d+)?\s+\d+\s+([\d.]+) ns\/op\s+([\d.]+) cpu-ns\/op\s+(\d+) B\/op\s+(\d+) allocs\/op/.exec(
      line,
    );
  if (!m) continue;
  results.set(`${m[1].toLowerCase()} ${m[2]}`, {
    nsPerOp: Number(m[3]),
    cpuNsPerOp: Number(m[4]),
    bytesPerOp: Number(m[5]),
    allocsPerOp: Number(m[6]),
  });
}
const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits });
for (const transport of ['stdio', 'http']) {
  for (const impl of ['mcpgen', 'go-sdk', 'bare']) {
    const f = results.get(`${transport} ${impl}`);
    if (!f) {
      console.error(`bench:go: no result for ${transport} ${impl}:\n${r.output}`);
      process.exit(1);
    }
    console.log(`go ${transport} ${impl} calls/s: ${fmt(1e9 / f.nsPerOp)} calls/s`);
    console.log(`go ${transport} ${impl} cpu per call: ${fmt(f.cpuNsPerOp / 1000, 1)} µs`);
    console.log(`go ${transport} ${impl} allocs per call: ${f.allocsPerOp} allocs`);
    console.log(`go ${transport} ${impl} bytes per call: ${f.bytesPerOp} B`);
  }
  const ours = results.get(`${transport} mcpgen`)!;
  const sdk = results.get(`${transport} go-sdk`)!;
  const bare = results.get(`${transport} bare`)!;
  const x = (a: number, b: number) => `${(a / b).toFixed(2)}x`;
  console.log(`go ${transport} throughput mcpgen vs go-sdk: ${x(sdk.nsPerOp, ours.nsPerOp)}`);
  console.log(`go ${transport} allocs go-sdk vs mcpgen: ${x(sdk.allocsPerOp, ours.allocsPerOp)}`);
  console.log(`go ${transport} cpu go-sdk vs mcpgen: ${x(sdk.cpuNsPerOp, ours.cpuNsPerOp)}`);
  console.log(`go ${transport} throughput bare vs mcpgen: ${x(ours.nsPerOp, bare.nsPerOp)}`);
}
