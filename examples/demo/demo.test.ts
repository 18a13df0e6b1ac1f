// The demo, run as the README runs it but against the suite's Temporal dev server: two cited turns.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, inject, it } from "vitest";
import { DemoModel } from "../../src/adapters/index.js";
import { demo } from "./main.js";

it("runs the town assistant through two turns on Temporal and resolves each citation to its passage", async () => {
  const results = await demo({
    address: inject("temporalAddress"),
    model: new DemoModel(),
    dataDir: mkdtempSync(join(tmpdir(), "soev-demo-")),
  });
  expect(results.map((result) => result.sources)).toEqual([["waste-collection#2"], ["parking-permits#0"]]);
  expect(new Set(results.map((result) => result.threadId)).size).toBe(1);
  expect(results[1]!.citations).toEqual([
    {
      marker: " [5]",
      sources: ["parking-permits#0"],
      numbers: [{ number: 5, element: "parking-permits#0", kind: "source" }],
    },
  ]);
}, 120_000);
