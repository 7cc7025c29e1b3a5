import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isUuid, nameBasedId, newId } from './ids.js';

test('nameBasedId is RFC 9562 version 5: the DNS namespace and www.example.com give the RFC\'s id', () => {
  assert.equal(nameBasedId('6ba7b810-9dad-11d1-80b4-00c04fd430c8', 'www.example.com'), '2ed6657d-e927-568b-95e1-2665a8aea6a2');
});

test('nameBasedId is stable per (namespace, name) and differs across namespaces and names', () => {
  const account = newId();
  const id = nameBasedId(account, 'pi_123');
  assert.ok(isUuid(id));
  assert.equal(nameBasedId(account, 'pi_123'), id);
  assert.notEqual(nameBasedId(account, 'pi_124'), id);
  assert.notEqual(nameBasedId(newId(), 'pi_123'), id);
});
