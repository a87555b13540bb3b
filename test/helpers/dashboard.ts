/**
 * Starts a real dashboard for tests: createDashboard() on 127.0.0.1 port 0, talking gRPC to a
 * real core from test/helpers/core.ts with the service token, as dashboard/main.ts does.
 */
import type { AddressInfo } from 'node:net';
import { type DashboardConfig, loadDashboardConfig } from '../../dashboard/config.js';
import { createDashboardCore, type DashboardCore } from '../../dashboard/core-client.js';
import type { DashboardLogger } from '../../dashboard/log.js';
import { createDashboard, type Dashboard } from '../../dashboard/server.js';
import type { HttpBounds } from '../../runtime/http-bounds.js';
import type { TestCore } from './core.js';

interface LoggedDashboardLine {
  level: 'info' | 'error';
  event: string;
  fields: Record<string, unknown> | undefined;
}

export interface TestDashboard {
  config: DashboardConfig;
  dashboard: Dashboard;
  client: DashboardCore;
  /** http://127.0.0.1:<port> */
  url: string;
  logged: LoggedDashboardLine[];
  close(): Promise<void>;
}

/** A fixed CSRF key for tests (32+ characters). */
const TEST_DASHBOARD_SECRET = 'test-dashboard-secret-0123456789abcdef';

export async function startTestDashboard(
  core: TestCore,
  env: Record<string, string> = {},
  options: { bounds?: Partial<HttpBounds> } = {},
): Promise<TestDashboard> {
  const config = loadDashboardConfig({
    CORE_URL: core.url,
    SERVICE_TOKEN: core.serviceToken,
    DASHBOARD_PORT: '0',
    DASHBOARD_HOST: '127.0.0.1',
    DASHBOARD_SECRET: TEST_DASHBOARD_SECRET,
    ...env,
  });
  const logged: LoggedDashboardLine[] = [];
  const log: DashboardLogger = {
    info: (event, fields) => logged.push({ level: 'info', event, fields }),
    error: (event, fields) => logged.push({ level: 'error', event, fields }),
  };
  const client = createDashboardCore({ coreUrl: config.coreUrl, serviceToken: core.serviceToken });
  const dashboard = createDashboard({
    config,
    core: client,
    secret: TEST_DASHBOARD_SECRET,
    log,
    ...(options.bounds ? { bounds: options.bounds } : {}),
  });
  await new Promise<void>((resolve) => dashboard.server.listen(0, '127.0.0.1', resolve));
  const port = (dashboard.server.address() as AddressInfo).port;
  return {
    config,
    dashboard,
    client,
    url: `http://127.0.0.1:${port}`,
    logged,
    async close() {
      dashboard.forceClose();
      await dashboard.close();
      client.close();
    },
  };
}
