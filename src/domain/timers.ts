/**
 * The timers the worker waits on, a port beside deps.now(): production runs them on Node's timers, and
 * tests inject ones they fire by hand with the clock they pin, so nothing time-dependent waits on the
 * wall clock of a loaded machine.
 */
export interface Timer {
  cancel(): void;
}

export interface Timers {
  /** Calls `fire` once, `ms` from now, unless cancelled first. */
  after(ms: number, fire: () => void): Timer;
  /** Calls `fire` every `ms` until cancelled. */
  every(ms: number, fire: () => void): Timer;
}

export const systemTimers: Timers = {
  after(ms, fire) {
    const handle = setTimeout(fire, ms);
    return { cancel: () => clearTimeout(handle) };
  },
  every(ms, fire) {
    const handle = setInterval(fire, ms);
    return { cancel: () => clearInterval(handle) };
  },
};
