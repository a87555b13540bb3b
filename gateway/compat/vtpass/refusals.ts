/**
 * Our refusals in VTpass's codes (docs/compat.md, VTpass, Codes): `{"code":"018",
 * "response_description":"LOW WALLET BALANCE", ...}`. Each of our error keys maps to the one
 * VTpass code that means the same to a VTpass client; every code here is one VTpass documents.
 * A refusal before the purchase is HTTP 200, as VTpass answers its codes, except a wrong key
 * (401), too many requests (429) and our own outage (5xx, code 083: the outcome of a `pay` is
 * then unknown, and VTpass's clients requery).
 */
import type { ApiError, ErrorKey } from '../../errors.js';
import type { CompatAnswer } from '../dialect.js';

interface VtpassCode {
  code: string;
  description: string;
}

const INVALID_ARGUMENTS: VtpassCode = { code: '011', description: 'INVALID ARGUMENTS' };
/** The fields whose refusal is VTpass's 010: the plan or bouquet named does not exist. */
const VARIATION_FIELDS = new Set(['variation_code', 'plan_id', 'package_code']);

/** VTpass's code of each of our refusals that has one; any other 4xx is 011. */
const CODES: Partial<Record<ErrorKey, VtpassCode>> = {
  INSUFFICIENT_BALANCE: { code: '018', description: 'LOW WALLET BALANCE' },
  PLAN_DISABLED: { code: '010', description: 'VARIATION CODE DOES NOT EXIST' },
  IDEMPOTENCY_KEY_REUSED: { code: '014', description: 'REQUEST ID ALREADY EXIST' },
  DUPLICATE_PURCHASE: { code: '019', description: 'LIKELY DUPLICATE TRANSACTION' },
  REQUEST_IN_PROGRESS: { code: '099', description: 'TRANSACTION IS PROCESSING' },
  ACCOUNT_SUSPENDED: { code: '022', description: 'ACCOUNT SUSPENDED' },
  VERIFICATION_REQUIRED: { code: '024', description: 'ACCOUNT INACTIVE' },
  KEY_FROZEN: { code: '021', description: 'ACCOUNT LOCKED' },
  IP_NOT_ALLOWED: { code: '027', description: 'IP NOT WHITELISTED' },
  KEY_SCOPE_DENIED: { code: '028', description: 'PRODUCT IS NOT WHITELISTED ON YOUR ACCOUNT' },
  KEY_CAP_EXCEEDED: { code: '017', description: 'ABOVE MAXIMUM AMOUNT' },
  FAILED_PRECONDITION: { code: '034', description: 'SERVICE SUSPENDED' },
  PRICE_BELOW_COST: { code: '034', description: 'SERVICE SUSPENDED' },
  NOT_FOUND: { code: '015', description: 'INVALID REQUEST ID' },
};

/** A VTpass answer with a code and our reason beside it (`content.errors`, ours: VTpass documents no such field). */
export function coded(code: VtpassCode, reasons: readonly string[], status = 200): CompatAnswer {
  return {
    status,
    body: { code: code.code, response_description: code.description, content: { errors: [...reasons] } },
  };
}

/** VTpass's "invalid arguments" (011), or "variation code does not exist" (010) for a plan or bouquet. */
function invalidArguments(error: ApiError): CompatAnswer {
  const reasons = error.violations.length > 0 ? error.violations.map((v) => v.message) : [error.message];
  if (error.violations.some((v) => VARIATION_FIELDS.has(v.field))) {
    return coded({ code: '010', description: 'VARIATION CODE DOES NOT EXIST' }, reasons);
  }
  return coded(INVALID_ARGUMENTS, reasons);
}

/** Any refusal, in VTpass's shape. */
export function vtpassRefusal(error: ApiError): CompatAnswer {
  if (error.status === 401) return badCredentials();
  if (error.status === 429) return { status: 429, body: { response_description: error.message } };
  if (error.status >= 500) {
    return coded({ code: '083', description: 'SYSTEM ERROR' }, [error.message], error.status);
  }
  const known = CODES[error.key];
  if (known !== undefined) return coded(known, [error.message]);
  return invalidArguments(error);
}

/**
 * Wrong or missing keys. VTpass's code for them is not confirmed (087 "invalid credentials",
 * unsure); HTTP 401 tells any client that nothing was bought and its keys are wrong.
 */
export function badCredentials(): CompatAnswer {
  return { status: 401, body: { code: '087', response_description: 'INVALID CREDENTIALS' } };
}
