/**
 * An upstream's raw answer as the operator may see it: the body it sent
 * for a purchase call, a re-query or a callback, with secrets removed and bounded. The one
 * place answers are cleaned: adapters hand over the body as it came, the purchase code
 * cleans it here before the store ever sees it. Headers are never kept.
 *
 * Removed: the value of every field whose name says it holds a credential (keys, secrets,
 * passwords, PINs, authorisation, api/access/session tokens, signatures), and any text shaped
 * like a credential (our `sk_`/`whsec_` keys, a bearer credential, a long mixed run of
 * base64url characters). Kept: an electricity token (`token`, `purchased_code`, `mainToken`...):
 * it is the customer's goods, already on the transaction, and only digits.
 */

/** The most of an answer kept, in UTF-8 bytes; the rest is cut off and the cut marked. */
export const RAW_ANSWER_MAX_BYTES = 4096;

/**
 * The most answers kept per purchase: a purchase re-queried for days says the same thing
 * again and again. An answer equal to the last one kept is not kept again; past the bound the
 * last one is replaced, so the first answers and the newest stay.
 */
export const RAW_ANSWERS_PER_PURCHASE = 20;

/** What a removed value is replaced with. */
const REMOVED = '[removed]';

/**
 * Field names whose values are credentials. A bare `token` is not among them: VTpass and the
 * other upstreams name the electricity token so.
 */
const SECRET_NAME = new RegExp(
  [
    '(^|[_-])(api|secret|private|public)?[_-]?key$',
    'secret|passw|pwd|^pin$|[_-]pin$|pincode',
    'auth|signature|hash|cookie|session|credential',
    '(access|refresh|api|bearer|auth|session|id)[_-]?token',
  ].join('|'),
  'i',
);

/** Text shaped like a credential wherever it stands (as runtime/log.ts reads one). */
const SECRET_SHAPES = new RegExp(
  [
    String.raw`\b(?:sk|pk|whsec|sess|inv)_[A-Za-z0-9_-]{6,}`,
    String.raw`\bBearer\s+\S+`,
    String.raw`\bBasic\s+[A-Za-z0-9+/=]{8,}`,
    String.raw`(?=[A-Za-z0-9_-]*[A-Z])(?=[A-Za-z0-9_-]*[a-z])(?=[A-Za-z0-9_-]*\d)[A-Za-z0-9_-]{32,}`,
  ].join('|'),
  'g',
);

/** `name=value` and `"name": "value"` pairs in a body that is not JSON (a query string, XML-ish text). */
const SECRET_PAIRS = new RegExp(
  String.raw`\b([A-Za-z_-]*(?:key|secret|passw|pwd|pin|auth|signature|session|credential)[A-Za-z_-]*)` +
    String.raw`(\s*[=:]\s*"?)([^&"\s,;<]+)`,
  'gi',
);

/** Nested values are cleaned this deep; anything deeper is replaced whole. */
const MAX_DEPTH = 8;

function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name);
}

function cleanText(text: string): string {
  return text.replace(SECRET_SHAPES, REMOVED);
}

function cleanValue(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return cleanText(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return REMOVED;
  if (Array.isArray(value)) return value.map((item) => cleanValue(item, depth + 1));
  const clean: Record<string, unknown> = {};
  for (const [name, item] of Object.entries(value as Record<string, unknown>)) {
    clean[name] = isSecretName(name) && item !== null && item !== '' ? REMOVED : cleanValue(item, depth + 1);
  }
  return clean;
}

/** Cuts `text` to the bound (never inside a character) and says how much was cut. */
function bounded(text: string): string {
  const encoded = new TextEncoder().encode(text);
  if (encoded.byteLength <= RAW_ANSWER_MAX_BYTES) return text;
  const marker = `\n[truncated: ${encoded.byteLength} bytes in all]`;
  const room = RAW_ANSWER_MAX_BYTES - new TextEncoder().encode(marker).byteLength;
  let cut = new TextDecoder().decode(encoded.subarray(0, room));
  // A character split at the cut decodes as U+FFFD: drop it.
  if (cut.endsWith('\uFFFD')) cut = cut.slice(0, -1);
  return `${cut}${marker}`;
}

/**
 * The answer as stored: JSON re-written (indented) with credential fields removed, other text
 * with credential-shaped pieces and `name=value` credentials removed, at most
 * RAW_ANSWER_MAX_BYTES. `httpStatus` (when there was one) leads the text.
 */
export function cleanRawAnswer(body: string, httpStatus?: number): string {
  let text: string;
  try {
    const parsed = JSON.parse(body) as unknown;
    text = JSON.stringify(cleanValue(parsed, 0), null, 1);
  } catch {
    text = cleanText(body.replace(SECRET_PAIRS, (_all, name: string, sep: string) => `${name}${sep}${REMOVED}`));
  }
  return bounded(httpStatus === undefined ? text : `HTTP ${httpStatus}\n${text}`);
}
