// Tutorial 2, step 7: the tools are plain functions; a test calls them without a model or a framework.
import { expect, it } from "vitest";
import { LIBRARY } from "../01-first-agent/library.js";
import { Passage, readDocument, search } from "./tools.js";

it("search returns passages and their documents", async () => {
  const output = await search({ query: "bulky waste", library: LIBRARY, seen: [] });
  expect(output.elements.map((element) => element.id)).toEqual([
    "waste-collection",
    "waste-collection#2",
    "waste-collection#0",
  ]);
});

it("search leaves out passages that the turn already showed", async () => {
  const first = await search({ query: "parking permit", library: LIBRARY, seen: [] });
  const seen = first.elements.filter((element) => Passage.is(element));
  const again = await search({ query: "parking permit", library: LIBRARY, seen });
  expect(again.error).not.toBeNull();
});

it("read_document returns all passages of the document", async () => {
  const output = await readDocument({ document: "dog-tax", library: LIBRARY });
  expect(output.elements.map((element) => element.id)).toEqual(["dog-tax", "dog-tax#0", "dog-tax#1"]);
});
