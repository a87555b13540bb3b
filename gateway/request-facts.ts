/**
 * What one request's log line and series say, filled in as the pipeline learns it, and the
 * line and series themselves once the request is answered: one `http.request` line (action,
 * account, reference of a purchase, status, latency, client IP; never a key or a path, since
 * a callback's path holds a secret) and the request series of gateway/metrics.ts.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Mode } from '../core/domain/mode.js';
import { normalizeAddress } from '../runtime/client-ip.js';
import type { GatewayLogger } from './log.js';
import type { GatewayMetrics } from './metrics.js';

/** What the pipeline has learnt about one request. */
export interface RequestFacts {
  /** An API action, `unknown`, or the route outside the API (healthz, metrics, ...). */
  action: string;
  clientIp: string | undefined;
  account: string | undefined;
  /** The verified key pair's mode; undefined until (unless) a pair is verified. */
  mode: Mode | undefined;
  /** The public key the request presented (never the secret), bounded: it is the client's text. */
  publicKey: string | undefined;
  /** The transaction a purchase made (or an error names). */
  reference: string | undefined;
  /** The public error code of an error answer. */
  code: string | undefined;
  errorId: string | undefined;
}

/** A request's facts before the pipeline has learnt anything. */
export function newRequestFacts(): RequestFacts {
  return {
    action: 'unknown',
    clientIp: undefined,
    account: undefined,
    mode: undefined,
    publicKey: undefined,
    reference: undefined,
    code: undefined,
    errorId: undefined,
  };
}

/** What an error answer adds to the request's log line. */
export function noteError(
  facts: RequestFacts,
  error: { code: string; reference: string | undefined; errorId: string | undefined },
): void {
  facts.code = error.code;
  if (error.reference !== undefined) facts.reference = error.reference;
  if (error.errorId !== undefined) facts.errorId = error.errorId;
}

/** Records the request's series and writes its log line, once it is answered. */
export function recordAnswer(
  req: IncomingMessage,
  res: ServerResponse,
  facts: RequestFacts,
  started: number,
  sinks: { log: GatewayLogger; metrics: GatewayMetrics },
): void {
  const seconds = (performance.now() - started) / 1000;
  // 499 (nginx's "client closed request") when the client left before any answer.
  const status = res.headersSent ? res.statusCode : 499;
  sinks.metrics.answered(facts.action, status, seconds, facts.mode ?? 'none');
  const fields = {
    method: req.method,
    action: facts.action,
    status,
    latency_ms: Math.round(seconds * 10_000) / 10,
    client_ip: facts.clientIp ?? normalizedPeer(req),
    ...(facts.account === undefined ? {} : { account: facts.account }),
    ...(facts.mode === undefined ? {} : { mode: facts.mode }),
    ...(facts.publicKey === undefined ? {} : { public_key: facts.publicKey }),
    ...(facts.reference === undefined ? {} : { reference: facts.reference }),
    ...(facts.code === undefined ? {} : { code: facts.code }),
    ...(facts.errorId === undefined ? {} : { error_id: facts.errorId }),
  };
  // Probes come every few seconds; they are only worth a line while debugging.
  if (facts.action === 'healthz' || facts.action === 'metrics') sinks.log.debug?.('http.request', fields);
  else sinks.log.info('http.request', fields);
}

/** The socket's peer, as the IP locks write it, for requests that never reached the pipeline. */
function normalizedPeer(req: IncomingMessage): string | undefined {
  return req.socket.remoteAddress === undefined
    ? undefined
    : (normalizeAddress(req.socket.remoteAddress) ?? req.socket.remoteAddress);
}
