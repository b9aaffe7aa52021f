/** ServerFeatures on a stateless (draft) Server: listen streams receive resource updates and list changes. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { table } from '../../../generated/draft/index.js';
import { ServerFeatures } from '../../../runtime/features/server-features.js';
import { inputRequest, inputRequired } from '../../../runtime/stateless/mrtr.js';
import { pair, tick } from './harness.js';

test('notifyResourceUpdated reaches a listen stream that asked for the URI, and only that one', async () => {
  const features = new ServerFeatures();
  features.resource({ uri: 'test://a', name: 'a', read: (uri) => [{ uri, text: 'A' }] });
  features.resource({ uri: 'test://b', name: 'b', read: (uri) => [{ uri, text: 'B' }] });
  const { client, server } = await pair({
    serverInfo: { name: 's', version: '1' },
    capabilities: features.capabilities(),
    handlers: features.handlers({ table }) as never,
  });
  features.attach(server);
  const got: string[] = [];
  const sub = client.listen(
    { resourceSubscriptions: ['test://a'] },
    { onNotification: (method, params) => void got.push(`${method} ${(params as { uri?: string } | undefined)?.uri}`) },
  );
  await sub.acknowledged;
  assert.is(await features.notifyResourceUpdated('test://b'), true);
  assert.is(await features.notifyResourceUpdated('test://a'), true);
  await tick(10);
  assert.equal(got, ['notifications/resources/updated test://a']);
  // results carry the session's cache policy, not one the features made up
  const read = await client.readResource({ uri: 'test://a' });
  assert.is(read.resultType, 'complete');
  assert.equal([read.ttlMs, read.cacheScope], [0, 'private']);
  await sub.close();
  await client.close();
});

test('a tool or prompt answering inputRequired goes out as built: no content or description added', async () => {
  const features = new ServerFeatures();
  const ask = {
    ask: inputRequest.elicit({
      message: 'Name?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
    }),
  };
  features.tool({ name: 't', description: 'asks', handler: () => inputRequired({ inputRequests: ask }) as never });
  features.prompt({ name: 'p', description: 'asks', get: () => inputRequired({ inputRequests: ask }) as never });
  const h = features.handlers({ table }) as Record<
    string,
    (p: unknown, ctx: unknown) => Promise<Record<string, unknown>>
  >;
  const ctx = { signal: new AbortController().signal }; // what a handler reads of its context here
  assert.equal(await h['tools/call']({ name: 't', arguments: {} }, ctx), {
    resultType: 'input_required',
    inputRequests: ask,
  });
  assert.equal(await h['prompts/get']({ name: 'p' }, ctx), { resultType: 'input_required', inputRequests: ask });
});

test.run();
