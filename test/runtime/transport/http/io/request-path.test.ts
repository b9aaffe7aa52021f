/**
 * `requestPath` (../../../../../runtime/transport/http/io/node.ts): the path of a request target,
 * which every node:http router of the runtime and `mcpgen serve` matches its endpoints on.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { requestPath } from '../../../../../runtime/transport/http/io/node.js';

test('the query goes, the path stays as written', () => {
  assert.is(requestPath('/mcp'), '/mcp');
  assert.is(requestPath('/mcp?session=1&x=?'), '/mcp');
  assert.is(requestPath('/sse?'), '/sse');
  assert.is(requestPath('?only=query'), '');
  assert.is(requestPath('/a/b%3Fc'), '/a/b%3Fc');
  assert.is(requestPath(''), '');
});

test('a request without a target is the root', () => {
  assert.is(requestPath(undefined), '/');
});

test.run();
