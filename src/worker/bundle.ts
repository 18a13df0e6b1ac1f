/** The workflow bundle of the turn workflow: its source path, the idsOnly interceptor, and quiet bundling. */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import {
  bundleWorkflowCode,
  Runtime,
  type BundleOptions,
  type LogLevel,
  type LogMetadata,
  type Logger,
} from "@temporalio/worker";

/** The file of the workflows a worker runs: the TypeScript source, or the built JavaScript next to it. */
export function workflowsPath(): string {
  const source = fileURLToPath(new URL("../../workflows/index.ts", import.meta.url));
  return existsSync(source) ? source : fileURLToPath(new URL("../../workflows/index.js", import.meta.url));
}

/** The path of the workflow interceptor that forces idsOnly on every turn a worker runs. */
export function idsOnlyInterceptorPath(): string {
  const source = fileURLToPath(new URL("../../workflows/ids-only.ts", import.meta.url));
  return existsSync(source) ? source : fileURLToPath(new URL("../../workflows/ids-only.js", import.meta.url));
}

/** What bundleTurnWorkflows takes: Temporal's bundle options, and whether the bundle forces idsOnly. */
export interface TurnBundleOptions extends Omit<BundleOptions, "workflowsPath"> {
  /** Every turn of the bundle runs idsOnly, whatever its starter asked (for workers with `idsOnly: true`). */
  idsOnly?: boolean;
}

/**
 * Bundle the workflow code once, to share between workers (bundling takes seconds). Workflow interceptor
 * modules, the failure converter's path and bundler plugins (such as the OpenTelemetry plugin) must be
 * given here when the bundle is.
 */
export async function bundleTurnWorkflows(options: TurnBundleOptions = {}): Promise<{ code: string }> {
  const { idsOnly, ...bundle } = options;
  const modules = [...(bundle.workflowInterceptorModules ?? []), ...(idsOnly ? [idsOnlyInterceptorPath()] : [])];
  return bundleWorkflowCode({
    logger: new BundleLogger(),
    ...bundle,
    workflowInterceptorModules: modules,
    workflowsPath: workflowsPath(),
  });
}

/**
 * The bundler's logger: webpack's report (some 30 lines at INFO) only when SOEV_BUNDLE_VERBOSE is set; warnings and
 * errors always, through the Runtime's logger like the rest of the worker's.
 */
class BundleLogger implements Logger {
  private readonly verbose = Boolean(process.env.SOEV_BUNDLE_VERBOSE);

  log(level: LogLevel, message: string, meta?: LogMetadata): void {
    if (this.verbose || level === "WARN" || level === "ERROR") Runtime.instance().logger.log(level, message, meta);
  }
  trace(message: string, meta?: LogMetadata): void {
    this.log("TRACE", message, meta);
  }
  debug(message: string, meta?: LogMetadata): void {
    this.log("DEBUG", message, meta);
  }
  info(message: string, meta?: LogMetadata): void {
    this.log("INFO", message, meta);
  }
  warn(message: string, meta?: LogMetadata): void {
    this.log("WARN", message, meta);
  }
  error(message: string, meta?: LogMetadata): void {
    this.log("ERROR", message, meta);
  }
}
