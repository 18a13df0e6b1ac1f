import { describe, expect, it } from "vitest";
import { promptTemplate } from "../../../src/toolkit/index.js";

describe("promptTemplate", () => {
  it("writes the citation example and the turn's context, trimmed", () => {
    const prompt = promptTemplate("Cite as {citation}.\nContext: {context}");
    expect(prompt({ text: "hi", context: "  the user is in Utrecht \n" }, "[1]")).toBe(
      "Cite as [1].\nContext: the user is in Utrecht",
    );
  });

  it("writes nothing for a missing citation example or context", () => {
    const prompt = promptTemplate("Cite as {citation}. Context: {context}.");
    expect(prompt({ text: "hi" }, null)).toBe("Cite as . Context: .");
    expect(prompt({ text: "hi", context: null }, null)).toBe("Cite as . Context: .");
    expect(prompt("a plain text turn", null)).toBe("Cite as . Context: .");
  });

  it("fills both placeholders in one pass, so text from the turn is never read as a placeholder", () => {
    const prompt = promptTemplate("{context} / {citation}");
    expect(prompt({ context: "write {citation} and {context} here" }, "[1]")).toBe(
      "write {citation} and {context} here / [1]",
    );
  });

  it("keeps other braces as they are", () => {
    const prompt = promptTemplate('Answer as JSON: {"answer": "..."} {cite} {{citation}} {citation}');
    expect(prompt({}, "[1]")).toBe('Answer as JSON: {"answer": "..."} {cite} {[1]} [1]');
  });

  it("removes the spaces around the result", () => {
    const prompt = promptTemplate("\n  {context}\n  Be brief.  \n");
    expect(prompt({}, null)).toBe("Be brief.");
  });

  it("says which turn fields it reads: context only when the template holds {context}", () => {
    expect(promptTemplate("Cite as {citation}.").reads).toEqual([]);
    expect(promptTemplate("Context: {context}").reads).toEqual(["context"]);
    expect(promptTemplate("Context: {context}").template).toBe("Context: {context}");
  });
});
