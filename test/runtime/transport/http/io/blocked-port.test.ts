/**
 * A port that fetch itself refuses to connect to (the Fetch standard's "bad port" list, e.g. 9)
 * is a request not sent: the fetch form fails the first request with RequestNotProcessedError
 * (`reason: 'not-sent'`), as the node:http form does for the connection refused there (nothing
 * listens on 127.0.0.1:9), never with "the request may have run". Both eras, both forms; no
 * retries (`retry: false`).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as draft from '../../../../../generated/draft/index.js';
import * as v2025 from '../../../../../generated/2025-11-25/index.js';
import { RequestNotProcessedError } from '../../../../../runtime/jsonrpc/errors.js';
import { HttpClientTransport } from '../../../../../runtime/transport/http/session/node-client.js';
import { StatelessHttpClientTransport } from '../../../../../runtime/transport/http/stateless/node-client.js';
import { failure } from '../stateless/helpers.js';

for (const era of ['session', 'stateless'] as const)
  for (const form of ['node:http', 'fetch'] as const)
    test(`${era}, ${form}: port 9 → RequestNotProcessedError (not-sent)`, async () => {
      const options = { url: 'http://127.0.0.1:9/mcp', retry: false as const, ...(form === 'fetch' ? { fetch } : {}) };
      const info = { clientInfo: { name: 'c', version: '1' } };
      const c = era === 'session' ? new v2025.Client(info) : new draft.Client(info);
      const transport =
        era === 'session' ? new HttpClientTransport(options) : new StatelessHttpClientTransport(options);
      try {
        const e = await failure(c.connect(transport).then(() => (c as draft.Client).listTools({})));
        assert.instance(e, RequestNotProcessedError, String(e));
        assert.is((e as RequestNotProcessedError).reason, 'not-sent');
        assert.not.match(e!.message, /may have run/);
      } finally {
        await c.close().catch(() => {});
      }
    });

test.run();
