/**
 * Invitation links under `npm start`: with DASHBOARD_PORT and CONSOLE_PORT set, the links
 * `prepaid users invite` and `prepaid staff invite` print lead to the developer area's and the
 * console's real ports, the ones they listen on, not the core's defaults (8081, 8082).
 */
import { execFile } from 'node:child_process';
import net from 'node:net';
import { promisify } from 'node:util';
import * as assert from 'uvu/assert';
import { suite } from '../helpers/suite.js';
import { type Service, startService } from './service.js';

const test = suite('ops: invitation links follow DASHBOARD_PORT and CONSOLE_PORT');

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function prepaid(service: Service, ...args: string[]): Promise<Record<string, unknown>> {
  const { stdout } = await promisify(execFile)(process.execPath, ['bin/prepaid.js', '--json', ...args], {
    env: { ...process.env, CORE_URL: service.coreUrl, ADMIN_TOKEN: service.adminToken },
    timeout: 30_000,
  });
  return JSON.parse(stdout);
}

test(
  'npm start with DASHBOARD_PORT and CONSOLE_PORT: users invite and staff invite print links on those ports, ' +
    'where the developer area and the console listen',
  async () => {
    let service: Service | undefined;
    try {
      const port = await freePort();
      const consolePort = await freePort();
      service = await startService({ DASHBOARD_PORT: String(port), CONSOLE_PORT: String(consolePort) });
      const listening = service.lines().find((l) => l.event === 'dashboard.listening')!;
      assert.is(new URL(String(listening['url'])).port, String(port));
      const { accountId } = await service.apiAccount(0);
      const invited = await prepaid(service, 'users', 'invite', accountId, '--email', 'ada@example.com');
      const link = new URL(String(invited['invite_url']));
      assert.is(link.origin, `http://localhost:${port}`, JSON.stringify(invited));
      // The link opens the developer area's own page on that port.
      const page = await fetch(`http://127.0.0.1:${port}${link.pathname}${link.search}`, { redirect: 'manual' });
      assert.ok(page.status < 400, `the link's page answers (${page.status})`);
      const staff = await prepaid(service, 'staff', 'invite', '--email', 'bola@example.com', '--role', 'support');
      const setup = new URL(String(staff['setup_url']));
      assert.is(setup.origin, `http://localhost:${consolePort}`, JSON.stringify(staff));
      const setupPage = await fetch(`http://127.0.0.1:${consolePort}${setup.pathname}${setup.search}`, {
        redirect: 'manual',
      });
      assert.ok(setupPage.status < 400, `the set-up link's page answers (${setupPage.status})`);
    } finally {
      await service?.cleanup();
    }
  },
);

test.run();
