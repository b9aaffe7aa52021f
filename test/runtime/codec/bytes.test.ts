/**
 * runtime/codec/bytes.ts, the node:buffer-free byte helpers, against node:buffer itself on
 * random input (fast-check), and its strict decoders on bad input; the requestState seal made
 * with them is byte-compatible with one made by node:crypto, on either HMAC path.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { createHmac } from 'node:crypto';
import {
  equalBytes,
  fromBase64,
  fromBase64Url,
  toBase64,
  toBase64Url,
  toHex,
  utf8Bytes,
  utf8Text,
} from '../../../runtime/codec/bytes.js';
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { RequestStateSealer } from '../../../runtime/stateless/request-state.js';

test('Base64, base64url and hex agree with node:buffer on random bytes, and decode back', () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
      const b = Buffer.from(bytes);
      assert.is(toBase64(bytes), b.toString('base64'));
      assert.is(toBase64Url(bytes), b.toString('base64url'));
      assert.is(toHex(bytes), b.toString('hex'));
      assert.ok(equalBytes(fromBase64(toBase64(bytes)), bytes));
      assert.ok(equalBytes(fromBase64Url(toBase64Url(bytes)), bytes));
    }),
    { numRuns: 300 },
  );
});

test('UTF-8 agrees with node:buffer on random strings (lone surrogates become U+FFFD)', () => {
  fc.assert(
    fc.property(fc.string({ unit: 'binary', maxLength: 80 }), (s) => {
      assert.is(utf8Text(utf8Bytes(s)), Buffer.from(s, 'utf8').toString('utf8'));
    }),
    { numRuns: 300 },
  );
});

test('decoders refuse characters outside the alphabet and impossible lengths', () => {
  for (const bad of ['a*b=', 'abcde', '====', 'ab=c']) assert.throws(() => fromBase64(bad), /invalid Base64/);
  for (const bad of ['ab+c', 'ab/c', 'a.b']) assert.throws(() => fromBase64Url(bad), /invalid base64url/);
  assert.ok(equalBytes(fromBase64('YQ'), new Uint8Array([0x61])), 'padding optional');
});

test('equalBytes compares content and length', () => {
  assert.ok(equalBytes(new Uint8Array([1, 2]), new Uint8Array([1, 2])));
  assert.not.ok(equalBytes(new Uint8Array([1, 2]), new Uint8Array([1, 3])));
  assert.not.ok(equalBytes(new Uint8Array([1, 2]), new Uint8Array([1, 2, 0])));
});

test('requestState: a token built with node:crypto HMAC-SHA256 (the earlier seal) verifies, and a new seal has that layout', () => {
  const secret = 'a secret of at least thirty-two bytes!!';
  const sealer = new RequestStateSealer({ secret, now: () => 1_000 });
  const body = Buffer.from(JSON.stringify({ m: 'tools/call', e: 60_000, d: { step: 2 } }));
  const keyId = createHmac('sha256', secret).update('mcpgen requestState key id').digest().subarray(0, 6);
  const token = Buffer.concat([keyId, createHmac('sha256', secret).update(body).digest(), body]).toString('base64url');
  assert.equal(sealer.verifyRequestState(token, 'tools/call'), { step: 2 });
  const sealed = Buffer.from(sealer.seal('tools/call', { step: 3 }), 'base64url');
  const sealedBody = sealed.subarray(38);
  assert.is(sealed.subarray(0, 6).toString('hex'), keyId.toString('hex'));
  assert.is(sealed.subarray(6, 38).toString('hex'), createHmac('sha256', secret).update(sealedBody).digest('hex'));
  assert.equal(JSON.parse(sealedBody.toString()).d, { step: 3 });
});

test("the seal HMAC of platforms without node:crypto (@noble/hashes) gives node:crypto's bytes", () => {
  fc.assert(
    fc.property(fc.uint8Array({ minLength: 32, maxLength: 100 }), fc.uint8Array({ maxLength: 400 }), (key, body) => {
      assert.is(toHex(hmac(sha256, key, body)), createHmac('sha256', key).update(body).digest('hex'));
    }),
    { numRuns: 200 },
  );
});

test.run();
