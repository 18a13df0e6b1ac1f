/** ToolDeclaration: a tool that an agent has, by name, and the agent's rule for offering it. */
import { ValueError } from "../../domain/errors.js";
import { ToolState, type ToolStates } from "../inputs/input-types.js";

/** The default instruction of a required tool: `{tool}` becomes the tool's name. */
export const REQUIRED_TOOL_INSTRUCTION = "Use the {tool} tool for this message.";

/** The settings of a ToolDeclaration. */
export interface ToolDeclarationOptions {
  /** The name that the model calls the tool by. */
  name: string;
  /** The tool's state on a turn that names no state for it. Default "auto". */
  default?: ToolState;
  /** If true, a turn cannot ask a state other than `default`; one that does is refused. Default false. */
  locked?: boolean;
  /** What the model is told on a turn that requires the tool; `{tool}` becomes its name. Default REQUIRED_TOOL_INSTRUCTION. */
  requiredToolInstruction?: string;
}

/** The defaults of a ToolDeclaration, in one place. */
export const DECLARATION_DEFAULTS = {
  default: "auto",
  locked: false,
  requiredToolInstruction: REQUIRED_TOOL_INSTRUCTION,
} as const;

// A placeholder is a name in braces, such as {tool}, or empty braces; other braces are plain text.
const PLACEHOLDER = /\{(\w*)\}/g;

/**
 * A tool that an agent has, by name, and the agent's rule for offering it. A declaration is not the tool:
 * on each turn the code supplies a tool for each declared name or leaves it out.
 */
export class ToolDeclaration {
  /** The name that the model calls the tool by. */
  readonly name: string;
  /** The tool's state on a turn that names no state for it. */
  readonly default: ToolState;
  /** Whether a turn is refused when it asks a state other than `default`. */
  readonly locked: boolean;
  /** What the model is told on a turn that requires the tool, with `{tool}` where its name goes. */
  readonly requiredToolInstruction: string;

  /** @throws ValueError for an empty name, an unknown default, or an instruction with a placeholder other than {tool}. */
  constructor(options: ToolDeclarationOptions) {
    const settings = { ...DECLARATION_DEFAULTS, ...definedOnly(options) };
    if (typeof settings.name !== "string" || settings.name === "")
      throw new ValueError("A ToolDeclaration needs the name that the model calls the tool by.");
    if (!ToolState.safeParse(settings.default).success) {
      throw new ValueError(
        `The default of tool "${settings.name}" must be "off", "auto" or "required", not ${JSON.stringify(settings.default)}.`,
      );
    }
    if (typeof settings.locked !== "boolean")
      throw new ValueError(`locked of tool "${settings.name}" must be true or false.`);
    if (typeof settings.requiredToolInstruction !== "string")
      throw new ValueError(`requiredToolInstruction of tool "${settings.name}" must be a text.`);
    const others = [...settings.requiredToolInstruction.matchAll(PLACEHOLDER)]
      .map((match) => match[0])
      .filter((found) => found !== "{tool}");
    if (others.length > 0) {
      throw new ValueError(
        `requiredToolInstruction of tool "${settings.name}" uses ${others.join(", ")}; the only placeholder is {tool}, which becomes the tool's name.`,
      );
    }
    this.name = settings.name;
    this.default = settings.default;
    this.locked = settings.locked;
    this.requiredToolInstruction = settings.requiredToolInstruction;
  }

  /** This tool's state on a turn that asks `requested`: `default` when locked or not named, else the state named. */
  state(requested: ToolStates): ToolState {
    if (this.locked || !Object.hasOwn(requested, this.name)) return this.default;
    return requested[this.name]!;
  }

  /** The instruction that the model reads on a turn that requires the tool, with its name in it. */
  get instruction(): string {
    return this.requiredToolInstruction.replaceAll("{tool}", this.name);
  }
}

function definedOnly<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as Partial<T>;
}
