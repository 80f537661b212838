import type { TestHerald } from '../support/herald.js';

/** Pins the test Herald's clock (deps.now) so slot arithmetic can be checked against fixed dates. */
export function pinClock(
  t: TestHerald,
  iso: string,
): { set(iso: string): void; advance(ms: number): void; now(): number } {
  let now = Date.parse(iso);
  t.deps.now = () => now;
  return {
    set: (next) => {
      now = Date.parse(next);
    },
    advance: (ms) => {
      now += ms;
    },
    now: () => now,
  };
}

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;

/** Stands in for the publishing engine: marks a post published at `at`. */
export async function markPublished(t: TestHerald, postId: string, at: number): Promise<void> {
  await t.herald
    .db('posts')
    .where({ id: postId })
    .update({ status: 'published', published_at: at, permalink_url: 'https://network.example/p/9' });
}
