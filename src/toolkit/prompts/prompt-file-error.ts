/** The error of a prompt file that does not fit its agent, or of a model layer that does not fit the file's base. */
import { CallerError } from "../../domain/errors.js";

/**
 * A prompt file that does not fit its agent, or a model layer that does not fit the file's base: a wrong
 * shape, invalid Jinja, an unknown variable, block, text, tool or argument. The caller's fault: fix the file.
 */
export class PromptFileError extends CallerError {}
