/**
 * The failure converter of encrypted deployments, loaded by path: failures' messages and stack traces are
 * not payloads, so a PayloadCodec leaves them in clear unless the failure converter moves them into an
 * encoded payload (`encodeCommonAttributes`). The worker loads it by path (`failureConverterPath`: its
 * workflows run in a sandbox that cannot take an object), the client takes the same converter.
 * It runs inside the workflow sandbox too: it imports nothing but @temporalio/common.
 */
import { DefaultFailureConverter } from "@temporalio/common";

/** Failures with their message and stack trace in an encoded payload: the codec encrypts them. */
export const failureConverter = new DefaultFailureConverter({ encodeCommonAttributes: true });
