import assert from "node:assert/strict";
import test from "node:test";

import { Buffered } from "../src/buffered.js";
import { Emitter } from "../src/emitter.js";

test("listeners are called in order with the arguments", () => {
  const e = new Emitter();
  const seen = [];
  e.on("x", (a) => seen.push(`first ${a}`));
  e.on("x", (a) => seen.push(`second ${a}`));
  assert.equal(e.emit("x", 1), 2);
  assert.deepEqual(seen, ["first 1", "second 1"]);
});

test("an event nobody listens to calls nothing", () => {
  assert.equal(new Emitter().emit("nobody"), 0);
});

test("the function on returns removes the listener", () => {
  const e = new Emitter();
  const off = e.on("x", () => {});
  off();
  assert.equal(e.count("x"), 0);
});

test("once is called once", () => {
  const e = new Emitter();
  let calls = 0;
  e.once("x", () => {
    calls += 1;
  });
  e.emit("x");
  e.emit("x");
  assert.equal(calls, 1);
});

test("a listener removed during emit still runs this time", () => {
  const e = new Emitter();
  const seen = [];
  const offB = e.on("x", () => seen.push("b"));
  e.on("x", () => {
    seen.push("a");
    offB();
  });
  e.emit("x");
  e.emit("x");
  assert.deepEqual(seen, ["b", "a", "a"]);
});

test("off of an unknown listener changes nothing", () => {
  const e = new Emitter();
  e.on("x", () => {});
  e.off("x", () => {});
  assert.equal(e.count("x"), 1);
});

test("buffered events wait for flush", () => {
  const b = new Buffered();
  const seen = [];
  b.on("x", (a) => seen.push(a));
  b.queue("x", 1);
  b.queue("x", 2);
  assert.deepEqual(seen, []);
  assert.equal(b.flush(), 2);
  assert.deepEqual(seen, [1, 2]);
  assert.equal(b.flush(), 0);
});
