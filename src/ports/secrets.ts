/**
 * Secrets out of error text: the outside world's messages (a provider's 401, a driver's connection
 * string) may carry an API key, a bearer token or a URL's credentials. Everything that records an error
 * (a Failure event, a Temporal activity failure, a trace span) first passes its message through
 * `scrubSecrets`.
 *
 * The rules run on RE2 (re2js), which matches in time linear in the text: an error message is the outside
 * world's text, and a backtracking engine let a crafted 120 KB message hold the worker for 15 s. Each rule
 * runs only when one of its keywords is in the text (as gitleaks does), so most messages cost a few scans.
 */
import { RE2JS } from "re2js";

/** What a scrubbed secret becomes. */
export const REDACTED = "[redacted]";

/** A rule: the words one of which a match must contain (lower case), the pattern (RE2 syntax), what replaces a match. */
interface SecretRule {
  keywords: readonly string[];
  pattern: string;
  /** `$1`, `$2` keep what names the secret; the default replaces the whole match. */
  replacement?: string;
}

// A value: what follows a name and its `=` or `:` up to a separator.
const VALUE = `[^\\s"'&,;)<>]+`;
// The names a value is secret under: `api_key=…`, `"client_secret": "…"`, `aws_secret_access_key = …`.
const SECRET_NAMES =
  "(?:x-)?api[_-]?key|apikey|api[_-]?secret|access[_-]?token|refresh[_-]?token|auth[_-]?token|id[_-]?token|" +
  "session[_-]?token|token|secret|secret[_-]?key|client[_-]?secret|private[_-]?key|password|passwd|pwd|" +
  "aws[_-]?secret[_-]?access[_-]?key|aws[_-]?session[_-]?token|account[_-]?key|sas[_-]?token";

// Learnt from the gitleaks and detect-secrets rule sets: the key shapes of the usual providers, whole or
// masked ("sk-proj-****abcd"). Formats with a fixed prefix need no context; bare AWS secret keys (40
// characters of base64) do, and are caught by their name (`aws_secret_access_key=…`).
const RULES: readonly SecretRule[] = [
  // URL credentials: scheme://user:password@host, scheme://token@host.
  { keywords: ["://"], pattern: `(?i)\\b([a-z][a-z0-9+.-]*://)[^\\s/?#@]+@`, replacement: `$1${REDACTED}@` },
  // Authorization headers: Bearer, Basic, Token.
  {
    keywords: ["bearer", "basic", "token"],
    pattern: `\\b(Bearer|Basic|Token)\\s+[A-Za-z0-9._~+/=-]{8,}`,
    replacement: `$1 ${REDACTED}`,
  },
  // Named secrets: api_key=..., "token": "...", password: ..., x-api-key: ..., aws_secret_access_key = ...
  {
    keywords: ["key", "token", "secret", "pass", "pwd"],
    pattern: `(?i)\\b(${SECRET_NAMES})(["']?\\s*[:=]\\s*["']?)${VALUE}`,
    replacement: `$1$2${REDACTED}`,
  },
  // Private keys in PEM.
  {
    keywords: ["private key"],
    pattern: `-----BEGIN[A-Z ]*PRIVATE KEY( BLOCK)?-----[\\s\\S]*?(?:-----END[A-Z ]*PRIVATE KEY( BLOCK)?-----|$)`,
  },
  // OpenAI, Anthropic, DeepSeek and others: sk-…; Stripe secret and restricted keys: sk_live_…, rk_live_….
  { keywords: ["sk-"], pattern: `\\bsk-[A-Za-z0-9_*-]{3,}` },
  { keywords: ["sk_", "rk_"], pattern: `\\b[sr]k_(?:live|test|prod)_[A-Za-z0-9*]{8,}` },
  // Google API keys and OAuth access tokens.
  { keywords: ["aiza"], pattern: `\\bAIza[0-9A-Za-z_-]{20,}` },
  { keywords: ["ya29."], pattern: `\\bya29\\.[0-9A-Za-z_-]{10,}` },
  // GitHub tokens (classic and fine-grained), GitLab.
  { keywords: ["gh"], pattern: `\\bgh[pousr]_[A-Za-z0-9]{20,}` },
  { keywords: ["github_pat_"], pattern: `\\bgithub_pat_[A-Za-z0-9_]{20,}` },
  { keywords: ["glpat-"], pattern: `\\bglpat-[A-Za-z0-9_-]{20,}` },
  // Slack tokens and webhooks.
  { keywords: ["xox"], pattern: `\\bxox[abeprs]-[A-Za-z0-9-]{10,}` },
  { keywords: ["hooks.slack.com"], pattern: `hooks\\.slack\\.com/services/[A-Za-z0-9/_-]+` },
  // AWS access key ids.
  {
    keywords: ["akia", "asia", "abia", "acca", "a3t"],
    pattern: `\\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\\b`,
  },
  // Hugging Face, Groq, Replicate, npm, PyPI, SendGrid, Shopify, DigitalOcean, Databricks, Anthropic admin.
  { keywords: ["hf_"], pattern: `\\bhf_[A-Za-z0-9]{30,}` },
  { keywords: ["gsk_"], pattern: `\\bgsk_[A-Za-z0-9]{20,}` },
  { keywords: ["r8_"], pattern: `\\br8_[A-Za-z0-9]{30,}` },
  { keywords: ["npm_"], pattern: `\\bnpm_[A-Za-z0-9]{36}` },
  { keywords: ["pypi-"], pattern: `\\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{30,}` },
  { keywords: ["sg."], pattern: `\\bSG\\.[A-Za-z0-9_-]{16,}\\.[A-Za-z0-9_-]{16,}` },
  { keywords: ["shp"], pattern: `\\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}` },
  { keywords: ["do"], pattern: `\\bdo[opr]_v1_[a-f0-9]{64}` },
  { keywords: ["dapi"], pattern: `\\bdapi[a-f0-9]{32}` },
  // JSON Web Tokens.
  { keywords: ["eyj"], pattern: `\\beyJ[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]{8,}` },
];

const COMPILED = RULES.map((rule) => ({ ...rule, regex: RE2JS.compile(rule.pattern) }));

/** `text` with API keys, bearer tokens, URL credentials and named secrets replaced by "[redacted]", in linear time. */
export function scrubSecrets(text: string): string {
  // The keywords are a filter only: a replacement can remove one, never add one, so one lowering serves all.
  const lower = text.toLowerCase();
  let scrubbed = text;
  for (const rule of COMPILED) {
    if (!rule.keywords.some((keyword) => lower.includes(keyword))) continue;
    scrubbed = rule.regex.matcher(scrubbed).replaceAll(rule.replacement ?? REDACTED);
  }
  return scrubbed;
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
