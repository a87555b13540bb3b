/**
 * Start-up tells a person where things are: once everything listens, one
 * short line per part on stderr (the API, the developer area, the core), with the addresses
 * the JSON log lines give, printed once; stdout stays nothing but JSON lines for machines.
 */
import * as assert from 'uvu/assert';
import { suite } from '../helpers/suite.js';
import { type Service, startService, waitFor } from './service.js';

const test = suite('ops: the human start-up lines');

test('npm start prints one line per part on stderr, once, with the real addresses; stdout stays JSON', async () => {
  let service: Service | undefined;
  try {
    service = await startService();
    const lines = service.lines();
    const gateway = lines.find((l) => l.event === 'gateway.listening')!;
    const dashboard = lines.find((l) => l.event === 'dashboard.listening')!;
    const core = lines.find((l) => l.event === 'core.listening')!;
    // The lines are written right after the last listening line; wait for them if the pipe is behind.
    await waitFor(() => service!.stderr().includes('Stop with'), 'the start-up lines');
    const stderr = service.stderr();
    assert.match(stderr, new RegExp(`^ {2}API +${literal(String(gateway['url']))}$`, 'm'));
    assert.match(stderr, new RegExp(`^ {2}developer area +${literal(String(dashboard['url']))}$`, 'm'));
    assert.match(stderr, new RegExp(`^ {2}core \\(gRPC\\) +${literal(String(core['address']))}$`, 'm'));
    assert.is(stderr.split('Prepaid services are running:').length, 2, `printed once: ${stderr}`);
    assert.is((await service.stop()).code, 0);
    for (const line of service.lines()) assert.not.ok('raw' in line, `stdout is only JSON: ${String(line['raw'])}`);
  } finally {
    await service?.cleanup();
  }
});

function literal(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

test.run();
