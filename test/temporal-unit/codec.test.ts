// AesGcmCodec without a server: a payload round-trips, and any change to what history holds (a byte of
// the ciphertext or of the tag, the key id, the length) is refused, never decoded to something else.
import { randomBytes } from "node:crypto";
import type { Payload } from "@temporalio/common";
import { describe, expect, it } from "vitest";
import { DecodeError } from "../../src/domain/errors.js";
import { AesGcmCodec, ENCRYPTED_ENCODING } from "../../src/temporal/codec.js";

const key = randomBytes(32);
const codec = new AesGcmCodec({ keyId: "k1", keys: { k1: key } });
const text = (value: string) => new TextEncoder().encode(value);
const plain: Payload = { metadata: { encoding: text("json/plain") }, data: text('"Where does the pelican nest?"') };

async function sealed(): Promise<Payload> {
  const [payload] = await codec.encode([plain]);
  return payload!;
}

function withData(payload: Payload, change: (data: Buffer) => Buffer): Payload {
  return { metadata: payload.metadata, data: change(Buffer.from(payload.data!)) };
}

function flipped(data: Buffer, at: number): Buffer {
  const copy = Buffer.from(data);
  copy[at] = copy[at]! ^ 0x01;
  return copy;
}

describe("AesGcmCodec", () => {
  it("round-trips a payload and hides its text", async () => {
    const payload = await sealed();
    expect(new TextDecoder().decode(payload.metadata!.encoding)).toBe(ENCRYPTED_ENCODING);
    expect(Buffer.from(payload.data!).toString("utf8")).not.toContain("pelican");
    const [back] = await codec.decode([payload]);
    expect(new TextDecoder().decode(back!.data!)).toBe('"Where does the pelican nest?"');
    expect(new TextDecoder().decode(back!.metadata!.encoding)).toBe("json/plain");
  });

  it("refuses a changed byte of the ciphertext", async () => {
    const payload = await sealed();
    const changed = withData(payload, (data) => flipped(data, 12 + 3));
    await expect(codec.decode([changed])).rejects.toThrow(/does not authenticate/);
    await expect(codec.decode([changed])).rejects.toBeInstanceOf(DecodeError);
  });

  it("refuses a changed byte of the tag", async () => {
    const payload = await sealed();
    const changed = withData(payload, (data) => flipped(data, data.length - 1));
    await expect(codec.decode([changed])).rejects.toThrow(/does not authenticate/);
  });

  it("refuses a payload naming a key id it does not hold, and one sealed by another key of the same id", async () => {
    const payload = await sealed();
    const renamed = { ...payload, metadata: { ...payload.metadata, "encryption-key-id": text("k2") } };
    await expect(codec.decode([renamed])).rejects.toThrow(/key "k2", which this codec does not hold/);
    const other = new AesGcmCodec({ keyId: "k1", keys: { k1: randomBytes(32) } });
    await expect(other.decode([payload])).rejects.toThrow(/does not authenticate under key "k1"/);
  });

  it("refuses a truncated payload: cut in the ciphertext, and shorter than IV and tag", async () => {
    const payload = await sealed();
    await expect(codec.decode([withData(payload, (data) => data.subarray(0, data.length - 5))])).rejects.toThrow(
      /does not authenticate/,
    );
    await expect(codec.decode([withData(payload, (data) => data.subarray(0, 20))])).rejects.toThrow(/was cut/);
  });

  it("passes a clear payload through by default, and refuses it when strict", async () => {
    expect(await codec.decode([plain])).toEqual([plain]);
    const strict = new AesGcmCodec({ keyId: "k1", keys: { k1: key }, strict: true });
    await expect(strict.decode([plain])).rejects.toThrow(/not encrypted, and this AesGcmCodec is strict/);
    const [back] = await strict.decode([await sealed()]);
    expect(new TextDecoder().decode(back!.data!)).toBe('"Where does the pelican nest?"');
  });
});
