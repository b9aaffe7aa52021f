/**
 * The fuzz oracle's own reading of frames (./oracle.ts), on inputs whose expectation is known:
 * ids compared exactly, what must, may and must not be answered.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { expectStdio, expectText, idKey, rawMembers, readAnswer } from './oracle.js';

const lines = (...l: string[]) => Buffer.from(l.join(''));

test('idKey: exact values, never through a double', () => {
  assert.is.not(idKey('9007199254740993'), idKey('9007199254740992'));
  assert.is(idKey('1e2'), idKey('100'));
  assert.is(idKey('100.0'), idKey('100'));
  assert.is(idKey('-0'), idKey('0'));
  assert.is.not(idKey('"1"'), idKey('1'));
  assert.is(idKey('"\\u0041"'), idKey('"A"'));
  assert.is(idKey('null'), undefined);
});

test('rawMembers: raw text of each member, the last of a repeated key', () => {
  const m = rawMembers('{"id":123456789012345678901234567890,"a":{"b":[1,"}"]},"id" : "x"}')!;
  assert.is(m.get('id'), '"x"');
  assert.is(m.get('a'), '{"b":[1,"}"]}');
  assert.is(rawMembers('[1]'), undefined);
  assert.is(rawMembers('{"id":1'), undefined);
});

test('expectStdio: requests must be answered, notifications never, non-messages at most once without id', () => {
  const e = expectStdio(
    lines(
      '{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}\r\n',
      '\n \t\r\n',
      '{"jsonrpc":"2.0","method":"notifications/initialized"}\n',
      '{"jsonrpc":"2.0","id":1.5,"method":"ping"}\n',
      '{"jsonrpc":"2.0","id":null,"method":"ping"}\n',
      '[{"jsonrpc":"2.0","id":"b","method":"ping"}]\n',
      'not json\n',
      '{"jsonrpc":"2.0","id":"s","method":"ping"}\n',
      '{"jsonrpc":"2.0","id":"s","method":"ping"}\n',
    ),
  );
  assert.equal(
    [...e.must],
    [
      [idKey('9007199254740993'), 1],
      [idKey('"s"'), 2],
    ],
  );
  assert.equal(
    [...e.may].sort(),
    [
      [idKey('"b"'), 1],
      [idKey('1.5'), 1],
    ].sort(),
  );
  assert.is(e.idless, 4);
});

test('expectStdio: a request its batch cancels may go unanswered', () => {
  const e = expectStdio(
    lines(
      '{"jsonrpc":"2.0","id":"","method":"tools/call","params":{"name":"echo"}}\n',
      '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":""}}\n',
    ),
  );
  assert.is(e.must.size, 0);
  assert.is(e.may.get(idKey('""')!), 1);
});

test('expectStdio: a line that is not UTF-8 is only a "may"', () => {
  const e = expectStdio(
    Buffer.concat([
      Buffer.from('{"jsonrpc":"2.0","id":7,"method":"ping","params":{"x":"'),
      Buffer.from([0xff]),
      Buffer.from('"}}\n'),
    ]),
  );
  assert.is(e.must.size, 0);
  assert.is(e.may.get(idKey('7')!), 1);
  assert.is(e.idless, 1);
});

test('expectText: a request with a valid id but a wrong jsonrpc may be answered with its id', () => {
  const e = expectText('{"jsonrpc":"1.0","id":3,"method":"ping"}');
  assert.is(e.must.size, 0);
  assert.is(e.may.get(idKey('3')!), 1);
  assert.ok(expectText('{"jsonrpc":"2.0","method":"x"}').notification);
});

test('readAnswer: keeps the raw id and the code', () => {
  const a = readAnswer('{"jsonrpc":"2.0","id":9007199254740993,"error":{"code":-32601,"message":"x"}}');
  assert.is(a.rawId, '9007199254740993');
  assert.is(a.code, -32601);
  assert.is(readAnswer('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}').key, null);
  assert.is(readAnswer('{"jsonrpc":"2.0","id":1,"method":"elicitation/create"}').method, 'elicitation/create');
});

test.run();
