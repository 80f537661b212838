/** Wire times: toWireTime writes exactly what Date#toISOString writes, for any time a Date can hold. */
import assert from 'node:assert/strict';
import { toWireTime } from '../../src/domain/time.js';

describe('wire times', () => {
  it('formats like toISOString: edges, both sides of 1970 and of year 10000, every millisecond digit', () => {
    const edges = [
      0, 1, -1, 999, 1000, -1000, 86_399_999, 86_400_000, -86_400_000, -86_400_001, 951_782_400_000,
      253_402_300_799_999, 253_402_300_800_000, 8.64e15, -8.64e15, -62_167_219_200_001,
    ];
    for (const ms of edges) assert.equal(toWireTime(ms), new Date(ms).toISOString(), String(ms));
    for (let ms = 1_795_455_610_000; ms < 1_795_455_612_000; ms++)
      assert.equal(toWireTime(ms), new Date(ms).toISOString());
  });

  it('formats like toISOString at random over the whole range a Date holds', () => {
    for (let i = 0; i < 200_000; i++) {
      const ms = Math.round((Math.random() * 2 - 1) * 8.64e15);
      assert.equal(toWireTime(ms), new Date(ms).toISOString(), String(ms));
    }
  });

  it('keeps null, and a time a Date cannot hold is still an error', () => {
    assert.equal(toWireTime(null), null);
    assert.equal(toWireTime(1.5), new Date(1.5).toISOString());
    assert.throws(() => toWireTime(8.64e15 + 1), RangeError);
    assert.throws(() => toWireTime(Number.NaN), RangeError);
  });
});
