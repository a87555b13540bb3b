/**
 * The webhook signature samples partners copy (dashboard/static/samples/, shown on the
 * developer area's Webhooks page and in docs/webhooks.md) are run here, each by its own
 * interpreter (php, node, python3), against deliveries a real core signed and POSTed to a real
 * receiver: the delivery verifies, and a changed body, another secret, a moved timestamp or an
 * old one do not. A rotation's two-signature header verifies with either secret.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as assert from 'uvu/assert';
import { WebhookService } from '../../gen/prepaid/v1/webhooks_pb.js';
import { startCore, type TestCore } from '../helpers/core.js';
import { type Received, type Receiver, startReceiver } from '../helpers/receiver.js';
import { suite } from '../helpers/suite.js';

const test = suite('webhooks: the signature samples in PHP, Node.js and Python');

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SAMPLES = path.join(ROOT, 'dashboard', 'static', 'samples');

/** One sample: its file and how to call its function with the delivery read from stdin and the environment. */
interface Sample {
  language: string;
  file: string;
  command: string;
  args(file: string): string[];
}

const SAMPLE_LIST: readonly Sample[] = [
  {
    language: 'PHP',
    file: 'verify-signature.php',
    command: 'php',
    args: (file) => [
      '-r',
      `require $argv[1]; echo prepaid_signature_is_valid(stream_get_contents(STDIN), ` +
        `getenv('HEADER'), getenv('SECRET')) ? 'valid' : 'invalid';`,
      file,
    ],
  },
  {
    language: 'Node.js',
    file: 'verify-signature.mjs',
    command: process.execPath,
    args: (file) => [
      '--input-type=module',
      '-e',
      `const { prepaidSignatureIsValid } = await import(${JSON.stringify(pathToFileURL(file).href)});
const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
process.stdout.write(
  prepaidSignatureIsValid(Buffer.concat(chunks), process.env.HEADER, process.env.SECRET) ? 'valid' : 'invalid',
);`,
    ],
  },
  {
    language: 'Python',
    file: 'verify_signature.py',
    command: 'python3',
    args: (file) => [
      '-c',
      `import importlib.util, os, sys
spec = importlib.util.spec_from_file_location("sample", sys.argv[1])
sample = importlib.util.module_from_spec(spec)
spec.loader.exec_module(sample)
ok = sample.prepaid_signature_is_valid(sys.stdin.buffer.read(), os.environ["HEADER"], os.environ["SECRET"])
print("valid" if ok else "invalid", end="")`,
      file,
    ],
  },
];

/** Whether an interpreter is on the PATH; without it its sample says SKIPPED (CI installs php-cli). */
function present(command: string): boolean {
  const found = spawnSync(command, ['--version'], { stdio: 'ignore' }).status === 0;
  if (!found)
    console.log(`SKIPPED: the ${command} sample: no ${command} here. Install it with: apt-get install -y php-cli`);
  return found;
}

/** What the sample says of `payload` signed as `header` under `secret`: 'valid' or 'invalid'. */
function verdict(sample: Sample, payload: string, header: string, secret: string): string {
  return execFileSync(sample.command, sample.args(path.join(SAMPLES, sample.file)), {
    input: Buffer.from(payload, 'utf8'),
    env: { ...process.env, HEADER: header, SECRET: secret },
    encoding: 'utf8',
  });
}

let core: TestCore;
let receiver: Receiver;
let delivery: Received;
let secret: string;
let rotated: { delivery: Received; oldSecret: string; newSecret: string };

test.before(async () => {
  core = await startCore({ webhooks: { allowPrivate: true, retryBaseMs: 20, pollIntervalMs: 25 } });
  receiver = await startReceiver();
  const webhooks = core.clientWithToken(WebhookService, core.adminToken);
  const { accountId } = await core.createApiAccount();
  secret = (await webhooks.setWebhook({ accountId, url: receiver.url })).secret;
  // A credit: its wallet.credited event carries amounts and a memo with a character beyond ASCII.
  await core.admin.creditWallet({ accountId, amountKobo: 250_000n, memo: 'Funding for Ọ̀yọ́ branch' });
  await receiver.waitFor(1, 'deliveries');
  delivery = receiver.received[0]!;
  const newSecret = (await webhooks.rotateWebhookSecret({ accountId })).secret;
  await webhooks.sendTestEvent({ accountId });
  await receiver.waitFor(2, 'deliveries');
  rotated = { delivery: receiver.received[1]!, oldSecret: secret, newSecret };
});

test.after(async () => {
  await receiver?.stop();
  await core?.close();
});

const header = (request: Received) => String(request.headers['prepaid-signature']);

test('the captured deliveries are what the samples are run against: signed, one v1, then two during a rotation', () => {
  assert.is(delivery.json.type, 'wallet.credited');
  assert.match(delivery.raw, /Ọ̀yọ́/, 'the raw body holds a character beyond ASCII, as sent');
  assert.match(header(delivery), /^t=\d+,v1=[0-9a-f]{64}$/);
  assert.is(rotated.delivery.json.type, 'ping');
  assert.match(header(rotated.delivery), /^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
});

for (const sample of SAMPLE_LIST) {
  test(`${sample.language}: a real delivery verifies; a changed body, secret or timestamp, or an old one fails`, () => {
    if (!present(sample.command)) return;
    const raw = delivery.raw;
    const signature = header(delivery);
    assert.is(verdict(sample, raw, signature, secret), 'valid', 'the delivery as received');
    const tampered = raw.replace('"amount":2500', '"amount":25000');
    assert.is.not(tampered, raw, 'the test changed the amount');
    assert.is(verdict(sample, tampered, signature, secret), 'invalid', 'a changed amount');
    assert.is(verdict(sample, `${raw} `, signature, secret), 'invalid', 'one more space');
    assert.is(verdict(sample, raw, signature, 'whsec_another_secret'), 'invalid', 'another secret');
    const t = Number(/t=(\d+)/.exec(signature)![1]);
    assert.is(verdict(sample, raw, signature.replace(`t=${t}`, `t=${t + 1}`), secret), 'invalid', 'a moved t');
    assert.is(verdict(sample, raw, '', secret), 'invalid', 'no header');
    // Signed correctly, but ten minutes ago: a replayed delivery is refused by the five-minute window.
    const old = t - 600;
    const oldHex = createHmac('sha256', secret).update(`${old}.${raw}`).digest('hex');
    assert.is(verdict(sample, raw, `t=${old},v1=${oldHex}`, secret), 'invalid', 'a signature ten minutes old');
  });

  test(`${sample.language}: during a rotation a delivery verifies with the old secret and with the new one`, () => {
    if (!present(sample.command)) return;
    const { delivery: ping, oldSecret, newSecret } = rotated;
    assert.is(verdict(sample, ping.raw, header(ping), oldSecret), 'valid', 'the old secret');
    assert.is(verdict(sample, ping.raw, header(ping), newSecret), 'valid', 'the new secret');
    assert.is(verdict(sample, ping.raw, header(ping), 'whsec_neither'), 'invalid', 'neither');
  });
}

test('docs/webhooks.md shows each sample exactly as the file the developer area serves', () => {
  const doc = readFileSync(path.join(ROOT, 'docs', 'webhooks.md'), 'utf8');
  for (const sample of SAMPLE_LIST) {
    const text = readFileSync(path.join(SAMPLES, sample.file), 'utf8');
    assert.ok(doc.includes(`\n${text}\`\`\``), `docs/webhooks.md holds ${sample.file} whole in a code block`);
  }
});

test.run();
