/**
 * Browser tokens: a short-lived token scoped to one thread and its principal, so a page can open the thread's
 * streams where it cannot send an `Authorization` header (a browser's `EventSource`). The token is the claims
 * `{ threadId, principal, expiresAt }` as base64url JSON, a dot, and their HMAC-SHA256 under the app's secret:
 * any replica that shares the secret checks it, and nothing is stored.
 */
import { createHmac, timingSafeEqual } from "node:crypto";

/** What a browser token grants: following one thread as its principal until `expiresAt`. */
export interface TokenClaims {
  threadId: string;
  principal: string;
  /** Milliseconds since the epoch after which the token is refused. */
  expiresAt: number;
}

/** Why a token was refused. */
export type TokenRefusal = "malformed" | "forged" | "expired" | "other-thread";

/** The outcome of checking a token: its claims, or why it was refused. */
export type TokenCheck = { ok: true; claims: TokenClaims } | { ok: false; refusal: TokenRefusal; claims?: TokenClaims };

/** Make the token of `claims` under `secret`. */
export function issueToken(secret: Uint8Array, claims: TokenClaims): string {
  const body = Buffer.from(JSON.stringify(claims)).toString("base64url");
  return `${body}.${signature(secret, body)}`;
}

/**
 * Check `token` for `threadId` at `now` (milliseconds since the epoch): its signature under `secret`, then
 * its thread, then its expiry.
 */
export function checkToken(secret: Uint8Array, token: string, threadId: string, now: number): TokenCheck {
  const [body, signed, ...rest] = token.split(".");
  if (!body || !signed || rest.length > 0) return { ok: false, refusal: "malformed" };
  const expected = Buffer.from(signature(secret, body));
  const given = Buffer.from(signed);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return { ok: false, refusal: "forged" };
  const claims = claimsOf(body);
  if (claims === null) return { ok: false, refusal: "malformed" };
  if (claims.threadId !== threadId) return { ok: false, refusal: "other-thread", claims };
  if (now >= claims.expiresAt) return { ok: false, refusal: "expired", claims };
  return { ok: true, claims };
}

function signature(secret: Uint8Array, body: string): string {
  return createHmac("sha256", secret).update(body).digest("base64url");
}

function claimsOf(body: string): TokenClaims | null {
  try {
    const value = JSON.parse(Buffer.from(body, "base64url").toString("utf8")) as Partial<TokenClaims>;
    if (typeof value.threadId !== "string" || typeof value.principal !== "string") return null;
    if (typeof value.expiresAt !== "number" || !Number.isFinite(value.expiresAt)) return null;
    return { threadId: value.threadId, principal: value.principal, expiresAt: value.expiresAt };
  } catch {
    return null;
  }
}
