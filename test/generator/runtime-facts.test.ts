/**
 * What the runtime needs of a revision (generator/runtime-facts.ts): error codes given by an
 * error type and no constant are derived (the 2026-05-14 draft's UnsupportedProtocolVersionError,
 * code `typeof INVALID_PARAMS`), the pinned revisions' codes stay those they export, every pinned
 * revision and every draft snapshot has all the runtime needs, and `generate` refuses a revision
 * that lacks a fact, naming schema.ts and each missing fact, writing nothing.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ingestResolved } from '../../generator/ingest.js';
import type { ProtocolModel } from '../../generator/model.js';
import {
  discoverServerInfo,
  errorCodesOfErrorTypes,
  errorConstantName,
  resultTypeFact,
  runtimeGaps,
} from '../../generator/runtime-facts.js';
import { resolveUnpinned } from '../../schema/resolve.js';
import { PINNED, SPEC_DIR, cli, pinnedModel, tempDir } from './support.js';

const test = suite('generator: the facts the runtime needs of a revision, derived or refused');

const SNAPSHOTS_DIR = join(SPEC_DIR, 'history', 'draft');
const snapshots = readdirSync(SNAPSHOTS_DIR).filter((n) => statSync(join(SNAPSHOTS_DIR, n)).isDirectory());
const MAY14 = join(SNAPSHOTS_DIR, '2026-05-14_41173312');
const snapshotModel = (dir: string): ProtocolModel => ingestResolved(resolveUnpinned(dir));
const clone = (m: ProtocolModel): ProtocolModel => structuredClone(m);

test('error constant names of error types', () => {
  assert.is(errorConstantName('UnsupportedProtocolVersionError'), 'UNSUPPORTED_PROTOCOL_VERSION');
  assert.is(errorConstantName('URLElicitationRequiredError'), 'URL_ELICITATION_REQUIRED');
  assert.is(errorConstantName('MissingRequiredClientCapabilityError'), 'MISSING_REQUIRED_CLIENT_CAPABILITY');
  assert.is(errorConstantName('InternalError'), 'INTERNAL');
});

test('the pinned revisions define every error type code by a constant: nothing is derived', () => {
  for (const rev of PINNED) {
    const m = pinnedModel(rev);
    assert.equal(errorCodesOfErrorTypes(m.types, m.errorCodes), {}, rev);
  }
  const m = pinnedModel('2026-07-28');
  assert.is(m.errorCodes.UNSUPPORTED_PROTOCOL_VERSION, -32022);
  assert.is(m.errorCodes.MISSING_REQUIRED_CLIENT_CAPABILITY, -32021);
  assert.is(m.errorCodes.HEADER_MISMATCH, -32020);
});

test('the 2026-05-14 draft: UNSUPPORTED_PROTOCOL_VERSION from its error type (-32602), its other facts', () => {
  const m = snapshotModel(MAY14);
  assert.is(m.errorCodes.UNSUPPORTED_PROTOCOL_VERSION, -32602);
  assert.is(m.errorCodes.MISSING_REQUIRED_CLIENT_CAPABILITY, -32003);
  assert.not.ok(Object.hasOwn(m.errorCodes, 'HEADER_MISMATCH'));
  assert.is(m.lifecycle, 'stateless');
  assert.ok(resultTypeFact(m));
  assert.is(discoverServerInfo(m), 'result');
  const pinned = pinnedModel('draft');
  assert.ok(resultTypeFact(pinned));
  assert.is(discoverServerInfo(pinned), '_meta');
  assert.not.ok(resultTypeFact(pinnedModel('2025-11-25')));
  assert.is(discoverServerInfo(pinnedModel('2025-11-25')), undefined);
  // the handshake draft of 2026-05-11 has resultType on its results
  const may11 = snapshotModel(join(SNAPSHOTS_DIR, '2026-05-11_c2037874'));
  assert.is(may11.lifecycle, 'handshake');
  assert.ok(resultTypeFact(may11));
});

test('every pinned revision and every draft snapshot has what the runtime needs', () => {
  for (const rev of PINNED) assert.equal(runtimeGaps(pinnedModel(rev)), [], rev);
  for (const snap of snapshots) assert.equal(runtimeGaps(snapshotModel(join(SNAPSHOTS_DIR, snap))), [], snap);
});

test('each missing fact is named', () => {
  const base = snapshotModel(MAY14);
  const gaps = (edit: (m: ProtocolModel) => void) => {
    const m = clone(base);
    edit(m);
    return runtimeGaps(m);
  };
  assert.equal(
    gaps((m) => delete m.errorCodes.UNSUPPORTED_PROTOCOL_VERSION),
    [
      'error code UNSUPPORTED_PROTOCOL_VERSION (neither an exported constant nor a UnsupportedProtocolVersionError type with a constant code)',
    ],
  );
  assert.equal(
    gaps((m) => delete m.errorCodes.MISSING_REQUIRED_CLIENT_CAPABILITY),
    [
      'error code MISSING_REQUIRED_CLIENT_CAPABILITY (neither an exported constant nor a MissingRequiredClientCapabilityError type with a constant code)',
    ],
  );
  // without input-required results the code is not needed
  assert.equal(
    gaps((m) => {
      delete m.errorCodes.MISSING_REQUIRED_CLIENT_CAPABILITY;
      for (const r of m.requests) r.inputRequired = false;
    }),
    [],
  );
  assert.equal(
    gaps((m) => (m.requests = m.requests.filter((r) => r.method !== 'server/discover'))),
    ['a lifecycle: neither an initialize request (handshake) nor a server/discover request (stateless)'],
  );
  assert.equal(
    gaps((m) => {
      const meta = m.types.RequestMetaObject.schema.properties as Record<string, unknown>;
      delete meta['io.modelcontextprotocol/protocolVersion'];
    }),
    [
      'the request _meta member "io.modelcontextprotocol/protocolVersion" (RequestMetaObject) that stateless requests carry',
    ],
  );
  assert.equal(
    gaps((m) => (m.types.ResultType.schema.enum = ['input_required'])),
    ['a resultType "complete" (ResultType is "input_required")'],
  );
  const handshake = clone(pinnedModel('2025-11-25'));
  handshake.notifications = handshake.notifications.filter((n) => n.method !== 'notifications/initialized');
  assert.equal(runtimeGaps(handshake), [
    'the notifications/initialized notification of the handshake (the revision has initialize)',
  ]);
});

test('generate refuses a revision the runtime cannot serve: exit 3 naming schema.ts and the missing facts, nothing written', async () => {
  const t = tempDir('mcpgen-gaps-');
  try {
    // the 2026-05-14 draft without its UnsupportedProtocolVersionError, in both files
    const dir = join(t.dir, 'no-unsupported-code');
    mkdirSync(dir);
    const json = JSON.parse(readFileSync(join(MAY14, 'schema.json'), 'utf8')) as { $defs: Record<string, unknown> };
    delete json.$defs.UnsupportedProtocolVersionError;
    writeFileSync(join(dir, 'schema.json'), JSON.stringify(json, null, 2));
    const ts = readFileSync(join(MAY14, 'schema.ts'), 'utf8');
    const cut = ts.replace(/export interface UnsupportedProtocolVersionError[\s\S]*?\n}\n/, '');
    assert.ok(cut.length < ts.length, 'the interface was cut');
    writeFileSync(join(dir, 'schema.ts'), cut);
    // the cut files still ingest: only the runtime's facts are missing
    assert.not.ok(Object.hasOwn(snapshotModel(dir).errorCodes, 'UNSUPPORTED_PROTOCOL_VERSION'));
    const out = join(t.dir, 'out');
    const res = await cli(['generate', '--unpinned', dir, '--out', out]);
    assert.is(res.code, 3, res.stderr);
    assert.match(res.stderr, `mcpgen generate: ${join(dir, 'schema.ts')}: runtime facts: revision no-unsupported-code`);
    assert.match(
      res.stderr,
      'stateless lifecycle) cannot be served by the runtime: it lacks error code UNSUPPORTED_PROTOCOL_VERSION',
    );
    assert.not.ok(existsSync(join(out, 'no-unsupported-code')), 'nothing written');
  } finally {
    t.cleanup();
  }
});

test.run();
