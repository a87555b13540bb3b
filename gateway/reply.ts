/** Writing JSON answers, for the API, health, and upstream callbacks alike. */
import type { ServerResponse } from 'node:http';

/** A JSON answer already written as UTF-8 bytes, sent as it is. */
export class EncodedJson {
  constructor(readonly bytes: Buffer) {}
}

/** Sends a JSON answer, unless the connection is already gone or answered. */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent || res.destroyed) return;
  const payload = body instanceof EncodedJson ? body.bytes : JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(payload),
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
  });
  res.end(payload);
}
