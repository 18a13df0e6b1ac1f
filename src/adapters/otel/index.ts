/**
 * soev-agents/otel: an observer that writes each run as OpenTelemetry spans (the OpenTelemetry API loads only here).
 *
 * @module soev-agents/otel
 */
export { OtelObserver, TRACER_NAME, remoteContext } from "./observer.js";
export type { OtelObserverOptions } from "./observer.js";
export {
  CLOSED_SPAN_EVENT,
  PAYLOAD_CHARACTERS,
  RUN_SPAN,
  SPAN_ATTRIBUTES,
  GEN_AI_ATTRIBUTES,
  SUPERSEDED_SPAN_EVENT,
} from "./attributes.js";
