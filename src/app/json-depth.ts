/**
 * The nesting check of JSON bodies: a body nested thousands deep parses, but overflows the stack of every
 * recursive reader after it (the schema check, the input limits), which answered 500 with a RangeError.
 * This counts the depth in one pass without recursion, before anything else reads the body.
 */
import type { MiddlewareHandler } from "hono";
import { ProblemError, problemResponse } from "./problems.js";

/** The deepest nesting of arrays and objects a JSON body may have. Turn inputs are limited to 32 levels later. */
export const MAX_JSON_DEPTH = 64;

/** The deepest nesting of arrays and objects in `text`, counted outside strings; text need not be valid JSON. */
export function jsonDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const char = text.charCodeAt(index);
    if (inString) {
      if (char === 0x5c)
        index++; // a backslash escapes the next character
      else if (char === 0x22) inString = false;
    } else if (char === 0x22) inString = true;
    else if (char === 0x5b || char === 0x7b) deepest = Math.max(deepest, ++depth);
    else if (char === 0x5d || char === 0x7d) depth--;
  }
  return deepest;
}

/** Answer 400 to a JSON body nested deeper than MAX_JSON_DEPTH. */
export function jsonDepthCheck(): MiddlewareHandler {
  return async (c, next) => {
    const type = c.req.header("content-type") ?? "";
    if (c.req.method !== "GET" && c.req.method !== "HEAD" && /\bjson\b/i.test(type)) {
      const depth = jsonDepth(await c.req.text());
      if (depth > MAX_JSON_DEPTH)
        return problemResponse(
          c,
          new ProblemError(
            400,
            "JSON nested too deep",
            `The body nests arrays and objects ${depth} levels deep; at most ${MAX_JSON_DEPTH} are taken. Send a flatter body.`,
            { limit: MAX_JSON_DEPTH },
          ),
        );
    }
    await next();
  };
}
