import assert from 'node:assert/strict';
import { freeSlots, parseSlotList, parseSlots } from '../../src/domain/queue/slots.js';
import { wallClockToUtc, zoneOffset } from '../../src/domain/zoned-time.js';

const wall = (iso: string) => Date.parse(`${iso}Z`);
const utc = (zone: string, iso: string) => new Date(wallClockToUtc(zone, wall(iso))).toISOString();

describe('queue slots: wall clock in an IANA zone', () => {
  it('converts ordinary times with the offset in force', () => {
    assert.equal(utc('Europe/Berlin', '2027-01-15T09:00:00'), '2027-01-15T08:00:00.000Z');
    assert.equal(utc('Europe/Berlin', '2027-07-15T09:00:00'), '2027-07-15T07:00:00.000Z');
    assert.equal(utc('Asia/Kolkata', '2027-07-15T09:00:00'), '2027-07-15T03:30:00.000Z');
    assert.equal(zoneOffset('America/New_York', Date.parse('2027-01-15T12:00:00Z')), -5 * 3_600_000);
  });

  it('moves a time inside the spring-forward gap forward by the gap', () => {
    assert.equal(utc('Europe/Berlin', '2027-03-28T02:30:00'), '2027-03-28T01:30:00.000Z'); // 03:30 CEST
    assert.equal(utc('America/New_York', '2027-03-14T02:00:00'), '2027-03-14T07:00:00.000Z'); // 03:00 EDT
    // a 30-minute jump: 02:45 +11
    assert.equal(utc('Australia/Lord_Howe', '2027-10-03T02:15:00'), '2027-10-02T15:45:00.000Z');
  });

  it('uses the first occurrence of a time repeated at fall-back', () => {
    assert.equal(utc('Europe/Berlin', '2027-10-31T02:30:00'), '2027-10-31T00:30:00.000Z'); // CEST, not 01:30Z CET
    assert.equal(utc('America/New_York', '2027-11-07T01:30:00'), '2027-11-07T05:30:00.000Z'); // EDT, not 06:30Z EST
    // southern hemisphere: AEDT first
    assert.equal(utc('Australia/Sydney', '2027-04-04T02:30:00'), '2027-04-03T15:30:00.000Z');
  });

  it('lists free slots in time order, skipping taken ones, once per wall-clock slot', () => {
    const slots = parseSlotList('sun 02:30, sat 09:00');
    const after = Date.parse('2027-10-29T00:00:00Z');
    const all = freeSlots('Europe/Berlin', slots, after, new Set(), 3).map((t) => new Date(t).toISOString());
    assert.deepEqual(all, ['2027-10-30T07:00:00.000Z', '2027-10-31T00:30:00.000Z', '2027-11-06T08:00:00.000Z']);
    const free = freeSlots('Europe/Berlin', slots, after, new Set([Date.parse('2027-10-31T00:30:00Z')]), 2).map((t) =>
      new Date(t).toISOString(),
    );
    assert.deepEqual(free, ['2027-10-30T07:00:00.000Z', '2027-11-06T08:00:00.000Z']);
    assert.deepEqual(freeSlots('Europe/Berlin', [], after, new Set(), 1), []);
  });

  it('validates and orders slots from Monday', () => {
    assert.deepEqual(
      parseSlots([
        { day: 'SUN', time: '08:00' },
        { day: 'mon', time: '23:59' },
        { day: 'mon', time: '00:00' },
      ]),
      [
        { day: 'mon', time: '00:00' },
        { day: 'mon', time: '23:59' },
        { day: 'sun', time: '08:00' },
      ],
    );
    assert.throws(() => parseSlots([{ day: 'mon', time: '9:00' }]), /HH:MM/);
    assert.throws(
      () =>
        parseSlots([
          { day: 'mon', time: '09:00' },
          { day: 'Mon', time: '09:00' },
        ]),
      /twice/,
    );
    assert.throws(() => parseSlotList('funday 09:00'), /day must be one of/);
  });
});
