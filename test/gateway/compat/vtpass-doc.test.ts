/**
 * docs/compat.md's VTpass examples produce what they show: every `curl -k
 * https://compat.example.com/api/...` of the VTpass section, in the page's order, is sent to a
 * real gateway (the root form's paths, at `/compat/vtpass/api/...`) for a new account with
 * ₦50,000, with a VTpass token's keys in the place of $API_KEY, $PUBLIC_KEY and $SECRET_KEY,
 * and its answer is compared with the JSON shown under it (test/helpers/doc-examples.ts: `...`
 * elides, references and times match by shape).
 */
import { readFileSync } from 'node:fs';
import * as assert from 'uvu/assert';
import { startCore, type TestCore } from '../../helpers/core.js';
import { compare, Substitutions } from '../../helpers/doc-examples.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { suite } from '../../helpers/suite.js';
import { startTlsProxy, type TlsProxy } from '../../helpers/tls-proxy.js';
import { call } from './clients.js';
import { keysOf } from './vtpass-clients.js';

const test = suite("docs/compat.md's VTpass examples");
let core: TestCore;
let gateway: TestGateway;
let tls: TlsProxy;

test.before(async () => {
  core = await startCore();
  gateway = await startTestGateway(core, { compatWaitMs: 2_000 });
  tls = await startTlsProxy(gateway.port);
});

test.after(async () => {
  await tls?.close();
  await gateway?.close();
  await core?.close();
});

interface Example {
  line: number;
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body: string | undefined;
  shown: unknown;
}

/** The VTpass section's curls, each with the JSON block under it. */
function examples(): Example[] {
  const lines = readFileSync(new URL('../../../docs/compat.md', import.meta.url), 'utf8').split('\n');
  const start = lines.indexOf('## VTpass');
  assert.ok(start >= 0, 'docs/compat.md has a VTpass section');
  const found: Example[] = [];
  for (let i = start + 1; i < lines.length && !lines[i]!.startsWith('## '); i++) {
    if (!/^curl -k '?https:\/\/compat\.example\.com\/api\//.test(lines[i]!)) continue;
    const line = i + 1;
    let command = lines[i]!;
    while (command.endsWith('\\')) command = `${command.slice(0, -1)} ${lines[++i]!.trim()}`;
    while (i < lines.length && lines[i] !== '```json') i++;
    // The elisions as doc-examples.ts's compare() reads them.
    const shown = JSON.parse(
      lines[i + 1]!.replace(/\{\s*\.\.\.\s*\}/g, '{"...":true}')
        .replace(/,\s*\.\.\.\s*\}/g, ',"...":true}')
        .replace(/,\s*\.\.\.\s*\]/g, ',"..."]'),
    );
    const url = /https:\/\/compat\.example\.com(\/api\/[^\s'"]*)/.exec(command)![1]!;
    const headers = Object.fromEntries(
      [...command.matchAll(/-H ["']([^:]+): ([^"']*)["']/g)].map((m) => [m[1]!.toLowerCase(), m[2]!]),
    );
    const body = /-d '([^']*)'/.exec(command)?.[1];
    found.push({ line, method: body === undefined ? 'GET' : 'POST', path: url, headers, body, shown });
  }
  return found;
}

test('every VTpass curl of docs/compat.md answers what the page shows', async () => {
  const { accountId, publicKey } = await core.createApiAccount({ balanceKobo: 5_000_000 });
  const keys = keysOf((await core.admin.createCompatToken({ publicKey, dialect: 'vtpass', inFlight: '' })).token);
  const values: Record<string, string> = {
    $API_KEY: keys.apiKey,
    $PUBLIC_KEY: keys.publicKey,
    $SECRET_KEY: keys.secretKey,
  };
  const learned = new Substitutions();
  const problems: string[] = [];
  const list = examples();
  assert.ok(list.length >= 6, 'a curl for every path');
  for (const example of list) {
    const headers = Object.fromEntries(
      Object.entries(example.headers)
        .filter(([name]) => name !== 'content-type')
        .map(([name, value]) => [name, values[value] ?? value]),
    );
    const answer = await call(tls.port, example.method, `/compat/vtpass${example.path}`, headers, example.body);
    const found = compare(example.shown, answer.json, learned);
    if (found.length > 0) problems.push(`line ${example.line}: ${found.join('; ')}\n  got ${answer.text}`);
  }
  assert.equal(problems, [], problems.join('\n'));
  void accountId;
});

test.run();
