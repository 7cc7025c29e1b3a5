import assert from 'node:assert/strict';
import { test } from 'node:test';
import { syncWithUrl, type UrlFormSync } from '../src/url-form.js';

/** Replays renders: each URL the form sees in turn, and whether that render reloads the fields. */
function renders(start: UrlFormSync, urls: string[]) {
  let state = start;
  return urls.map((url) => {
    const { next, reload } = syncWithUrl(state, url);
    state = next;
    return reload;
  });
}

test('when the form clears and its navigation commits late then the URL it left behind does not reload the fields', () => {
  // The form showed flow=7 (applied and seen), then "Clear" sent '' — the URL still shows flow=7 for
  // a render or two (a pending transition), then ''. The user's next choice must survive all of it.
  const afterClear: UrlFormSync = { applied: '', seen: 'flow=7' };
  assert.deepEqual(renders(afterClear, ['flow=7', 'flow=7', '']), [false, false, false]);
});

test('when the URL changes to what the form did not send (back, forward, a shared link) then the fields reload', () => {
  const shown: UrlFormSync = { applied: 'kind=CHECK', seen: 'kind=CHECK' };
  assert.deepEqual(renders(shown, ['kind=CHECK', 'flow=7', 'kind=CHECK']), [false, true, true]);
});

test('when the form sends filters and the URL catches up then nothing reloads', () => {
  const sent: UrlFormSync = { applied: 'customer=bob', seen: '' };
  assert.deepEqual(renders(sent, ['', 'customer=bob', 'customer=bob']), [false, false, false]);
});
