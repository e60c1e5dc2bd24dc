/** Time as the service sees it; tests replace it to move past expiries without waiting. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock that stands still until moved: for tests of expiry and lockouts. */
export class ManualClock implements Clock {
  #ms: number;
  constructor(start: Date | number = Date.now()) {
    this.#ms = typeof start === 'number' ? start : start.getTime();
  }
  now() {
    return new Date(this.#ms);
  }
  advance(ms: number) {
    this.#ms += ms;
  }
  set(at: Date | number) {
    this.#ms = typeof at === 'number' ? at : at.getTime();
  }
}
