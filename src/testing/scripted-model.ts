/** ScriptedModel: a test model that replays a list of outputs, one per call. */
import { CallerError, ValueError } from "../domain/errors.js";
import type { ChatRequest } from "../ports/request.js";
import { RecordingModel, type ModelCall } from "./recording-model.js";
import { CallIds, namedIds, scriptedReply, type ScriptedOutput, type ScriptedReply } from "./scripted-output.js";

/** Options of ScriptedModel. */
export interface ScriptedModelOptions {
  /** The name a call resolves to when it names no model. Default "scripted". */
  name?: string;
}

/** A ScriptedModel was called more often than its script has outputs. */
export class ScriptExhaustedError extends CallerError {}

/**
 * A model that replays a script: call n gets output n. Tool-call ids missing from the script are
 * "call_1", "call_2", ... in script order, fixed at construction, so every runner records the same ids.
 * An Error in the script is thrown at its call instead, for instance a TransientError to test retries.
 */
export class ScriptedModel extends RecordingModel {
  private readonly script: readonly (ScriptedReply | Error)[];

  constructor(outputs: readonly (ScriptedOutput | Error)[], options: ScriptedModelOptions = {}) {
    super(options.name ?? "scripted", "ScriptedModel");
    if (!Array.isArray(outputs))
      throw new ValueError("ScriptedModel needs a list of outputs, one for each model call.");
    const ids = new CallIds();
    ids.take(outputs.flatMap((output) => (output instanceof Error ? [] : namedIds(output))));
    this.script = outputs.map((output, index) =>
      output instanceof Error ? output : scriptedReply(output, ids, `Output ${index + 1} of the ScriptedModel script`),
    );
  }

  /** The outputs not yet replayed. */
  get remaining(): number {
    return Math.max(0, this.script.length - this.requests.length);
  }

  protected reply(_request: ChatRequest, call: ModelCall): Promise<ScriptedReply> {
    const next = this.script[call.index];
    if (next === undefined) {
      return Promise.reject(
        new ScriptExhaustedError(
          `ScriptedModel had ${this.script.length} output${this.script.length === 1 ? "" : "s"} and replayed them all: ` +
            `call ${call.index + 1} has none. Add an output for each model call the test expects, ` +
            "or look at the last of `requests` to see why the model was called again.",
          { details: { outputs: this.script.length, call: call.index + 1 } },
        ),
      );
    }
    return next instanceof Error ? Promise.reject(next) : Promise.resolve(next);
  }
}
