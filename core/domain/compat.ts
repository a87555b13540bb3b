/**
 * Compatible endpoints (docs/compat.md): the dialects other sites' API shapes are answered in,
 * what a compatible token says about a purchase still in flight, and the shape of a plan alias.
 * Pure rules, shared by the core (tokens, aliases) and its clients (the gateway, the CLI).
 */
import { invalid } from './errors.js';

/** Every dialect the platform knows of, available or not. */
export const DIALECTS = ['msorg', 'adex', 'vtpass'] as const;
export type Dialect = (typeof DIALECTS)[number];

/** The dialects whose endpoints exist in this build; a token of another is refused. */
export const AVAILABLE_DIALECTS: readonly Dialect[] = ['msorg', 'adex', 'vtpass'];

/**
 * What a purchase still in flight when the wait runs out is answered. Clients of one family
 * disagree: one refunds on `processing`, another on `pending` (docs/compat.md names them), so the
 * word is chosen per token.
 */
export const IN_FLIGHT_WORDS = ['pending', 'processing'] as const;
export type InFlightWord = (typeof IN_FLIGHT_WORDS)[number];

/** The in-flight word of a token made without one. */
const DEFAULT_IN_FLIGHT: InFlightWord = 'pending';

/** A compatible token's random part: 20 bytes, 40 hex characters, the family's key shape. */
export const COMPAT_TOKEN_BYTES = 20;
/** The longest token read before any lookup, so a huge header costs nothing. */
export const MAX_COMPAT_TOKEN_LENGTH = 128;

/**
 * An alias id: what a client's software already sends as a plan id, one to 20 letters, digits,
 * dashes or underscores.
 */
const ALIAS_ID = /^[A-Za-z0-9_-]{1,20}$/;

/** The most aliases one account keeps in one dialect: a whole site's plan list, with room. */
export const MAX_ALIASES_PER_DIALECT = 1000;

/** The dialect named, refused when it is not a dialect or not available in this build. */
export function checkDialect(field: string, word: string): Dialect {
  const known = (DIALECTS as readonly string[]).includes(word);
  if (!known) throw invalid(field, `${field} must be one of ${DIALECTS.join(', ')}.`);
  const dialect = word as Dialect;
  if (!AVAILABLE_DIALECTS.includes(dialect)) {
    throw invalid(field, `The ${dialect} dialect is not available yet; available: ${AVAILABLE_DIALECTS.join(', ')}.`);
  }
  return dialect;
}

/** The in-flight word asked for; empty is the default. */
export function checkInFlight(field: string, word: string): InFlightWord {
  if (word === '') return DEFAULT_IN_FLIGHT;
  if (!(IN_FLIGHT_WORDS as readonly string[]).includes(word)) {
    throw invalid(field, `${field} must be ${IN_FLIGHT_WORDS.join(' or ')}.`);
  }
  return word as InFlightWord;
}

/** An alias id as given, trimmed, or a field error. */
export function checkAliasId(field: string, aliasId: string): string {
  const trimmed = aliasId.trim();
  if (!ALIAS_ID.test(trimmed)) {
    throw invalid(field, `${field} must be 1 to 20 letters, digits, dashes or underscores.`);
  }
  return trimmed;
}
