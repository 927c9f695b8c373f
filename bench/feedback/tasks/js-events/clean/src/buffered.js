import { Emitter } from "./emitter.js";

/** Holds events until `flush`, then emits them in order. */
export class Buffered extends Emitter {
  constructor() {
    super();
    /** @type {Array<[string, unknown[]]>} */
    this.pending = [];
  }

  /**
   * @param {string} event
   * @param {...unknown} args
   */
  queue(event, ...args) {
    this.pending.push([event, args]);
  }

  /** @returns {number} how many events were emitted */
  flush() {
    const events = this.pending;
    this.pending = [];
    let emitted = 0;
    for (const [event, args] of events) {
      this.emit(event, ...args);
      emitted += 1;
    }
    return emitted;
  }
}
