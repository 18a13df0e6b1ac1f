/** Reply: a step of your own that records a fixed answer, without a model. */
import { ModelOutput, type Event } from "../../../src/domain/index.js";
import type { Step, StepContext, Work } from "../../../src/runtime/index.js";

/** A step that answers with a fixed text. It has work until the stream's last event is its own answer. */
export class Reply implements Step {
  constructor(readonly text: string) {}

  plan(context: StepContext): Work[] {
    const events = context.trace.stream(context.stream).events;
    if (this.answered(events.at(-1), context.node)) return [];
    return [{ key: String(events.length), kind: "step", name: "reply", summary: `reply "${this.text.slice(0, 40)}"` }];
  }

  done(context: StepContext, key: string): boolean {
    return context.trace
      .stream(context.stream)
      .events.slice(Number(key))
      .some((event) => this.answered(event, context.node));
  }

  async run(context: StepContext): Promise<Event[]> {
    return [ModelOutput({ content: this.text, finishReason: "stop", stream: context.stream, origin: context.node })];
  }

  private answered(event: Event | undefined, node: string): boolean {
    return ModelOutput.is(event) && event.origin === node;
  }
}
