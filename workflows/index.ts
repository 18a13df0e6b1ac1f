/** The workflows a soev-agents worker registers: a thread's turn, and the tasks its delegations hand off. */
export { soevTurn } from "./turn.js";
export { soevTask } from "./task.js";
export { soevRerun } from "./rerun.js";
