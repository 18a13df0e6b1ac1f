/** soev-agents/runtime: tools, graphs and steps, budget, citations, the catalog and the local runner, replay. */
export { BRACKETS, FULLWIDTH, parseMarkers, readMarkers } from "./citations.js";
