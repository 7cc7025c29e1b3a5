import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createSecretBox, maskSecret, SecretBoxError } from './secrets.js';

const KEY_A = 'secrets-key-a-0123456789abcdef0123456789';
const KEY_B = 'secrets-key-b-0123456789abcdef0123456789';
const SEALED_SHAPE = /^v1\.[0-9a-f]{8}\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]{22}$/;

const isBoxError = (pattern: RegExp) => (err: unknown) => err instanceof SecretBoxError && pattern.test(err.message);

/** Replaces one character of the given part of a sealed string with another base64url character. */
function flip(sealed: string, part: number): string {
  const parts = sealed.split('.');
  const text = parts[part]!;
  parts[part] = (text[0] === 'A' ? 'B' : 'A') + text.slice(1);
  return parts.join('.');
}

test('when a secret is sealed then it opens to the same text and the sealed form names version and key', () => {
  const box = createSecretBox(KEY_A);
  for (const plaintext of ['sk_test_51Habc', '', 'ünïcödé ✓ 🔑', 'x'.repeat(10_000)]) {
    const sealed = box.seal(plaintext);
    assert.match(sealed, SEALED_SHAPE);
    assert.equal(sealed.split('.')[1], box.keyId);
    assert.ok(!sealed.includes(plaintext) || plaintext === '');
    assert.equal(box.open(sealed), plaintext);
  }
});

test('when the same secret is sealed twice then the IVs and sealed strings differ', () => {
  const box = createSecretBox(KEY_A);
  const sealed = Array.from({ length: 200 }, () => box.seal('whsec_same'));
  assert.equal(new Set(sealed.map((s) => s.split('.')[2])).size, 200);
  assert.equal(new Set(sealed).size, 200);
});

test('when any part of a sealed secret is altered then open refuses it', () => {
  const box = createSecretBox(KEY_A);
  const sealed = box.seal('sk_live_secret_value');
  for (const part of [2, 3, 4]) {
    assert.throws(() => box.open(flip(sealed, part)), isBoxError(/failed authentication|malformed/), `part ${part}`);
  }
  assert.throws(() => box.open(sealed.replace(/^v1\./, 'v2.')), isBoxError(/malformed/));
  assert.throws(() => box.open('not sealed at all'), isBoxError(/malformed/));
  assert.throws(() => box.open(`${sealed}.extra`), isBoxError(/malformed/));
  assert.throws(() => box.open(sealed.replace(/\.[^.]+$/, '.AAAA')), isBoxError(/malformed/));
});

test('when a secret is opened with another context than it was sealed for then open refuses it', () => {
  const box = createSecretBox(KEY_A);
  const sealed = box.seal('sk_test_account_one', 'account-1');
  assert.equal(box.open(sealed, 'account-1'), 'sk_test_account_one');
  assert.throws(() => box.open(sealed, 'account-2'), isBoxError(/failed authentication/));
  assert.throws(() => box.open(sealed), isBoxError(/failed authentication/));
});

test('when a secret sealed under another key is opened then open names the unknown key id', () => {
  const sealed = createSecretBox(KEY_B).seal('whsec_b');
  const box = createSecretBox(KEY_A);
  assert.throws(() => box.open(sealed), isBoxError(/unknown key id '[0-9a-f]{8}'.*APP_SECRETS_KEY_PREVIOUS/));
});

test('when the key id of a sealed secret is changed to the current key then authentication fails', () => {
  const underB = createSecretBox(KEY_B).seal('whsec_b');
  const boxA = createSecretBox(KEY_A);
  const relabelled = underB.split('.').map((p, i) => (i === 1 ? boxA.keyId : p)).join('.');
  assert.throws(() => boxA.open(relabelled), isBoxError(/failed authentication/));
});

test('when the key rotates then values sealed under a previous key still open and new ones use the current key', () => {
  const old = createSecretBox(KEY_A).seal('sk_test_before_rotation');
  const rotated = createSecretBox(KEY_B, [KEY_A]);
  assert.equal(rotated.open(old), 'sk_test_before_rotation');
  const fresh = rotated.seal('sk_test_after_rotation');
  assert.equal(fresh.split('.')[1], rotated.keyId);
  assert.notEqual(rotated.keyId, createSecretBox(KEY_A).keyId);
  assert.throws(() => createSecretBox(KEY_A).open(fresh), isBoxError(/unknown key id/));
});

test('when the key id is derived then it is stable across boxes and differs between keys', () => {
  assert.equal(createSecretBox(KEY_A).keyId, createSecretBox(KEY_A, [KEY_B]).keyId);
  assert.notEqual(createSecretBox(KEY_A).keyId, createSecretBox(KEY_B).keyId);
});

test('when a secret is masked then the first 4 and last 4 characters frame 12 stars, and short secrets are all stars', () => {
  assert.equal(maskSecret('sk_test_51HxYzAbCdEf3f5a'), 'sk_t************3f5a');
  assert.equal(maskSecret('whsec_0123456789x9b2b'), 'whse************9b2b');
  assert.equal(maskSecret('abcdefghijkl'), 'abcd************ijkl');
  assert.equal(maskSecret('short'), '************');
  assert.equal(maskSecret(''), '************');
});
