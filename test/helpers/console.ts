/** The console for tests: the real server on port 0 over the real gRPC client of a test core. */
import type { AddressInfo } from 'node:net';
import { createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { createConsole } from '../../console/server.js';
import { ConsoleService } from '../../gen/prepaid/v1/console_pb.js';
import { KycConsoleService } from '../../gen/prepaid/v1/kyc_pb.js';
import type { HttpBounds } from '../../runtime/http-bounds.js';
import { bearer, type TestCore } from './core.js';

export interface TestConsole {
  url: string;
  server: import('node:http').Server;
  logged: string[];
  close(): Promise<void>;
}

export async function startTestConsole(
  core: TestCore,
  bounds?: Partial<HttpBounds>,
  options: { trustedProxies?: readonly string[]; tls?: { cert: Buffer; key: Buffer } } = {},
): Promise<TestConsole> {
  const logged: string[] = [];
  const transport = createGrpcTransport({ baseUrl: core.url, interceptors: [bearer(core.serviceToken)] });
  const app = createConsole({
    core: Object.assign(createClient(ConsoleService, transport), { kyc: createClient(KycConsoleService, transport) }),
    secret: 'test-console-secret-0123456789abcdef',
    secureCookies: false,
    log: {
      info: (event, fields) => logged.push(JSON.stringify({ event, ...fields })),
      error: (event, fields) => logged.push(JSON.stringify({ event, ...fields })),
    },
    ...(bounds === undefined ? {} : { bounds }),
    ...options,
  });
  await new Promise<void>((resolve) => app.server.listen(0, '127.0.0.1', resolve));
  return {
    url: `${options.tls === undefined ? 'http' : 'https'}://127.0.0.1:${(app.server.address() as AddressInfo).port}`,
    server: app.server,
    logged,
    async close() {
      app.forceClose();
      await app.close();
    },
  };
}
