/**
 * The documents' examples produce what they show: every `curl` of docs/api.md and docs/products.md, in
 * the order of the page, is sent to a real gateway in front of a real core (the sandbox
 * provider, the default catalogue) for a new account on the `api` tier funded as the page
 * says; the README's first purchase is run as a reader runs it, its `npx prepaid` commands
 * through the real CLI (their printed lines compared with the README's) and its curls with
 * the key pair the CLI printed. Each real answer is compared with the one shown
 * under its request: amounts, charges and balances in order, names, states and messages
 * exactly, references, times, tokens and cursors by shape (test/helpers/doc-examples.ts).
 * A document example that drifts from the service fails here, naming its line.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import * as assert from 'uvu/assert';
import { startCore, type TestCore } from '../helpers/core.js';
import { compare, docSteps, matchesShown, Substitutions } from '../helpers/doc-examples.js';
import { type ApiKeys, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { suite } from '../helpers/suite.js';

const API_DOC = new URL('../../docs/api.md', import.meta.url);
const README = new URL('../../README.md', import.meta.url);
const TEST_MODE_DOC = new URL('../../docs/test-mode.md', import.meta.url);
const PRODUCTS_DOC = new URL('../../docs/products.md', import.meta.url);
const CLI = fileURLToPath(new URL('../../bin/prepaid.js', import.meta.url));
const run = promisify(execFile);

const test = suite("the documents' examples against a real gateway");
let core: TestCore;
let gateway: TestGateway;

test.before(async () => {
  core = await startCore();
  gateway = await startTestGateway(core, { rateLimitPerMinute: 10_000 });
});

test.after(async () => {
  await gateway?.close();
  await core?.close();
});

/**
 * A new account on the api tier with `naira` in its live wallet, credited as `prepaid wallet credit` does (no memo).
 */
async function fundedAccount(naira: number): Promise<ApiKeys> {
  const account = await core.createApiAccount();
  await core.admin.creditWallet({
    accountId: account.accountId,
    amountKobo: BigInt(Math.round(naira * 100)),
    memo: '',
  });
  return account;
}

/** What a document's walk-through did: answers and printed outputs compared, and every difference. */
interface Walked {
  compared: number;
  commands: number;
  problems: string[];
}

/**
 * Walks a document's steps in order: each `npx prepaid` through the real CLI (its printed
 * lines compared with the shown ones), each `export PK=`/`SK=` taking the key pair the CLI
 * printed for it, each curl sent to the gateway with the current key pair (its answer
 * compared with the shown one).
 */
async function walk(file: URL, keys: ApiKeys | undefined, learned = new Substitutions()): Promise<Walked> {
  const name = file.pathname.replace(/^.*\/(docs\/)?/, (whole) => (whole.endsWith('docs/') ? 'docs/' : ''));
  const walked: Walked = { compared: 0, commands: 0, problems: [] };
  const problems = walked.problems;
  let current: Partial<ApiKeys> = keys ?? {};
  for (const step of docSteps(file)) {
    if (step.kind === 'export') {
      if (step.name === 'PK') current = { ...current, publicKey: learned.real(step.value) };
      if (step.name === 'SK') current = { ...current, secretKey: learned.real(step.value) };
      continue;
    }
    if (step.kind === 'cli') {
      const { command } = step;
      walked.commands++;
      const args = ['--core', core.url, ...command.args.map((arg) => learned.real(arg))];
      const { stdout } = await run(process.execPath, [CLI, ...args], {
        env: { ...process.env, ADMIN_TOKEN: core.adminToken, CORE_URL: '' },
      });
      const printed = stdout.trimEnd().split('\n');
      if (command.output.length === 0) continue;
      if (printed.length !== command.output.length) {
        problems.push(
          `${name} line ${command.line}: prepaid ${command.args.join(' ')} printed ` +
            `${printed.length} lines, the document shows ${command.output.length}:\n${stdout}`,
        );
        continue;
      }
      for (const [index, shown] of command.output.entries()) {
        if (!matchesShown(shown, printed[index]!, learned))
          problems.push(`${name} line ${command.line + 1 + index}: shown ${shown}\n  printed ${printed[index]}`);
      }
      continue;
    }
    const { example } = step;
    assert.ok(
      current.publicKey && current.secretKey,
      `${name} line ${example.line}: a key pair is set before the first curl`,
    );
    const headers = Object.fromEntries(
      Object.entries(example.headers).filter(([header]) => !/^X-(Public|Secret)-Key$/.test(header)),
    );
    const reply = await gateway.request({
      query: learned.query(example.query),
      keys: current as ApiKeys,
      headers,
      ...(example.body === undefined ? {} : { body: example.body }),
    });
    if (example.answer === undefined) continue;
    walked.compared++;
    const where = `${name} line ${example.line}`;
    if (reply.json === undefined) {
      problems.push(`${where}: HTTP ${reply.status} answered no JSON: ${reply.text.slice(0, 200)}`);
      continue;
    }
    for (const problem of compare(example.answer, reply.json, learned)) problems.push(`${where}: ${problem}`);
    const state = (example.answer as { status?: string }).status;
    const expected =
      state === 'pending' ? 202 : state === 'error' ? (reply.json?.code === 'NOT_FOUND' ? 404 : 422) : 200;
    if (reply.status !== expected)
      problems.push(`${where}: HTTP ${reply.status}, where the shown answer means ${expected}`);
  }
  return walked;
}

/** The starting balance the document states for its examples, in Naira. */
function statedStart(text: string, pattern: RegExp, where: string): number {
  const found = pattern.exec(text);
  assert.ok(found, `${where} says what its examples start with (${pattern})`);
  return Number(found![1]!.replaceAll(',', ''));
}

test('every curl of docs/api.md answers what the page shows, in order', async () => {
  const start = statedStart(readFileSync(API_DOC, 'utf8'), /starts with ([\d,]+) Naira in its wallet/, 'docs/api.md');
  const { compared, problems } = await walk(API_DOC, await fundedAccount(start));
  assert.ok(compared >= 19, `${compared} answers shown in docs/api.md`);
  assert.equal(problems, [], problems.join('\n'));
});

test("the README's first purchase, CLI and API, prints and answers what the README shows", async () => {
  // The admin CLI as a reader runs it (its own process, the core's admin token), then the
  // curls with the key pair it printed (the README's PK and SK stand for it).
  const { compared, commands, problems } = await walk(README, undefined);
  assert.ok(commands >= 3, `${commands} prepaid commands in README.md`);
  assert.ok(compared >= 3, `${compared} answers shown in README.md`);
  assert.equal(problems, [], problems.join('\n'));
});

test('the test-mode walk-through of docs/test-mode.md, CLI and API, prints and answers what it shows', async () => {
  const { compared, commands, problems } = await walk(TEST_MODE_DOC, undefined);
  assert.ok(commands >= 3, `${commands} prepaid commands in docs/test-mode.md`);
  assert.ok(compared >= 3, `${compared} answers shown in docs/test-mode.md`);
  assert.equal(problems, [], problems.join('\n'));
});

test('every curl of docs/products.md answers what the page shows, in order', async () => {
  const text = readFileSync(PRODUCTS_DOC, 'utf8');
  const start = statedStart(text, /starts with ([\d,]+) Naira in its wallet/, 'docs/products.md');
  const { compared, problems } = await walk(PRODUCTS_DOC, await fundedAccount(start));
  assert.ok(compared >= 2, `${compared} answers shown in docs/products.md`);
  assert.equal(problems, []);
});

test('a drifted example is caught: a changed charge, a missing key, a wrong order of keys', () => {
  const learned = new Substitutions();
  const real = { status: 'success', reference: '202611260524NAY95BQSBK', charged: 97, balance: 9903 };
  assert.equal(
    compare({ status: 'success', reference: '202601010000ABCDEFGHIJ', charged: 97, balance: 9903 }, real, learned),
    [],
  );
  assert.is(
    learned.values.get('202601010000ABCDEFGHIJ'),
    '202611260524NAY95BQSBK',
    'the shown reference stands for the real one in later requests',
  );
  assert.equal(compare({ status: 'success', reference: '...', charged: 97, balance: 10000 }, real, learned), [
    '$.balance: shown 10000, got 9903',
  ]);
  assert.equal(compare({ status: 'success', charged: 97, balance: 9903 }, real, learned).length, 1);
  assert.equal(compare({ status: 'success', charged: 97, reference: '...', balance: 9903 }, real, learned).length, 1);
  assert.equal(compare({ status: 'success', charged: 97, '...': true }, real, learned), []);
  assert.equal(compare([{ price: 2688.75 }, '...'], [{ price: 2687.85 }, { price: 1 }], learned), [
    '$[0].price: shown 2688.75, got 2687.85',
  ]);
});

test.run();
