import assert from "node:assert/strict";
import test from "node:test";

import { slugify, uniqueSlug } from "../src/slug.js";

test("words joined by dashes", () => {
  assert.equal(slugify("Hello, World!"), "hello-world");
});

test("accents are dropped", () => {
  assert.equal(slugify("Crème brûlée"), "creme-brulee");
});

test("symbols become words", () => {
  assert.equal(slugify("Salt & Pepper"), "salt-and-pepper");
  assert.equal(slugify("C++"), "c-plus-plus");
});

test("cut at a word, never inside one", () => {
  assert.equal(slugify("one two three", 8), "one-two");
});

test("unique slugs count up", () => {
  const taken = new Set();
  assert.equal(uniqueSlug("Post", taken), "post");
  assert.equal(uniqueSlug("Post", taken), "post-2");
  assert.equal(uniqueSlug("post!", taken), "post-3");
});
