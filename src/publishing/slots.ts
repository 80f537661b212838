/**
 * At most `size` runs at once; the rest wait their turn in order. The worker keeps hundreds of posts in flight
 * because a text post's call is waiting, not working, but a post with media holds its files in memory while it
 * uploads them, so those are held to fewer slots of their own (WORKER_MEDIA_CONCURRENCY).
 */
export class Slots {
  private readonly waiting: (() => void)[] = [];
  private free: number;

  constructor(size: number) {
    this.free = Math.max(1, size);
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.free++;
    }
  }
}
