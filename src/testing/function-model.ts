/** FunctionModel: a test model that computes each output from the request. */
import { ValueError } from "../domain/errors.js";
import type { ChatRequest } from "../ports/request.js";
import { RecordingModel, type ModelCall } from "./recording-model.js";
import { CallIds, namedIds, scriptedReply, type ScriptedOutput, type ScriptedReply } from "./scripted-output.js";

/** Computes the output of one call from its request and the call's index (from 0) and model. */
export type ModelFunction = (request: ChatRequest, call: ModelCall) => ScriptedOutput | Promise<ScriptedOutput>;

/** Options of FunctionModel. */
export interface FunctionModelOptions {
  /** The name a call resolves to when it names no model. Default "function". */
  name?: string;
}

/**
 * A model whose outputs a function computes, for tests whose model must answer what it is asked.
 * Tool-call ids the function leaves out are "call_1", "call_2", ... across the model's calls. What the
 * function throws propagates, so it can raise a TransientError to stand for a failing service.
 */
export class FunctionModel extends RecordingModel {
  private readonly ids = new CallIds();

  constructor(
    private readonly compute: ModelFunction,
    options: FunctionModelOptions = {},
  ) {
    super(options.name ?? "function", "FunctionModel");
    if (typeof compute !== "function")
      throw new ValueError("FunctionModel needs a function from a request to an output.");
  }

  protected async reply(request: ChatRequest, call: ModelCall): Promise<ScriptedReply> {
    const output = await this.compute(request, call);
    this.ids.take(namedIds(output));
    return scriptedReply(output, this.ids, `The output of FunctionModel call ${call.index + 1}`);
  }
}
