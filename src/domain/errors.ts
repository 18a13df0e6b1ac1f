/**
 * The error classes every layer builds on. Each error says whose fault it is, because that decides
 * what follows: a caller's or the model's mistake never heals by retrying; the outside world's may.
 */

/** Whose fault an error is: the caller's (code or config), the model's (its output), or the outside world's. */
export type Fault = "caller" | "model" | "outside";

/** Options of every soev-agents error: the cause, and structured fields that tools and logs can read. */
export interface SoevErrorOptions {
  cause?: unknown;
  details?: Record<string, unknown>;
}

/** The prefix of the `Symbol.for` key that marks an error as an instance of one soev-agents error class. */
const MARKER_PREFIX = "soev-agents.error.";

/** The global symbol that marks instances of the class named `name`, the same in every copy of the package. */
function markerOf(name: string): symbol {
  return Symbol.for(MARKER_PREFIX + name);
}

/**
 * The base of every soev-agents error: `name` is the class name, `cause` and `details` are kept.
 *
 * Each instance carries a `Symbol.for` marker of its class and of every class above it, so
 * `TransientError.isInstance(error)` holds for an error made by another copy of the package, where
 * `instanceof` fails (two versions installed side by side, or a bundle next to node_modules).
 */
export abstract class SoevError extends Error {
  /** Whose fault the error is. */
  abstract readonly fault: Fault;
  /** Whether the same call can succeed later. Only outside-world errors that say so are retried. */
  readonly retryable: boolean = false;
  /** Structured facts about the error, such as the field or the thread it names. */
  readonly details: Record<string, unknown>;

  constructor(message: string, options: SoevErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.details = options.details ?? {};
    for (let type: unknown = new.target; typeof type === "function" && type !== Error;) {
      Object.defineProperty(this, markerOf(type.name), { value: true });
      type = Object.getPrototypeOf(type);
    }
  }

  /**
   * Whether `error` is an instance of this class (or of a subclass), by its marker: true for an error of
   * another copy of the package too. `TransientError.isInstance(error)` narrows like `instanceof`.
   */
  static isInstance<T>(this: abstract new (...args: any[]) => T, error: unknown): error is T {
    return (
      typeof error === "object" && error !== null && (error as Record<symbol, unknown>)[markerOf(this.name)] === true
    );
  }
}

/** The caller's fault: a wrong setting, argument or input. Retrying the same call cannot help. */
export class CallerError extends SoevError {
  readonly fault = "caller" as const;
}

/** The model's fault: an output that does not fit what it was offered. The model reads the message. */
export class ModelOutputError extends SoevError {
  readonly fault = "model" as const;
}

/** The outside world's fault: a service or a store that failed or refused. */
export class OutsideWorldError extends SoevError {
  readonly fault = "outside" as const;
}

/** A value that does not fit: the reference's ValueError. */
export class ValueError extends CallerError {}

/** A stored event or element that does not decode: an unknown type, or a payload that does not fit its type. */
export class DecodeError extends CallerError {}
