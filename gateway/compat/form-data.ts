/**
 * A `multipart/form-data` body read as plain fields (RFC 7578): what PHP's cURL sends when a
 * client gives CURLOPT_POSTFIELDS an array, as VTpass connectors written in PHP often do. Only
 * text fields are read; a part with a filename is skipped. The body is already bounded by the
 * caller; at most MAX_PARTS parts are read. Undefined when the body is not well formed.
 */

/** More fields than any purchase has; past it the rest are not read. */
const MAX_PARTS = 50;
/** RFC 2046 bounds a boundary to 70 characters. */
const BOUNDARY = /;\s*boundary=(?:"([^"]{1,70})"|([^\s;"]{1,70}))/i;
const FIELD_NAME = /^content-disposition:\s*form-data;(?:.*;)?\s*name="([^"]{1,100})"/im;

/** The boundary of a `multipart/form-data` Content-Type, or undefined for any other type. */
export function formDataBoundary(contentType: string): string | undefined {
  if (!/^\s*multipart\/form-data\s*;/i.test(contentType)) return undefined;
  const match = BOUNDARY.exec(contentType);
  return match === null ? undefined : (match[1] ?? match[2]);
}

/** The text fields of a body under `boundary`, or undefined when it is not multipart data. */
export function readFormData(raw: Uint8Array, boundary: string): Record<string, string> | undefined {
  const text = Buffer.from(raw).toString('utf8');
  const delimiter = `--${boundary}`;
  const pieces = text.split(delimiter);
  // Before the first delimiter is a preamble; after the last, `--` and an epilogue.
  if (pieces.length < 2 || !pieces[pieces.length - 1]!.startsWith('--')) return undefined;
  const fields = Object.create(null) as Record<string, string>;
  for (const piece of pieces.slice(1, -1).slice(0, MAX_PARTS)) {
    const part = piece.replace(/^\r?\n/, '').replace(/\r?\n$/, '');
    const split = part.search(/\r?\n\r?\n/);
    if (split < 0) return undefined;
    const head = part.slice(0, split);
    const body = part.slice(split).replace(/^\r?\n\r?\n/, '');
    const name = FIELD_NAME.exec(head)?.[1];
    if (name === undefined) return undefined;
    if (/filename=/i.test(head)) continue;
    fields[name] = body;
  }
  return fields;
}
