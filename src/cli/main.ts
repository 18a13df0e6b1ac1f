/**
 * `soev-agents COMMAND ...`: the package's command line. Each command lives in a module of its own; this
 * file only picks one. Exit code 2 for bad arguments or input, with a message saying what to change.
 */
import { SoevError } from "../domain/errors.js";

/** A command: its arguments after its name in, output through `write`, the exit code out. */
export type Command = (argv: readonly string[], write: (text: string) => void) => Promise<number>;

// Loaded on use: a command's dependencies (the MCP SDK, the Temporal client) cost the others nothing.
const COMMANDS: Readonly<Record<string, () => Promise<Command>>> = {
  mcp: async () => (await import("./mcp-command.js")).mcpCommand,
  rerun: async () => (await import("./rerun-command.js")).rerunCommand,
  usage: async () => (await import("./usage-command.js")).usageCommand,
  whatif: async () => (await import("./what-if-command.js")).whatIfCommand,
};

const USAGE = `usage: soev-agents COMMAND [...]; commands: ${Object.keys(COMMANDS).join(", ")} (COMMAND --help for each)`;

/** Run the command line `argv` (without node and the script); returns the exit code. */
export async function main(argv: readonly string[], write = (text: string) => void process.stdout.write(text)) {
  const [name, ...rest] = argv;
  const load = name === undefined ? undefined : COMMANDS[name];
  if (load === undefined) {
    process.stderr.write(`soev-agents: ${name === undefined ? "give a command" : `no command "${name}"`}.\n${USAGE}\n`);
    return 2;
  }
  try {
    return await (
      await load()
    )(rest, write);
  } catch (error) {
    // Bad arguments (parseArgs' TypeError) and the framework's own errors are the caller's to fix: no stack.
    if (!(error instanceof TypeError || SoevError.isInstance(error))) throw error;
    process.stderr.write(`soev-agents ${name}: ${(error as Error).message}\n`);
    return 2;
  }
}
