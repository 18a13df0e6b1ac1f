// The events and results a call at a view shows: a view that extends the last one shares its map of
// result places, so each view must still read only the results it shows.
import { describe, expect, it } from "vitest";
import { ToolOutput } from "../../../src/domain/events.js";
import { Trace } from "../../../src/domain/trace.js";
import { ContextDraft } from "../../../src/toolkit/context/context-draft.js";
import { ThreadCache } from "../../../src/toolkit/context/thread-cache.js";
import { ContextPolicy, Text, renderedBy, xml } from "../../../src/toolkit/index.js";
import { Conversation, documentOf } from "../../fixtures/context-conversation.js";

function draftOf(trace: Trace, cache: ThreadCache): ContextDraft {
  cache.extend(trace.thread);
  const settings = {
    renderInput: renderedBy(Text),
    renderers: new Map(),
    show: xml(),
    select: null,
    prompt: null,
    citations: null,
    tools: [],
    budget: null,
    policy: new ContextPolicy(),
    limits: null,
  };
  return new ContextDraft(settings, trace, cache);
}

describe("the results a view shows", () => {
  const conversation = new Conversation().ask("One?").search("one", documentOf("one", 1));
  const short = conversation.trace();
  conversation.search("two", documentOf("two", 1));
  const long = conversation.trace();

  it("are those before its end, though a longer view that extends it added its own", () => {
    const draft = draftOf(long, new ThreadCache());
    const [before, after] = [draft.visible(short), draft.visible(long)];
    expect(before.results.has("r1")).toBe(true);
    expect(before.results.has("r2")).toBe(false);
    expect(after.results.get("r2")).toBe(long.events.at(-1));
  });

  it("keep the first result of a call id that a longer view records again", () => {
    const again = ToolOutput({ callId: (short.events.at(-1) as ToolOutput).callId, text: "Again." });
    const events = [...short.events, again];
    const draft = draftOf(Trace.of(events), new ThreadCache());
    const before = draft.visible(short);
    const after = draft.visible(Trace.of(events));
    expect(before.results.get("r1")).toBe(short.events.at(-1));
    expect(after.results.get("r1")).toBe(again);
  });
});
