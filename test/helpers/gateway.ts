/**
 * Starts a real gateway for tests: createGateway() on 127.0.0.1 port 0, talking gRPC to a
 * real core from test/helpers/core.ts, and a small HTTP client that can pick the local
 * address it connects from (127.0.0.2, 127.0.0.3, ...) to play different client IPs.
 */
import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type GatewayConfig, loadGatewayConfig } from '../../gateway/config.js';
import { type CoreClients, createCoreClients } from '../../gateway/core-client.js';
import type { GatewayLogger } from '../../gateway/log.js';
import { createGateway, type Gateway } from '../../gateway/server.js';
import type { HttpBounds } from '../../runtime/http-bounds.js';
import type { TestCore } from './core.js';

/** A line the gateway logged. */
export interface LoggedLine {
  level: 'info' | 'error';
  message: string;
  fields: Record<string, unknown> | undefined;
}

/** An HTTP answer, with the body parsed when it is JSON. */
export interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** The parsed JSON body; undefined when the body is not JSON. */
  json: any;
}

/** A key pair as the API takes it. */
export interface ApiKeys {
  publicKey: string;
  secretKey: string;
}

/** What one test request sends. */
export interface RequestOptions {
  method?: string;
  /** Path without the query; the first base path by default. */
  path?: string;
  /** Query parameters; `action` included. */
  query?: Record<string, string>;
  /** Sends X-Public-Key and X-Secret-Key. */
  keys?: ApiKeys;
  /** An array sends the header once per value. */
  headers?: Record<string, string | string[]>;
  /**
   * An object is sent as JSON (with Content-Type: application/json unless headers set one); a string or Buffer as is.
   */
  body?: unknown;
  /** The local address to connect from, for example 127.0.0.2. */
  localAddress?: string;
  /** The address to connect to; 127.0.0.1 by default. */
  host?: string;
}

export interface TestGateway {
  core: TestCore;
  config: GatewayConfig;
  gateway: Gateway;
  clients: CoreClients;
  port: number;
  /** Everything the gateway logged. */
  logged: LoggedLine[];
  request(options: RequestOptions): Promise<Reply>;
  close(): Promise<void>;
}

/** Starts a gateway in front of `core`; `overrides` replace configuration values. */
export async function startTestGateway(
  core: TestCore,
  overrides: Partial<GatewayConfig> = {},
  options: { bounds?: Partial<HttpBounds> } = {},
): Promise<TestGateway> {
  const config: GatewayConfig = {
    ...loadGatewayConfig({ CORE_URL: core.url, SERVICE_TOKEN: core.serviceToken, PORT: '0', HOST: '127.0.0.1' }),
    ...overrides,
  };
  const logged: LoggedLine[] = [];
  const log: GatewayLogger = {
    info: (message, fields) => logged.push({ level: 'info', message, fields }),
    error: (message, fields) => logged.push({ level: 'error', message, fields }),
  };
  const clients = createCoreClients({ coreUrl: config.coreUrl, serviceToken: config.serviceToken ?? '' });
  const gateway = createGateway({ config, core: clients, log, ...(options.bounds ? { bounds: options.bounds } : {}) });
  await new Promise<void>((resolve) => gateway.server.listen(0, config.host, resolve));
  const port = (gateway.server.address() as AddressInfo).port;

  return {
    core,
    config,
    gateway,
    clients,
    port,
    logged,
    request: (options) => send(port, config.basePaths[0]!, options),
    async close() {
      await gateway.close();
      clients.close();
    },
  };
}

/** Sends one request on a fresh connection and reads the whole answer. */
export function send(port: number, basePath: string, options: RequestOptions): Promise<Reply> {
  const query = new URLSearchParams(options.query ?? {}).toString();
  const path = (options.path ?? basePath) + (query ? `?${query}` : '');
  const headers: Record<string, string | string[]> = {};
  if (options.keys) {
    headers['X-Public-Key'] = options.keys.publicKey;
    headers['X-Secret-Key'] = options.keys.secretKey;
  }
  let payload: Buffer | undefined;
  if (options.body !== undefined) {
    if (typeof options.body === 'string' || Buffer.isBuffer(options.body)) {
      payload = Buffer.from(options.body);
    } else {
      payload = Buffer.from(JSON.stringify(options.body));
      headers['Content-Type'] = 'application/json';
    }
  }
  // Framed explicitly: Node's client sends a GET or DELETE body unframed, which is not HTTP.
  if (payload) headers['Content-Length'] = String(payload.length);
  Object.assign(headers, options.headers ?? {});

  return new Promise<Reply>((resolve, reject) => {
    const req = http.request(
      {
        host: options.host ?? '127.0.0.1',
        port,
        path,
        method: options.method ?? (payload ? 'POST' : 'GET'),
        headers,
        agent: false,
        ...(options.localAddress ? { localAddress: options.localAddress } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}
