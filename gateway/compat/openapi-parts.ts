/**
 * The pieces every dialect's OpenAPI paths are written with (gateway/compat/openapi.ts): a JSON
 * body or answer, a query parameter, the security schemes. Plain objects, so a dialect's file
 * reads as the document it becomes.
 */

/** A JSON answer of one status. */
export function jsonAnswer(description: string, schema: Record<string, unknown>, example?: unknown) {
  return {
    description,
    content: { 'application/json': { schema, ...(example === undefined ? {} : { example }) } },
  };
}

/** A JSON (or form) request body. */
export function jsonBody(schema: Record<string, unknown>, example?: unknown) {
  const media = { schema, ...(example === undefined ? {} : { example }) };
  return {
    required: true,
    content: { 'application/json': media, 'application/x-www-form-urlencoded': { schema } },
  };
}

/** A query parameter. */
export function queryParameter(name: string, description: string, required = false) {
  return { name, in: 'query', required, description, schema: { type: 'string' } };
}

/** An object whose listed properties are all strings or numbers as written, none required unless named. */
export function object(properties: Record<string, unknown>, required: readonly string[] = []) {
  return { type: 'object', properties, ...(required.length === 0 ? {} : { required: [...required] }) };
}

/** A value sent as a JSON number or a numeric string, as the dialects' clients send them. */
export const NUMBER_OR_TEXT = { type: ['number', 'string'] } as const;
export const TEXT = { type: 'string' } as const;
