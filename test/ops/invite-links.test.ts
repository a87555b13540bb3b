/**
 * Invitation links under `npm start`: with DASHBOARD_PORT set, the links
 * `prepaid users invite` prints lead to the developer area's real port, the one it listens on,
 * not the core's default http://localhost:8081.
 */
import { execFile } from 'node:child_process';
import net from 'node:net';
import { promisify } from 'node:util';
import * as assert from 'uvu/assert';
import { suite } from '../helpers/suite.js';
import { type Service, startService } from './service.js';

const test = suite('ops: invitation links follow DASHBOARD_PORT');

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

test(
  'npm start with DASHBOARD_PORT: prepaid users invite prints a link on that port, where the developer area ' +
    'listens',
  async () => {
    let service: Service | undefined;
    try {
      const port = await freePort();
      service = await startService({ DASHBOARD_PORT: String(port) });
      const listening = service.lines().find((l) => l.event === 'dashboard.listening')!;
      assert.is(new URL(String(listening['url'])).port, String(port));
      const { accountId } = await service.apiAccount(0);
      const { stdout } = await promisify(execFile)(
        process.execPath,
        ['bin/prepaid.js', '--json', 'users', 'invite', accountId, '--email', 'ada@example.com'],
        {
          env: { ...process.env, CORE_URL: service.coreUrl, ADMIN_TOKEN: service.adminToken },
          timeout: 30_000,
        },
      );
      const link = new URL(String(JSON.parse(stdout).invite_url));
      assert.is(link.origin, `http://localhost:${port}`, stdout);
      // The link opens the developer area's own page on that port.
      const page = await fetch(`http://127.0.0.1:${port}${link.pathname}${link.search}`, { redirect: 'manual' });
      assert.ok(page.status < 400, `the link's page answers (${page.status})`);
    } finally {
      await service?.cleanup();
    }
  },
);

test.run();
