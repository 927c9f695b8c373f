import { formatPrice } from "./money.js";

/**
 * @typedef {{ sku: string, name: string, cents: number, quantity: number }} Line
 */

export class Cart {
  /** @param {string} currency */
  constructor(currency) {
    this.currency = currency;
    /** @type {Line[]} */
    this.lines = [];
  }

  /**
   * @param {string} sku
   * @param {string} name
   * @param {number} cents
   * @param {number} quantity
   */
  add(sku, name, cents, quantity = 1) {
    const line = this.lines.find((l) => l.sku === sku);
    if (line) {
      line.quantity += quantity;
      return;
    }
    this.lines.push({ sku, name, cents, quantity });
  }

  /** @param {string} sku */
  remove(sku) {
    this.lines = this.lines.filter((l) => l.sku !== sku);
  }

  /** @returns {number} */
  totalCents() {
    return this.lines.reduce((sum, l) => sum + l.cents * l.quantity, 0);
  }

  /**
   * The total after a discount in percent, rounded down to a cent.
   * @param {number} percent
   * @returns {number}
   */
  discounted(percent) {
    if (percent < 0 || percent > 100) {
      throw new RangeError(`discount ${percent}% is out of range`);
    }
    return Math.floor((this.totalCents() * (100 - percent)) / 100);
  }

  /** @returns {string[]} */
  receipt() {
    const rows = this.lines.map(
      (l) =>
        `${l.quantity} x ${l.name}: ${formatPrice(l.cents * l.quantity, this.currency)}`,
    );
    rows.push(`total: ${formatPrice(this.totalCents(), this.currency)}`);
    return rows;
  }
}
