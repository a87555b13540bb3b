/**
 * The documents' examples produce what they show (issue 32): every `curl` of docs/api.md, in
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
import { compare, docCommands, docExamples, matchesShown, Substitutions } from '../helpers/doc-examples.js';
import { type ApiKeys, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { suite } from '../helpers/suite.js';

const API_DOC = new URL('../../docs/api.md', import.meta.url);
const README = new URL('../../README.md', import.meta.url);
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

/** A new account on the api tier with `naira` in its live wallet, credited as `prepaid wallet credit` does (no memo). */
async function fundedAccount(naira: number): Promise<ApiKeys> {
  const account = await core.createApiAccount();
  await core.admin.creditWallet({ accountId: account.accountId, amountKobo: BigInt(Math.round(naira * 100)), memo: '' });
  return account;
}

/** Sends every example of `file` in order with `keys`; returns how many were compared, and the problems. */
async function runExamples(file: URL, keys: ApiKeys, learned = new Substitutions()): Promise<{ compared: number; problems: string[] }> {
  const name = file.pathname.replace(/^.*\/(docs\/)?/, (whole) => (whole.endsWith('docs/') ? 'docs/' : ''));
  const problems: string[] = [];
  let compared = 0;
  for (const example of docExamples(file)) {
    const headers = Object.fromEntries(Object.entries(example.headers).filter(([header]) => !/^X-(Public|Secret)-Key$/.test(header)));
    const reply = await gateway.request({
      query: learned.query(example.query),
      keys,
      headers,
      ...(example.body === undefined ? {} : { body: example.body }),
    });
    if (example.answer === undefined) continue;
    compared++;
    const where = `${name} line ${example.line}`;
    if (reply.json === undefined) {
      problems.push(`${where}: HTTP ${reply.status} answered no JSON: ${reply.text.slice(0, 200)}`);
      continue;
    }
    for (const problem of compare(example.answer, reply.json, learned)) problems.push(`${where}: ${problem}`);
    const state = (example.answer as { status?: string }).status;
    const expected = state === 'pending' ? 202 : state === 'error' ? 422 : 200;
    if (reply.status !== expected) problems.push(`${where}: HTTP ${reply.status}, where the shown answer means ${expected}`);
  }
  return { compared, problems };
}

/** The starting balance the document states for its examples, in Naira. */
function statedStart(text: string, pattern: RegExp, where: string): number {
  const found = pattern.exec(text);
  assert.ok(found, `${where} says what its examples start with (${pattern})`);
  return Number(found![1]!.replaceAll(',', ''));
}

test('every curl of docs/api.md answers what the page shows, in order', async () => {
  const start = statedStart(readFileSync(API_DOC, 'utf8'), /starts with ([\d,]+) Naira in its wallet/, 'docs/api.md');
  const { compared, problems } = await runExamples(API_DOC, await fundedAccount(start));
  assert.ok(compared >= 19, `${compared} answers shown in docs/api.md`);
  assert.equal(problems, [], problems.join('\n'));
});

test("the README's first purchase, CLI and API, prints and answers what the README shows", async () => {
  // The admin CLI as a reader runs it (its own process, the core's admin token), each command
  // in the README's order; what it prints on stdout must be the README's lines, the reader's
  // own ids, keys, references, times and invitation token by shape.
  const learned = new Substitutions();
  const problems: string[] = [];
  const commands = docCommands(README);
  assert.ok(commands.length >= 3, `${commands.length} prepaid commands in README.md`);
  for (const command of commands) {
    const args = ['--core', core.url, ...command.args.map((arg) => learned.real(arg))];
    const { stdout } = await run(process.execPath, [CLI, ...args], { env: { ...process.env, ADMIN_TOKEN: core.adminToken, CORE_URL: '' } });
    const printed = stdout.trimEnd().split('\n');
    if (printed.length !== command.output.length) {
      problems.push(
        `README.md line ${command.line}: prepaid ${command.args.join(' ')} printed ${printed.length} lines, the README shows ${command.output.length}:\n${stdout}`,
      );
      continue;
    }
    for (const [index, shown] of command.output.entries()) {
      if (!matchesShown(shown, printed[index]!, learned))
        problems.push(`README.md line ${command.line + 1 + index}: shown ${shown}\n  printed ${printed[index]}`);
    }
  }
  assert.equal(problems, [], problems.join('\n'));

  // Then the curls, with the key pair the CLI printed (the README's PK and SK stand for it).
  const text = readFileSync(README, 'utf8');
  const keys = { publicKey: learned.real(/^export PK=(\S+)/m.exec(text)![1]!), secretKey: learned.real(/^export SK=(\S+)/m.exec(text)![1]!) };
  assert.match(keys.publicKey, /^pk_[0-9a-f]{24}$/, 'the README exports the public key the CLI printed');
  assert.not.equal(keys.publicKey, /^export PK=(\S+)/m.exec(text)![1]!, "the README's public key stands for the one the CLI printed");
  const { compared, problems: answered } = await runExamples(README, keys, learned);
  assert.ok(compared >= 3, `${compared} answers shown in README.md`);
  assert.equal(answered, [], answered.join('\n'));
});

test('a drifted example is caught: a changed charge, a missing key, a wrong order of keys', () => {
  const learned = new Substitutions();
  const real = { status: 'success', reference: '202611260524NAY95BQSBK', charged: 97, balance: 9903 };
  assert.equal(compare({ status: 'success', reference: '202601010000ABCDEFGHIJ', charged: 97, balance: 9903 }, real, learned), []);
  assert.is(learned.values.get('202601010000ABCDEFGHIJ'), '202611260524NAY95BQSBK', 'the shown reference stands for the real one in later requests');
  assert.equal(compare({ status: 'success', reference: '...', charged: 97, balance: 10000 }, real, learned), ['$.balance: shown 10000, got 9903']);
  assert.equal(compare({ status: 'success', charged: 97, balance: 9903 }, real, learned).length, 1);
  assert.equal(compare({ status: 'success', charged: 97, reference: '...', balance: 9903 }, real, learned).length, 1);
  assert.equal(compare({ status: 'success', charged: 97, '...': true }, real, learned), []);
  assert.equal(compare([{ price: 2688.75 }, '...'], [{ price: 2687.85 }, { price: 1 }], learned), ['$[0].price: shown 2688.75, got 2687.85']);
});

test.run();
