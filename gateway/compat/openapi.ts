/**
 * `GET /compat/openapi.json`: an OpenAPI 3.1 document of the compatible endpoints
 * (docs/compat.md), assembled from each dialect's `openApiPaths` (path items keyed by full path,
 * `/compat/<dialect>/api/...`) and, when it has them, its `openApiSecuritySchemes`. A new
 * dialect is its `import * as` line below and its name in DIALECT_DOCUMENTS.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { getOnly } from '../routes.js';
import * as adex from './adex/openapi.js';
import * as msorg from './msorg/openapi.js';
import * as vtpass from './vtpass/openapi.js';

/** What a dialect's openapi.ts exports. */
interface DialectDocument {
  openApiPaths: Readonly<Record<string, unknown>>;
  openApiSecuritySchemes?: Readonly<Record<string, unknown>>;
}

const DIALECT_DOCUMENTS: readonly DialectDocument[] = [msorg, adex, vtpass];

/** The document, built once: it changes only with the code. */
function compatOpenApiDocument(): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  const securitySchemes: Record<string, unknown> = {};
  for (const dialect of DIALECT_DOCUMENTS) {
    Object.assign(paths, dialect.openApiPaths);
    Object.assign(securitySchemes, dialect.openApiSecuritySchemes ?? {});
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Prepaid services: compatible endpoints',
      version: '1',
      description:
        "Other sites' API shapes (dialects), answered on the same purchase path as the main API: the same prices, " +
        'limits, idempotency and money rules. Every path also answers without (or with) its trailing slash, never ' +
        'redirected, and at the root (`/api/...`) of COMPAT_PORT in COMPAT_ROOT_DIALECT. See docs/compat.md.',
    },
    paths,
    components: { securitySchemes },
  };
}

const DOCUMENT_JSON = JSON.stringify(compatOpenApiDocument());

/** Serves the document; public, like the main API's. */
export function handleCompatOpenApi(req: IncomingMessage, res: ServerResponse): void {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    getOnly(res, 'The OpenAPI document takes GET only.');
    return;
  }
  res.writeHead(200, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(DOCUMENT_JSON),
    'Cache-Control': 'public, max-age=300',
    'Access-Control-Allow-Origin': '*',
  });
  res.end(req.method === 'HEAD' ? undefined : DOCUMENT_JSON);
}
