import type { Timer, Timers } from '../../src/domain/timers.js';

interface Pending {
  due: number;
  every: number | undefined;
  fire: () => void;
  cancelled: boolean;
}

/**
 * A clock and timers that move only when a test advances them: advance() fires every timer that falls due
 * on the way, in time order, with now() reading each timer's own time while it fires.
 */
export class ManualClock implements Timers {
  private pending: Pending[] = [];

  constructor(private current: number) {}

  now(): number {
    return this.current;
  }

  after(ms: number, fire: () => void): Timer {
    return this.schedule(ms, undefined, fire);
  }

  every(ms: number, fire: () => void): Timer {
    return this.schedule(ms, ms, fire);
  }

  /** Timers not yet fired or cancelled (a test can check a worker left none behind). */
  get waiting(): number {
    return this.pending.filter((p) => !p.cancelled).length;
  }

  advance(ms: number): void {
    const target = this.current + ms;
    for (;;) {
      const next = this.pending.filter((p) => !p.cancelled && p.due <= target).sort((x, y) => x.due - y.due)[0];
      if (!next) break;
      this.current = Math.max(this.current, next.due);
      if (next.every === undefined) next.cancelled = true;
      else next.due += next.every;
      next.fire();
    }
    this.pending = this.pending.filter((p) => !p.cancelled);
    this.current = target;
  }

  private schedule(ms: number, every: number | undefined, fire: () => void): Timer {
    const entry: Pending = {
      due: this.current + Math.max(1, ms),
      every: every === undefined ? undefined : Math.max(1, every),
      fire,
      cancelled: false,
    };
    this.pending.push(entry);
    return {
      cancel: () => {
        entry.cancelled = true;
      },
    };
  }
}
