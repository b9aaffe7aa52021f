/**
 * `mcpgen diff` on the pinned revisions: 2025-11-25 → draft (handshake → stateless, tasks gone,
 * sampling / elicitation / roots embedded in InputRequiredResult, `resultType` on results), the
 * two output formats agreeing, and the exit codes.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Change, DiffReport, Section } from '../../../generator/diff.js';
import { SECTIONS, SECTION_TITLES } from '../../../generator/diff.js';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, run, spawnCli } from './support.js';

const test = suite('diff: mcpgen diff');

let md = '';
let report: DiffReport;

const find = (pred: (c: Change) => boolean) => report.changes.filter(pred);
const has = (kind: Change['kind'], subject: string, direction?: Change['direction']) =>
  find((c) => c.kind === kind && c.subject === subject && (!direction || c.direction === direction)).length > 0;

test.before(async () => {
  const m = await run(['diff', '2025-11-25', 'draft']);
  assert.is(m.code, 0, m.err);
  md = m.out;
  const j = await run(['diff', '2025-11-25', 'draft', '--format', 'json']);
  assert.is(j.code, 0, j.err);
  report = JSON.parse(j.out) as DiffReport;
});

test('lifecycle: handshake → stateless, breaking for both', () => {
  const [c] = find((x) => x.kind === 'lifecycle');
  assert.is(c.detail, 'handshake → stateless');
  assert.equal(c.breaking, { client: true, server: true });
  assert.is(report.from.revision, '2025-11-25');
  assert.is(report.to.revision, 'draft');
});

test('requests removed: initialize, ping, logging/setLevel, resources/(un)subscribe, tasks/*', () => {
  for (const m of ['initialize', 'logging/setLevel', 'resources/subscribe', 'resources/unsubscribe'])
    assert.ok(has('method-removed', m, 'clientToServer'), m);
  for (const m of ['ping', 'tasks/get', 'tasks/list', 'tasks/result', 'tasks/cancel']) {
    assert.ok(has('method-removed', m, 'clientToServer'), `${m} c→s`);
    assert.ok(has('method-removed', m, 'serverToClient'), `${m} s→c`);
  }
  // a client that calls initialize breaks; a server that still answers it does not
  const [init] = find((c) => c.kind === 'method-removed' && c.subject === 'initialize');
  assert.equal(init.breaking, { client: true, server: false });
  assert.match(md, /\| `initialize` \| client → server \| method-removed \|/);
});

test('requests added: server/discover and subscriptions/listen (ungated: servers must implement them)', () => {
  for (const m of ['server/discover', 'subscriptions/listen']) {
    const [c] = find((x) => x.kind === 'method-added' && x.subject === m);
    assert.ok(c, m);
    assert.is(c.direction, 'clientToServer');
    assert.equal(c.breaking, { client: false, server: true });
  }
});

test('input requests now embedded: sampling/createMessage, elicitation/create, roots/list', () => {
  for (const m of ['sampling/createMessage', 'elicitation/create', 'roots/list']) {
    const [c] = find((x) => x.kind === 'embedded' && x.subject === m);
    assert.ok(c, m);
    assert.is(c.direction, 'serverToClient');
    assert.is(c.after, 'true');
    assert.equal(c.breaking, { client: true, server: true });
  }
  assert.not.ok(find((c) => c.kind === 'method-removed' && c.subject === 'roots/list').length, 'embedded, not removed');
});

test('alternative results: InputRequiredResult added, CreateTaskResult removed', () => {
  for (const m of ['tools/call', 'prompts/get', 'resources/read']) {
    const [c] = find((x) => x.kind === 'alt-result-added' && x.subject === m);
    assert.is(c?.after, 'InputRequiredResult', m);
    assert.equal(c.breaking, { client: true, server: false });
  }
  assert.ok(has('alt-result-removed', 'tools/call'));
  assert.ok(has('alt-result-removed', 'sampling/createMessage'));
});

test('`resultType` added (required) to results: breaks the servers that send them', () => {
  const added = find(
    (c) => c.kind === 'field-added' && c.section === 'results' && c.subject.endsWith(' result.resultType'),
  );
  const methods = added.map((c) => c.method).sort();
  for (const m of ['completion/complete', 'prompts/get', 'resources/read', 'tools/call', 'tools/list'])
    assert.ok(methods.includes(m), m);
  for (const c of added) {
    assert.is(c.after, 'required');
    assert.equal(c.breaking, { client: false, server: true });
  }
});

test('params: _meta becomes required with per-request client capabilities; tools/call task removed', () => {
  const meta = find((c) => c.subject === 'tools/call params._meta');
  assert.equal(
    meta.map((c) => c.kind),
    ['optional-to-required'],
  );
  assert.equal(meta[0].breaking, { client: true, server: false });
  assert.ok(has('field-added', 'tools/call params._meta.io.modelcontextprotocol/clientCapabilities'));
  assert.ok(has('field-removed', 'tools/call params.task'));
  assert.ok(has('field-added', 'tools/call params.inputResponses'));
});

test('capabilities, notifications, types and error codes', () => {
  assert.ok(has('field-removed', 'ServerCapabilities.tasks'));
  assert.ok(has('field-removed', 'ClientCapabilities.tasks'));
  assert.ok(has('notification-removed', 'notifications/initialized', 'clientToServer'));
  assert.ok(has('notification-added', 'notifications/subscriptions/acknowledged', 'serverToClient'));
  assert.ok(has('direction', 'notifications/progress'));
  assert.ok(has('type-added', 'DiscoverResult'));
  assert.ok(has('type-removed', 'CreateTaskResult'));
  assert.ok(has('error-code-removed', 'URL_ELICITATION_REQUIRED'));
  assert.ok(has('error-code-added', 'UNSUPPORTED_PROTOCOL_VERSION'));
});

test('JSON and markdown report the same counts', () => {
  const s = report.summary;
  assert.is(s.total, report.changes.length);
  const line = /\*\*(\d+) change\(s\)\*\*, (\d+) breaking: (\d+) for clients, (\d+) for servers\./.exec(md);
  assert.ok(line, 'summary line');
  assert.equal(line!.slice(1).map(Number), [s.total, s.breaking, s.breakingForClient, s.breakingForServer]);
  let rows = 0;
  for (const sec of SECTIONS as readonly Section[]) {
    const n = report.changes.filter((c) => c.section === sec).length;
    assert.is(s.bySection[sec].total, n, sec);
    const heading = new RegExp(`^## ${SECTION_TITLES[sec]} \\((\\d+)\\)$`, 'm').exec(md);
    if (n === 0) {
      assert.not.ok(heading, `no ${sec} section`);
      continue;
    }
    assert.is(Number(heading?.[1]), n, `${sec} heading`);
    const body = md.slice(md.indexOf(heading![0]) + heading![0].length).split('\n## ')[0];
    const tableRows = body.split('\n').filter((l) => l.startsWith('| `'));
    assert.is(tableRows.length, n, `${sec} rows`);
    assert.is(
      tableRows.filter((l) => /\| \*\*breaking\*\* \| [^|]+ \|$/.test(l)).length,
      s.bySection[sec].breakingForClient,
      `${sec} client flags`,
    );
    rows += tableRows.length;
  }
  assert.is(rows, s.total);
  const kinds = Object.values(s.byKind).reduce((x, y) => x + (y ?? 0), 0);
  assert.is(kinds, s.total);
});

test('output is stable across runs', async () => {
  const again = await run(['diff', '2025-11-25', 'draft', '--format', 'json']);
  assert.is(again.out, JSON.stringify(JSON.parse(again.out), null, 2));
  const first = await run(['diff', '2025-11-25', 'draft', '--format', 'json']);
  assert.is(again.out, first.out);
});

test('draft against itself: no changes', async () => {
  const r = await run(['diff', 'draft', 'draft', '--format', 'json']);
  assert.is(r.code, 0);
  assert.is((JSON.parse(r.out) as DiffReport).changes.length, 0);
  const m = await run(['diff', 'draft', 'draft']);
  assert.match(m.out, 'No semantic differences.');
});

test('--fail-on breaking: exit 1 for 2025-11-25 → draft, 0 for draft → draft (real process)', () => {
  const bad = spawnCli(['diff', '2025-11-25', 'draft', '--fail-on', 'breaking', '--format', 'json']);
  assert.is(bad.code, 1, bad.err);
  assert.ok((JSON.parse(bad.out) as DiffReport).summary.breaking > 0);
  const ok = spawnCli(['diff', 'draft', 'draft', '--fail-on', 'breaking']);
  assert.is(ok.code, 0, ok.err);
  const noFlag = spawnCli(['diff', '2025-11-25', 'draft']);
  assert.is(noFlag.code, 0, 'breaking changes alone do not fail without --fail-on');
});

test('usage and input errors', async () => {
  assert.is((await run(['diff', 'draft'])).code, 2);
  assert.is((await run(['diff', 'draft', 'draft', '--format', 'html'])).code, 2);
  assert.is((await run(['diff', 'draft', 'draft', '--fail-on', 'anything'])).code, 2);
  assert.is((await run(['diff', 'draft', 'all'])).code, 2);
  const unknown = await run(['diff', 'draft', '1999-01-01']);
  assert.is(unknown.code, 2);
  assert.match(unknown.err, '<revB>: unknown revision "1999-01-01"');
  // with no inputs for either, the unknown <revB> is still the usage error (checked first)
  const noInputs = spawnSync(process.execPath, [join(ROOT, 'bin', 'mcpgen.js'), 'diff', '2025-11-25', '1999-01-01'], {
    cwd: tmpdir(),
    env: { ...process.env, MCP_SPEC_DIR: '', MCPGEN_CACHE: join(tmpdir(), 'mcpgen-no-cache-here') },
    encoding: 'utf8',
  });
  assert.is(noInputs.status, 2, noInputs.stderr);
  assert.match(noInputs.stderr, '<revB>: unknown revision "1999-01-01"');
  const missing = await run(['diff', 'draft', './no/such/folder']);
  assert.is(missing.code, 3);
  assert.match(missing.err, 'missing schema.json');
});

test.run();
