/**
 * The clock every OpenClaw function of this process reads (`Date.now()`, `new Date()`), fixed at
 * an instant the caller moves: OpenClaw's own code then acts as at that time (7.1 runs in this
 * thread; a patched Date does not reach worker threads).
 */
export function fixClock(startMs) {
  const clock = { ms: startMs };
  const RealDate = Date;
  globalThis.Date = class extends RealDate {
    constructor(...args) {
      if (args.length === 0) super(clock.ms);
      else super(...args);
    }
    static now() {
      return clock.ms;
    }
  };
  return clock;
}
