/**
 * The listen backlog under `npm start`: the gateway, the developer area and the
 * console each ask the kernel to hold LISTEN_BACKLOG connections not yet accepted, not Node's
 * 511, so a burst of thousands of connections (clients reconnecting after a restart, a
 * reseller's pool opening) is not answered by dropped SYNs and one-second retransmissions. Read
 * from the kernel itself: `ss` shows a listening socket's backlog in its Send-Q column.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as assert from 'uvu/assert';
import { LISTEN_BACKLOG } from '../../runtime/http-bounds.js';
import { suite } from '../helpers/suite.js';
import { type Service, startService } from './service.js';

const test = suite('ops: listen backlog');

/** The backlog of the socket listening on `port`, as the kernel holds it. */
function backlogOf(port: number): number {
  const line = execFileSync('ss', ['-Hltn', `sport = :${port}`], { encoding: 'utf8' }).trim();
  const [state, , sendQ] = line.split(/\s+/);
  assert.is(state, 'LISTEN', line);
  return Number(sendQ);
}

test('the gateway, the developer area and the console listen with a backlog of LISTEN_BACKLOG', async () => {
  // The kernel caps a backlog at net.core.somaxconn.
  const somaxconn = Number(readFileSync('/proc/sys/net/core/somaxconn', 'utf8'));
  const expected = Math.min(LISTEN_BACKLOG, somaxconn);
  assert.ok(expected > 511, `somaxconn ${somaxconn} leaves no room above Node's default`);
  let service: Service | undefined;
  try {
    service = await startService();
    const lines = service.lines();
    for (const event of ['gateway.listening', 'dashboard.listening', 'console.listening']) {
      const listening = lines.find((l) => l.event === event);
      assert.ok(listening, `${event} in the log`);
      const port = Number(new URL(String(listening['url'])).port);
      assert.is(backlogOf(port), expected, event);
    }
  } finally {
    await service?.cleanup();
  }
});

test.run();
