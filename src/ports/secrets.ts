/**
 * Secrets out of error text: the outside world's messages (a provider's 401, a driver's connection
 * string) may carry an API key, a bearer token or a URL's credentials. Everything that records an error
 * (a Failure event, a Temporal activity failure, a trace span) first passes its message through
 * `scrubSecrets`.
 */

/** What a scrubbed secret becomes. */
export const REDACTED = "[redacted]";

// Each pattern keeps what names the secret (a scheme, a key's name) and replaces the secret itself.
const PATTERNS: readonly [RegExp, string][] = [
  // URL credentials: scheme://user:password@host, scheme://token@host.
  [/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@]+@/gi, `$1${REDACTED}@`],
  // Authorization headers: Bearer, Basic, Token.
  [/\b(Bearer|Basic|Token)\s+[A-Za-z0-9._~+/=-]{8,}/g, `$1 ${REDACTED}`],
  // Named secrets: api_key=..., "token": "...", password: ..., x-api-key: ...
  [
    /\b((?:x-)?api[_-]?key|apikey|access[_-]?token|refresh[_-]?token|auth[_-]?token|token|secret|client[_-]?secret|password|passwd|pwd)(["']?\s*[:=]\s*["']?)[^\s"'&,;)]+/gi,
    `$1$2${REDACTED}`,
  ],
  // Key formats of the usual providers, whole or masked ("sk-proj-****abcd"): OpenAI and Anthropic, Google,
  // GitHub, Slack, AWS access keys, and JSON Web Tokens.
  [/\bsk-[A-Za-z0-9_*-]{3,}/g, REDACTED],
  [/\bAIza[0-9A-Za-z_-]{20,}/g, REDACTED],
  [/\bgh[pousr]_[A-Za-z0-9]{20,}/g, REDACTED],
  [/\bxox[abprs]-[A-Za-z0-9-]{10,}/g, REDACTED],
  [/\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, REDACTED],
  [/\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g, REDACTED],
];

/** `text` with API keys, bearer tokens, URL credentials and named secrets replaced by "[redacted]". */
export function scrubSecrets(text: string): string {
  return PATTERNS.reduce((scrubbed, [pattern, replacement]) => scrubbed.replace(pattern, replacement), text);
}

/**
 * Scrub an error's message in place, and its causes' (a wrapped driver error keeps the original), and
 * return it: the error keeps its class, so code that tells errors apart by class still can.
 */
export function scrubError<T>(error: T): T {
  const seen = new Set<unknown>();
  for (let current: unknown = error; current instanceof Error && !seen.has(current); current = current.cause) {
    seen.add(current);
    const scrubbed = scrubSecrets(current.message);
    if (scrubbed !== current.message) {
      try {
        current.message = scrubbed;
      } catch {
        // A frozen error keeps its message; its recorders scrub the text they record.
      }
    }
  }
  return error;
}
