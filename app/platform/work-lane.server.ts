/**
 * At most `width` pieces of one kind of work at a time; the rest wait in
 * line, first come first served, each up to its own deadline. For work that
 * keeps the CPU busy (reading a 25 MB message three times over): ten at once
 * take as long as ten in a row, but with ten at once every page waits behind
 * a slice of each.
 */
export class WorkLane {
  #running = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(readonly width: number) {}

  get running() {
    return this.#running;
  }

  /** A place in the lane within `waitMs`, as the function that gives it back (once); null if none came in time. */
  async enter({ waitMs }: { waitMs: number }): Promise<(() => void) | null> {
    if (this.#running < this.width && this.#waiting.length === 0) {
      this.#running++;
      return this.#leaveOnce();
    }
    const admitted = await new Promise<boolean>((resolve) => {
      const admit = () => {
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(() => {
        this.#waiting.splice(this.#waiting.indexOf(admit), 1);
        resolve(false);
      }, waitMs);
      timer.unref?.();
      this.#waiting.push(admit);
    });
    return admitted ? this.#leaveOnce() : null;
  }

  /** On leaving, the place goes straight to the first in line, or is given back. */
  #leaveOnce() {
    let left = false;
    return () => {
      if (left) return;
      left = true;
      const next = this.#waiting.shift();
      if (next) next();
      else this.#running--;
    };
  }
}
