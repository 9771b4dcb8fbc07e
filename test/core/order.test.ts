import { describe, expect, it } from "vitest";
import { byText } from "../../src/core/order.js";

describe("byText, the order of text in answers", () => {
  it("is the code units' order, whatever the locale would say", () => {
    const words = ["zz", "aa", "Bob", "_x", "ı", "I", "i", "å", "a-b", "a.b"];
    // Danish puts "aa" after "z" and capitals first; code units put capitals before "_" before small letters.
    expect([...words].sort(byText)).toEqual(["Bob", "I", "_x", "a-b", "a.b", "aa", "i", "zz", "å", "ı"]);
    expect(byText("same", "same")).toBe(0);
  });
});
