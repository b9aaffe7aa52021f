/**
 * A 2xx reply lost after its head (the body cut short of its Content-Length and the socket
 * destroyed or ended, a reset right after the head, an SSE reply cut before its response)
 * fails the call with ConnectionClosedError (-32000) saying the request may have run, the
 * network error its `cause`, in both eras (session and stateless transports) and both forms
 * (node:http, fetch), against the real dual-era endpoint on 127.0.0.1 behind a front that
 * answers `tools/call` so. The call is sent with `retry: false` (no re-send comes between).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ConnectionClosedError } from '../../../../../runtime/jsonrpc/errors.js';
import { eraClient, failure, startDualEraBehind } from '../stateless/helpers.js';

const JSON_HEAD = { 'content-type': 'application/json', 'content-length': '200' };
const LOST = /^Connection lost before the response \(POST tools\/call; the request may have run\): /;
const SSE_LOST = /^(SSE response stream lost|Connection lost) before the response \(the request may have run\)/;

/** How the front answers `tools/call`, and the message the call must fail with. */
const faults: [string, (req: IncomingMessage, res: ServerResponse) => void, RegExp][] = [
  [
    'JSON body cut short, socket destroyed',
    (req, res) => {
      res.writeHead(200, JSON_HEAD);
      res.write('{"jsonrpc":"2.0",');
      setTimeout(() => req.socket.destroy(), 20);
    },
    LOST,
  ],
  [
    'JSON body cut short, socket ended',
    (req, res) => {
      res.writeHead(200, JSON_HEAD);
      res.write('{"jsonrpc":"2.0",');
      setTimeout(() => req.socket.end(), 20);
    },
    LOST,
  ],
  [
    'reset right after the head',
    (req, res) => {
      res.writeHead(200, JSON_HEAD);
      res.flushHeaders();
      setTimeout(() => req.socket.resetAndDestroy(), 20);
    },
    LOST,
  ],
  [
    'SSE reply cut before its response',
    (req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(
        'event: message\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}\n\n',
      );
      setTimeout(() => req.socket.destroy(), 20);
    },
    SSE_LOST,
  ],
];

for (const [fault, answer, message] of faults)
  for (const era of ['session', 'stateless'] as const)
    for (const form of ['node:http', 'fetch'] as const)
      test(`${era}, ${form}: ${fault} → ConnectionClosedError, may have run, raw error as cause`, async () => {
        const s = await startDualEraBehind((method, req, res) => {
          if (method !== 'tools/call') return false;
          answer(req, res);
          return true;
        });
        const { c, transport } = eraClient(era, form, s.url);
        try {
          await c.connect(transport);
          const e = await failure(c.callTool({ name: 'echo', arguments: { text: 'x' } } as never, { retry: false }));
          assert.instance(e, ConnectionClosedError, String(e));
          assert.is((e as ConnectionClosedError).code, -32000);
          assert.match(e!.message, message);
          assert.instance(e!.cause, Error, 'the raw error is the cause');
        } finally {
          await c.close().catch(() => {});
          await s.close();
        }
      });

test.run();
