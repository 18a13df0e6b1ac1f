import { describe, expect, it } from "vitest";
import { scrubError, scrubSecrets } from "../../src/ports/secrets.js";

describe("scrubSecrets", () => {
  it.each([
    [
      "Incorrect API key provided: sk-proj-abcd****wxyz. You can find your API key at https://platform.openai.com.",
      "Incorrect API key provided: [redacted]. You can find your API key at https://platform.openai.com.",
    ],
    ["key sk-ant-api03-AbCdEf123456 refused", "key [redacted] refused"],
    ["Authorization: Bearer eyJhbGciOi.abcdefghijk.lmnopqrstuv", "Authorization: Bearer [redacted]"],
    [
      "connect to postgres://soev:hunter2@db.internal:5432/app failed",
      "connect to postgres://[redacted]@db.internal:5432/app failed",
    ],
    ["GET https://api.example.com/v1?api_key=abc123&q=x", "GET https://api.example.com/v1?api_key=[redacted]&q=x"],
    ['{"password": "s3cret", "user": "ann"}', '{"password": "[redacted]", "user": "ann"}'],
    ["google key AIzaSyA1234567890abcdefghijklmnop", "google key [redacted]"],
    ["token ghp_0123456789abcdefghijABCDEFGHIJ", "token [redacted]"],
  ])("scrubs %s", (text, scrubbed) => {
    expect(scrubSecrets(text)).toBe(scrubbed);
  });

  it("leaves text without secrets as it is", () => {
    const text = "The model service for gpt-4.1 failed with 503: overloaded. Skip-list tokens: 12.";
    expect(scrubSecrets(text)).toBe(text);
  });

  it("scrubs an error and its causes in place, keeping their classes", () => {
    const cause = new Error("401 sk-live-123456789");
    const error = new TypeError("wrapped: Bearer abcdefghijkl", { cause });
    expect(scrubError(error)).toBe(error);
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toBe("wrapped: Bearer [redacted]");
    expect(cause.message).toBe("401 [redacted]");
  });
});
