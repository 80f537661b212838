/** Ids: ULIDs in lower case, unique and in creation order, their random part drawn evenly from the pooled bytes. */
import assert from 'node:assert/strict';
import { newId } from '../../src/domain/ids.js';

const ID = /^[0-9a-hjkmnp-tv-z]{26}$/;
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

describe('ids', () => {
  it(
    'are 26 characters of Crockford base32, ' + 'unique and strictly increasing, within a millisecond and across them',
    () => {
      const ids = Array.from({ length: 20_000 }, () => newId());
      for (const id of ids) assert.match(id, ID);
      assert.equal(new Set(ids).size, ids.length);
      for (let i = 1; i < ids.length; i++) assert.ok(ids[i - 1] < ids[i], `${ids[i - 1]} then ${ids[i]}`);
    },
  );

  it('draw every character of the random part about equally often, past several refills of the pool', async () => {
    // The first id of each millisecond draws 16 fresh characters (later ones in that millisecond count up from it).
    const counts = new Map<string, number>(ALPHABET.split('').map((c) => [c, 0]));
    let drawn = 0;
    let lastTime = '';
    const until = Date.now() + 400;
    while (Date.now() < until || drawn < 16 * 300) {
      const id = newId();
      if (id.slice(0, 10) !== lastTime) {
        lastTime = id.slice(0, 10);
        for (const c of id.slice(10)) counts.set(c, counts.get(c)! + 1);
        drawn += 16;
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
    // 4,800 or more characters: each expected about 150 times, with a standard deviation near 12; the bounds lie
    // over six of those away, where a fair draw never lands and a stuck or skewed one always does.
    const expected = drawn / 32;
    for (const [c, n] of counts)
      assert.ok(
        n > expected / 2 && n < expected * 1.6,
        `'${c}' drawn ${n} times of ${drawn} (expected about ${expected.toFixed(0)})`,
      );
  });
});
