import assert from 'node:assert/strict';
import { perPoll } from '../../src/db/units-of-work.js';

describe('per-poll batches', () => {
  it(
    'hands over what was asked for during one poll as one batch, ' + 'in order, and what comes later as the next',
    async () => {
      const batches: number[][] = [];
      const ask = perPoll<number>((batch) => batches.push(batch));
      ask(1);
      ask(2);
      await Promise.resolve();
      ask(3);
      assert.deepEqual(batches, [], 'nothing is handed over before the poll ends');
      await new Promise((resolve) => setImmediate(resolve));
      ask(4);
      await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual(batches, [[1, 2, 3], [4]]);
    },
  );
});
