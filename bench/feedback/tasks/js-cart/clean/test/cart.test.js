import assert from "node:assert/strict";
import test from "node:test";

import { Cart } from "../src/cart.js";
import { formatPrice, split } from "../src/money.js";

test("adding the same item twice adds to its quantity", () => {
  const cart = new Cart("EUR");
  cart.add("a1", "apple", 30);
  cart.add("a1", "apple", 30, 2);
  assert.equal(cart.lines.length, 1);
  assert.equal(cart.lines[0].quantity, 3);
});

test("removing an item", () => {
  const cart = new Cart("EUR");
  cart.add("a1", "apple", 30);
  cart.add("b2", "bread", 250);
  cart.remove("a1");
  assert.deepEqual(
    cart.lines.map((l) => l.sku),
    ["b2"],
  );
});

test("the total counts quantities", () => {
  const cart = new Cart("EUR");
  cart.add("a1", "apple", 30, 4);
  cart.add("b2", "bread", 250);
  assert.equal(cart.totalCents(), 370);
});

test("a discount rounds down", () => {
  const cart = new Cart("EUR");
  cart.add("b2", "bread", 250);
  assert.equal(cart.discounted(15), 212);
  assert.throws(() => cart.discounted(120), RangeError);
});

test("the receipt lists every line and the total", () => {
  const cart = new Cart("EUR");
  cart.add("a1", "apple", 30, 2);
  assert.deepEqual(cart.receipt(), ["2 x apple: 0.60 EUR", "total: 0.60 EUR"]);
});

test("prices", () => {
  assert.equal(formatPrice(1205, "EUR"), "12.05 EUR");
  assert.equal(formatPrice(-5, "EUR"), "-0.05 EUR");
});

test("a split differs by at most a cent", () => {
  assert.deepEqual(split(100, 3), [34, 33, 33]);
  assert.equal(
    split(1001, 7).reduce((a, b) => a + b, 0),
    1001,
  );
});
