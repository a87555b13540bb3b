/**
 * Reading a POST body: JSON content type, a hard size bound, strict UTF-8, and a parse that
 * cannot be used to reach an object's prototype.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { gatewayError } from './errors.js';

/** The client went away before its body arrived; there is nobody left to answer. */
export class ClientGoneError extends Error {
  constructor() {
    super('the client closed the connection before sending its whole body');
    this.name = 'ClientGoneError';
  }
}

/** A parsed JSON object body; no prototype, so no inherited keys can be mistaken for fields. */
export type JsonObject = Record<string, unknown>;

/** True for `application/json`, with or without parameters; a charset must be UTF-8. */
export function isJsonContentType(header: string | undefined): boolean {
  if (header === undefined) return false;
  if (header === 'application/json') return true;
  const [mediaType = '', ...parameters] = header.split(';').map((part) => part.trim().toLowerCase());
  if (mediaType !== 'application/json') return false;
  for (const parameter of parameters) {
    const [name, value] = parameter.split('=').map((s) => s.trim().replace(/^"|"$/g, ''));
    if (name === 'charset' && value !== 'utf-8' && value !== 'utf8') return false;
  }
  return true;
}

/**
 * Reads the body as one JSON object of at most `maxBytes` bytes. Past the bound it stops
 * keeping what arrives and throws PAYLOAD_TOO_LARGE at once (asking to close the
 * connection), rather than buffering whatever a client chooses to send.
 */
export async function readJsonObject(
  req: IncomingMessage,
  maxBytes: number,
  res?: ServerResponse,
): Promise<JsonObject> {
  const raw = await readBounded(req, maxBytes, res);
  if (raw === 'gone') throw new ClientGoneError();
  if (raw === 'too_large') {
    throw gatewayError('PAYLOAD_TOO_LARGE', {
      message: `The request body is larger than ${maxBytes} bytes.`,
      headers: { Connection: 'close' },
    });
  }

  let text: string;
  try {
    text = UTF8.decode(raw);
  } catch {
    throw gatewayError('INVALID_JSON', { message: 'The request body is not valid UTF-8 text.' });
  }
  if (text.trim() === '')
    throw gatewayError('INVALID_JSON', { message: 'The request body is empty; send a JSON object.' });

  const inexact = firstInexactNumber(text);
  if (inexact !== undefined) {
    throw gatewayError('INVALID_JSON', {
      message:
        `The number ${inexact.slice(0, 40)} has more digits than can be read exactly; ` +
        `send amounts with at most two decimals.`,
    });
  }

  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw gatewayError('INVALID_JSON', { message: 'The request body is not valid JSON.' });
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw gatewayError('INVALID_JSON', { message: 'The request body must be a JSON object.' });
  }
  const clean = withoutPrototypes(parsed, 0);
  if (clean === TOO_DEEP) {
    throw gatewayError('INVALID_JSON', {
      message: `The request body nests more than ${MAX_DEPTH} levels deep; no action takes more than a few.`,
    });
  }
  return clean as JsonObject;
}

/**
 * One strict decoder for every body: `decode` without `stream` starts afresh each call, and
 * building a decoder per request was a measurable part of reading a small body.
 */
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** Keys that reach or replace an object's prototype when code later copies or merges them. */
const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * Drops prototype-reaching keys and rebuilds every object without a prototype, so that a
 * body like {"__proto__":{"isAdmin":true}} is just an object missing that key. JSON.parse
 * itself only ever makes such keys own data properties; this walk, after the parse, is
 * several times cheaper than a reviver that V8 calls for every value.
 */
function withoutPrototypes(value: unknown, depth: number): unknown {
  if (value === null || typeof value !== 'object') return value;
  // A bound on the walk's recursion, far beyond any real body, short of the stack's limit.
  if (depth >= MAX_DEPTH) return TOO_DEEP;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item = withoutPrototypes(value[i], depth + 1);
      if (item === TOO_DEEP) return TOO_DEEP;
      value[i] = item;
    }
    return value;
  }
  const clean: JsonObject = Object.create(null) as JsonObject;
  for (const key of Object.keys(value)) {
    if (FORBIDDEN_KEYS.has(key)) continue;
    const item = withoutPrototypes((value as JsonObject)[key], depth + 1);
    if (item === TOO_DEEP) return TOO_DEEP;
    clean[key] = item;
  }
  return clean;
}

/** How deep a body's objects and arrays may nest. */
export const MAX_DEPTH = 64;
const TOO_DEEP = Symbol('too deep');

/**
 * A double holds 15 significant decimal digits exactly. A number literal with more may be
 * read as a different number than the one sent (100.10000000000000001 becomes 100.1, and
 * would slip past the two-decimals rule), so such a body is refused instead of rounded,
 * unless the double reads back as exactly the literal: 99.30000000000001 (floating-point
 * noise from a client's arithmetic) is then the field's own error, naming the field.
 */
const MAX_EXACT_DIGITS = 15;

/**
 * The first number literal of a JSON text (outside strings) with more significant digits
 * than MAX_EXACT_DIGITS, or undefined. A scan rather than a reviver because Node 20's
 * JSON.parse does not show revivers the source text of a number.
 */
function firstInexactNumber(text: string): string | undefined {
  const number = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      // Skip the string, escapes included.
      for (i++; i < text.length && text.charCodeAt(i) !== 0x22; i++) if (text.charCodeAt(i) === 0x5c /* \\ */) i++;
      continue;
    }
    if (c === 0x2d /* - */ || (c >= 0x30 && c <= 0x39)) {
      number.lastIndex = i;
      const match = number.exec(text);
      if (!match) continue;
      i += match[0].length - 1;
      // The mantissa has fewer digits than the literal has characters.
      if (match[0].length <= MAX_EXACT_DIGITS) continue;
      const mantissa = match[0]
        .replace(/^-/, '')
        .replace(/[eE].*$/, '')
        .replace('.', '')
        .replace(/^0+/, '')
        .replace(/0+$/, '');
      if (mantissa.length > MAX_EXACT_DIGITS && !readsBackExactly(match[0])) return match[0];
    }
  }
  return undefined;
}

/** Whether a plain decimal literal is exactly what its double prints (trailing zeros aside). */
function readsBackExactly(literal: string): boolean {
  if (/[eE]/.test(literal)) return false;
  const canonical = (text: string) => (text.includes('.') ? text.replace(/0+$/, '').replace(/\.$/, '') : text);
  return String(Number(literal)) === canonical(literal);
}

/**
 * The whole body, or 'too_large' past the bound (the rest is drained), or 'gone' if the client
 * left. A client that asked to be told before it sends the body (`Expect: 100-continue`) is
 * told here, through `res`, once everything before the body was accepted (keys, limit, method,
 * content type: the caller reads the body last) and the declared length is within the bound.
 */
export function readBounded(
  req: IncomingMessage,
  maxBytes: number,
  res?: ServerResponse,
): Promise<Uint8Array | 'too_large' | 'gone'> {
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (Number.isFinite(declared) && declared > maxBytes) {
    req.resume();
    return Promise.resolve('too_large');
  }
  if (res !== undefined && req.headers.expect?.toLowerCase() === '100-continue') res.writeContinue();
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const finish = (result: Uint8Array | 'too_large' | 'gone') => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onGone);
      req.off('close', onGone);
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > maxBytes) {
        req.resume();
        finish('too_large');
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => finish(Buffer.concat(chunks, received));
    const onGone = () => finish('gone');
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onGone);
    req.on('close', onGone);
  });
}
