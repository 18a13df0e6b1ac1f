/**
 * An example PayloadCodec that encrypts every payload with AES-256-GCM: the turn's argument and result,
 * activity arguments and results, failures' details, and the UI's summaries and details. Set it on the
 * client (`new Client({ dataConverter: { payloadCodecs: [codec] } })`) and on the worker
 * (`dataConverter` of the worker's options): then Temporal's history holds ciphertext only, and the
 * Temporal UI shows payloads through a codec server that holds the key (SECURITY.md).
 */
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import type { Payload, PayloadCodec } from "@temporalio/common";
import { DecodeError, ValueError } from "../domain/errors.js";

/** The `encoding` metadata of an encrypted payload. */
export const ENCRYPTED_ENCODING = "binary/encrypted";

const ALGORITHM = "aes-256-gcm";
const IV_BYTES = 12;
const TAG_BYTES = 16;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The keys of an AesGcmCodec: the one it encrypts with, by id, and older ones it still decrypts. */
export interface AesGcmCodecOptions {
  /** The id of the key new payloads are encrypted with: recorded with each payload, never secret. */
  keyId: string;
  /** The keys by id, 32 bytes each; `keyId` must be among them. Keep older keys to read older histories. */
  keys: Readonly<Record<string, Uint8Array>>;
  /**
   * Refuse to decode a payload that is not encrypted, instead of passing it through. Default false, so a
   * codec added to a namespace with older clear histories can still read them; set it once every writer
   * encrypts, so a payload written in clear by someone without the key is refused rather than believed.
   */
  strict?: boolean;
}

/**
 * AES-256-GCM over whole payloads: the payload (its metadata and data, protobuf-encoded) is encrypted
 * with a fresh 12-byte IV and authenticated, so a changed byte fails decoding. Payloads of another
 * encoding pass decode unchanged, unless `strict` refuses them.
 */
export class AesGcmCodec implements PayloadCodec {
  private readonly keyId: string;
  private readonly keys: ReadonlyMap<string, Buffer>;
  private readonly strict: boolean;

  constructor(options: AesGcmCodecOptions) {
    const keys = new Map<string, Buffer>();
    for (const [id, key] of Object.entries(options.keys)) {
      if (key.length !== 32)
        throw new ValueError(`AesGcmCodec key "${id}" has ${key.length} bytes: give 32 (AES-256).`);
      keys.set(id, Buffer.from(key));
    }
    if (!keys.has(options.keyId)) throw new ValueError(`AesGcmCodec has no key "${options.keyId}" among its keys.`);
    this.keyId = options.keyId;
    this.keys = keys;
    this.strict = options.strict === true;
  }

  /** A codec from a key in base64 (such as `openssl rand -base64 32`), for a key from the environment. */
  static fromBase64(keyId: string, key: string, options: { strict?: boolean } = {}): AesGcmCodec {
    return new AesGcmCodec({ keyId, keys: { [keyId]: Buffer.from(key, "base64") }, strict: options.strict });
  }

  /** Encrypt each payload with the current key. */
  async encode(payloads: Payload[]): Promise<Payload[]> {
    const key = this.keys.get(this.keyId)!;
    return payloads.map((payload) => {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv(ALGORITHM, key, iv);
      const plain = Buffer.from(JSON.stringify(payloadJson(payload)), "utf8");
      const sealed = Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
      return {
        metadata: { encoding: encoder.encode(ENCRYPTED_ENCODING), "encryption-key-id": encoder.encode(this.keyId) },
        data: sealed,
      };
    });
  }

  /** Decrypt each encrypted payload with the key it names; a changed, cut or foreign payload is refused. */
  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => {
      const encoding = payload.metadata?.encoding;
      if (encoding === undefined || encoding === null || decoder.decode(encoding) !== ENCRYPTED_ENCODING) {
        if (!this.strict) return payload;
        throw new DecodeError(
          "A payload is not encrypted, and this AesGcmCodec is strict: someone without the key wrote it. " +
            "Find the client or worker that runs without the codec, or drop `strict` to read older clear histories.",
        );
      }
      const keyId = decoder.decode(payload.metadata?.["encryption-key-id"] ?? new Uint8Array());
      const key = this.keys.get(keyId);
      if (key === undefined)
        throw new DecodeError(`A payload is encrypted with key "${keyId}", which this codec does not hold.`);
      return fromPayloadJson(opened(key, keyId, Buffer.from(payload.data ?? new Uint8Array())));
    });
  }
}

// The plain text of a sealed payload (IV, ciphertext, tag); the tag check in `final()` refuses any change.
function opened(key: Buffer, keyId: string, sealed: Buffer): string {
  if (sealed.length < IV_BYTES + TAG_BYTES)
    throw new DecodeError(`An encrypted payload has ${sealed.length} bytes, fewer than its IV and tag: it was cut.`);
  const decipher = createDecipheriv(ALGORITHM, key, sealed.subarray(0, IV_BYTES));
  decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
  const body = decipher.update(sealed.subarray(IV_BYTES, sealed.length - TAG_BYTES));
  try {
    return Buffer.concat([body, decipher.final()]).toString("utf8");
  } catch (error) {
    throw new DecodeError(
      `An encrypted payload does not authenticate under key "${keyId}": it was changed, cut, or sealed with another key of that id.`,
      { cause: error },
    );
  }
}

interface PayloadJson {
  metadata: Record<string, string>;
  data: string;
}

// A payload as JSON with base64 bytes: what is sealed.
function payloadJson(payload: Payload): PayloadJson {
  const metadata: Record<string, string> = {};
  for (const [name, value] of Object.entries(payload.metadata ?? {})) {
    if (value) metadata[name] = Buffer.from(value).toString("base64");
  }
  return { metadata, data: Buffer.from(payload.data ?? new Uint8Array()).toString("base64") };
}

function fromPayloadJson(text: string): Payload {
  const json = JSON.parse(text) as PayloadJson;
  const metadata: Record<string, Uint8Array> = {};
  for (const [name, value] of Object.entries(json.metadata)) metadata[name] = Buffer.from(value, "base64");
  return { metadata, data: Buffer.from(json.data, "base64") };
}
