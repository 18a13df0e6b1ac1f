/** The workflows a soev-agents worker registers. */
export { soevTurn } from "./turn.js";
