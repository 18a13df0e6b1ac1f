/**
 * The data converter of an encrypted deployment: the codec on payloads, and failures' messages moved into
 * encoded payloads so the codec encrypts them too. Client and worker load the failure converter by path
 * (the worker's workflows run in a sandbox), and a workflow bundle made ahead needs the path too.
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { DataConverter, PayloadCodec } from "@temporalio/common";

/** The path of the module whose `failureConverter` encodes failures' messages, for `failureConverterPath`. */
export function failureConverterPath(): string {
  const source = fileURLToPath(new URL("./failure-converter.ts", import.meta.url));
  return existsSync(source) ? source : fileURLToPath(new URL("./failure-converter.js", import.meta.url));
}

/**
 * The data converter of an encrypted deployment, the same for the client and every worker: `codec` on
 * payloads, and the failure converter by path (a DataConverter takes no converter object: a
 * `failureConverter` key there is ignored). A workflow bundle made ahead must be made with the same path:
 * `bundleTurnWorkflows({ failureConverterPath: failureConverterPath() })`.
 *
 * @example
 * ```ts
 * import { Client } from "@temporalio/client";
 * import { AesGcmCodec, encryptedDataConverter } from "soev-agents/temporal";
 *
 * const codec = AesGcmCodec.fromBase64("key-2026-11", process.env.SOEV_PAYLOAD_KEY!, { strict: true });
 * const client = new Client({ dataConverter: encryptedDataConverter(codec) });
 * // Every worker: createTurnWorker({ ..., dataConverter: encryptedDataConverter(codec) }).
 * ```
 */
export function encryptedDataConverter(codec: PayloadCodec): DataConverter {
  return { payloadCodecs: [codec], failureConverterPath: failureConverterPath() };
}
