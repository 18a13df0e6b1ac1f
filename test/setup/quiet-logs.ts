// Each test process logs Temporal workers' warnings and errors only: their state changes are noise.
import { DefaultLogger, Runtime } from "@temporalio/worker";

try {
  Runtime.install({ logger: new DefaultLogger("WARN") });
} catch {
  // Installed already in this process: the first install's logger stays.
}
