/**
 * @callback Listener
 * @param {...unknown} args
 * @returns {void}
 */

export class Emitter {
  constructor() {
    /** @type {Map<string, Listener[]>} */
    this.listeners = new Map();
  }

  /**
   * @param {string} event
   * @param {Listener} listener
   * @returns {() => void} a function that removes the listener
   */
  on(event, listener) {
    const list = this.listeners.get(event) ?? [];
    list.push(listener);
    this.listeners.set(event, list);
    return () => this.off(event, listener);
  }

  /**
   * @param {string} event
   * @param {Listener} listener
   */
  once(event, listener) {
    const off = this.on(event, (...args) => {
      off();
      listener(...args);
    });
    return off;
  }

  /**
   * @param {string} event
   * @param {Listener} listener
   */
  off(event, listener) {
    const list = this.listeners.get(event);
    if (!list) {
      return;
    }
    const at = list.indexOf(listener);
    if (at >= 0) {
      list.splice(at, 1);
    }
    if (list.length === 0) {
      this.listeners.delete(event);
    }
  }

  /**
   * Calls the event's listeners in the order they were added.
   * @param {string} event
   * @param {...unknown} args
   * @returns {number} how many listeners were called
   */
  emit(event, ...args) {
    const list = [...(this.listeners.get(event) ?? [])];
    for (const listener of list) {
      listener(...args);
    }
    return list.length;
  }

  /** @param {string} event */
  count(event) {
    return this.listeners.get(event)?.length ?? 0;
  }
}
