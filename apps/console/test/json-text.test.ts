import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseJson } from '@tally/client';
import { indentJson, jsonText } from '../src/json-text.js';

/** A webhook payload as the console shows it: the text as sent, amounts digit for digit (never through a double). */
describe('console: a payload as JSON text', () => {
  test('when a payload carries amounts then they are shown as the number lexemes sent, every digit', () => {
    const sent = '{"id":"e1","type":"invoice.paid","data":{"object":{"amount":49.00,"balance":12345678901234567.891,"items":[],"currency":"USD"}}}';
    const shown = jsonText(parseJson(sent));
    assert.equal(
      shown,
      [
        '{',
        '  "id": "e1",',
        '  "type": "invoice.paid",',
        '  "data": {',
        '    "object": {',
        '      "amount": 49.00,',
        '      "balance": 12345678901234567.891,',
        '      "items": [],',
        '      "currency": "USD"',
        '    }',
        '  }',
        '}',
      ].join('\n'),
    );
    assert.equal(shown.replace(/\s/g, ''), sent);
  });

  test('when a string holds brackets, commas, colons or escaped quotes then it is copied as it is', () => {
    assert.equal(indentJson('{"a":"x, {y}: [z] \\"q\\"","b":[1,{}]}'), '{\n  "a": "x, {y}: [z] \\"q\\"",\n  "b": [\n    1,\n    {}\n  ]\n}');
  });
});
