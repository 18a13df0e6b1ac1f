/**
 * `soev-agents COMMAND ...`: the package's command line. Each command lives in a module of its own; this
 * file only picks one. Exit code 2 for bad arguments or input, with a message saying what to change.
 */
import { SoevError } from "../domain/errors.js";
import { usageCommand } from "./usage-command.js";
import { whatIfCommand } from "./what-if-command.js";

/** A command: its arguments after its name in, output through `write`, the exit code out. */
export type Command = (argv: readonly string[], write: (text: string) => void) => Promise<number>;

const COMMANDS: Readonly<Record<string, Command>> = { usage: usageCommand, whatif: whatIfCommand };

const USAGE = `usage: soev-agents COMMAND [...]; commands: ${Object.keys(COMMANDS).join(", ")} (COMMAND --help for each)`;

/** Run the command line `argv` (without node and the script); returns the exit code. */
export async function main(argv: readonly string[], write = (text: string) => void process.stdout.write(text)) {
  const [name, ...rest] = argv;
  const command = name === undefined ? undefined : COMMANDS[name];
  if (command === undefined) {
    process.stderr.write(`soev-agents: ${name === undefined ? "give a command" : `no command "${name}"`}.\n${USAGE}\n`);
    return 2;
  }
  try {
    return await command(rest, write);
  } catch (error) {
    // Bad arguments (parseArgs' TypeError) and the framework's own errors are the caller's to fix: no stack.
    if (!(error instanceof TypeError || SoevError.isInstance(error))) throw error;
    process.stderr.write(`soev-agents ${name}: ${(error as Error).message}\n`);
    return 2;
  }
}
