/**
 * Formats cents as a price.
 * @param {number} cents
 * @param {string} currency
 * @returns {string}
 */
export function formatPrice(cents, currency) {
  const sign = cents < 0 ? "-" : "";
  const abs = Math.abs(cents);
  const whole = Math.floor(abs / 100);
  const rest = String(abs % 100).padStart(2, "0");
  return `${sign}${whole}.${rest} ${currency}`;
}

/**
 * Splits cents into parts that differ by at most one cent.
 * @param {number} cents
 * @param {number} parts
 * @returns {number[]}
 */
export function split(cents, parts) {
  const base = Math.floor(cents / parts);
  const extra = cents - base * parts;
  return Array.from({ length: parts }, (_, i) => base + (i < extra ? 1 : 0));
}
