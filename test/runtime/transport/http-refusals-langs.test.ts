/**
 * The same refusal from every runtime's Streamable HTTP server (`mcpgen serve --lang ... --http 0`):
 * a POST refused on its headers or size (406, 415, 413) is answered with -32000 and no id, and a
 * JSON array (a batch, not part of Streamable HTTP) with 400, -32600 and the same message.
 * Real server processes, real sockets.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startHttpServeProcess } from '../tasks/serve-process.js';
import { pythonChildEnv } from '../../python/support.js';
import { goEnv } from '../../go/support.js';

const HEADERS = { Accept: 'application/json, text/event-stream', 'Content-Type': 'application/json' };
const PING = '{"jsonrpc":"2.0","id":1,"method":"ping"}';

/** The refusals every runtime must give, as [what, headers, body, status, code, message]. */
const REFUSALS: Array<[string, Record<string, string>, string, number, number, RegExp]> = [
  [
    'Accept without text/event-stream',
    { ...HEADERS, Accept: 'application/json' },
    PING,
    406,
    -32000,
    /^Not Acceptable/,
  ],
  [
    'Content-Type text/plain',
    { ...HEADERS, 'Content-Type': 'text/plain' },
    PING,
    415,
    -32000,
    /^Unsupported Media Type/,
  ],
  [
    'a 5 MiB body',
    HEADERS,
    `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"${'a'.repeat(5 << 20)}"}}`,
    413,
    -32000,
    /^Payload Too Large/,
  ],
  [
    'a batch',
    HEADERS,
    `[${PING}]`,
    400,
    -32600,
    /^Invalid Request: batches are not accepted; send one message per POST$/,
  ],
];

for (const [lang, env] of [
  ['typescript', () => process.env],
  ['python', () => pythonChildEnv()],
  ['go', () => goEnv()],
] as const) {
  test(`serve --lang ${lang} --http: 406, 415, 413 answered -32000 with no id; a batch 400 -32600 "batches are not accepted"`, async () => {
    const s = await startHttpServeProcess(['--lang', lang, '--rev', '2025-11-25'], env());
    try {
      for (const [what, headers, body, status, code, message] of REFUSALS) {
        const res = await fetch(s.url, { method: 'POST', headers, body, signal: AbortSignal.timeout(60_000) });
        const text = await res.text();
        assert.is(res.status, status, `${lang} ${what}: ${text}`);
        const answer = JSON.parse(text) as { id?: unknown; error?: { code: number; message: string } };
        assert.is(answer.error?.code, code, `${lang} ${what}: ${text}`);
        assert.match(answer.error!.message, message, `${lang} ${what}: ${text}`);
        assert.not.ok('id' in answer, `${lang} ${what}: no id can be read: ${text}`);
      }
    } finally {
      await s.stop();
    }
  });
}

test.run();
