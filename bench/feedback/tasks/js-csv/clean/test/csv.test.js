import assert from "node:assert/strict";
import test from "node:test";

import { parseLine, parseRecords, quote } from "../src/csv.js";

test("plain fields", () => {
  assert.deepEqual(parseLine("a,b,c"), ["a", "b", "c"]);
});

test("empty fields are kept", () => {
  assert.deepEqual(parseLine(",x,"), ["", "x", ""]);
});

test("quoted fields hold commas and quotes", () => {
  assert.deepEqual(parseLine('"a,b","say ""hi""",c'), ["a,b", 'say "hi"', "c"]);
});

test("records are keyed by the header", () => {
  const text = "name,qty\r\nbolt,3\nnut\n";
  assert.deepEqual(parseRecords(text), [
    { name: "bolt", qty: "3" },
    { name: "nut", qty: "" },
  ]);
});

test("an empty document has no records", () => {
  assert.deepEqual(parseRecords(""), []);
});

test("quote only what needs it", () => {
  assert.equal(quote("plain"), "plain");
  assert.equal(quote("a,b"), '"a,b"');
  assert.equal(quote('say "hi"'), '"say ""hi"""');
});
