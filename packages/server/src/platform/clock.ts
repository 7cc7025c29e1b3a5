/**
 * The one source of "now". Services receive a Clock; tests freeze and advance it so that billing
 * periods, expiries and job slots can be crossed without waiting.
 */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export class FrozenClock implements Clock {
  #ms: number;
  constructor(start: Date | string) {
    this.#ms = new Date(start).getTime();
  }
  now(): Date {
    return new Date(this.#ms);
  }
  set(to: Date | string): void {
    this.#ms = new Date(to).getTime();
  }
  advanceMs(ms: number): void {
    this.#ms += ms;
  }
}
