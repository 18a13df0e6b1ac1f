import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { REDACTED, scrubError, scrubSecrets } from "../../src/ports/secrets.js";

const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".split("");
const body = (length: number) => fc.array(fc.constantFrom(...alnum), { minLength: length, maxLength: length + 20 });
const hex = (length: number) =>
  fc.array(fc.constantFrom(..."0123456789abcdef".split("")), { minLength: length, maxLength: length });
const upper = (length: number) =>
  fc.array(fc.constantFrom(..."ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".split("")), { minLength: length, maxLength: length });
const joined = (prefix: string, chars: fc.Arbitrary<string[]>) => chars.map((each) => prefix + each.join(""));

// Secrets of every shape the scrubber knows, with random bodies: none may survive in any surrounding text.
const SECRETS: fc.Arbitrary<string> = fc.oneof(
  joined("sk-proj-", body(24)),
  joined("sk_live_", body(24)),
  joined("rk_live_", body(24)),
  joined("github_pat_11A", body(60)),
  joined("ghp_", body(36)),
  joined("hf_", body(34)),
  joined("ya29.a0", body(40)),
  joined("AIza", body(35)),
  joined("AKIA", upper(16)),
  joined("glpat-", body(20)),
  joined("xoxb-", body(24)),
  joined("gsk_", body(40)),
  joined(
    "npm_",
    body(36).map((each) => each.slice(0, 36)),
  ),
  joined("shpat_", hex(32)),
  joined("dop_v1_", hex(64)),
);

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
    [
      "GitHub refused github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ01234",
      "GitHub refused [redacted]",
    ],
    [
      "boto: aws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY region=eu",
      "boto: aws_secret_access_key=[redacted] region=eu",
    ],
    ["AWS_SECRET_ACCESS_KEY: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY'", "AWS_SECRET_ACCESS_KEY: '[redacted]'"],
    ["stripe: Invalid API Key provided: sk_live_51Habcdefghijklmnop", "stripe: Invalid API Key provided: [redacted]"],
    ["restricted rk_live_51Habcdefghijklmnop refused", "restricted [redacted] refused"],
    ["hub: hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567 is invalid", "hub: [redacted] is invalid"],
    ["oauth ya29.a0AfH6SMBx3-abcdefghijklmnop_qrs expired", "oauth [redacted] expired"],
    ["gitlab glpat-abcdefghij0123456789 denied", "gitlab [redacted] denied"],
    ["posting to https://hooks.slack.com/services/T000/B000/XXXXXXXX failed", "posting to https://[redacted] failed"],
    ["key -----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY----- bad", "key [redacted] bad"],
  ])("scrubs %s", (text, scrubbed) => {
    expect(scrubSecrets(text)).toBe(scrubbed);
  });

  it("leaves text without secrets as it is", () => {
    const text = "The model service for gpt-4.1 failed with 503: overloaded. Skip-list tokens: 12.";
    expect(scrubSecrets(text)).toBe(text);
  });

  it("leaves no secret of any known shape in any text around it", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), SECRETS, fc.string({ maxLength: 80 }), (before, secret, after) => {
        const scrubbed = scrubSecrets(`${before} ${secret} ${after}`);
        expect(scrubbed).not.toContain(secret);
        expect(scrubbed).toContain(REDACTED);
      }),
      { numRuns: 500 },
    );
  });

  it("changes nothing on a second pass, and keeps text without secrets' keywords as it is", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300, unit: "binary" }), (text) => {
        const once = scrubSecrets(text);
        expect(scrubSecrets(once)).toBe(once);
      }),
      { numRuns: 200 },
    );
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom("the", "model", "failed", "503", "overloaded", "retry", "x=1"), { maxLength: 40 }),
        (words) => {
          const text = words.join(" ");
          expect(scrubSecrets(text)).toBe(text);
        },
      ),
    );
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
