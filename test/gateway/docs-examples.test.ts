/**
 * The documents' examples produce what they show (issue 32): every `curl` of docs/api.md, in
 * the order of the page, and the README's first purchase are sent to a real gateway in front
 * of a real core (the sandbox provider, the default catalogue), each for a new account on the
 * `api` tier funded as the document says, and each real answer is compared with the one shown
 * under its request: amounts, charges and balances in order, names, states and messages
 * exactly, references, times, tokens and cursors by shape (test/helpers/doc-examples.ts).
 * A document example that drifts from the service fails here, naming its line.
 */
import { readFileSync } from 'node:fs';
import * as assert from 'uvu/assert';
import { startCore, type TestCore } from '../helpers/core.js';
import { compare, docExamples, Substitutions } from '../helpers/doc-examples.js';
import { type ApiKeys, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { suite } from '../helpers/suite.js';

const API_DOC = new URL('../../docs/api.md', import.meta.url);
const README = new URL('../../README.md', import.meta.url);

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
async function runExamples(file: URL, keys: ApiKeys): Promise<{ compared: number; problems: string[] }> {
  const name = file.pathname.replace(/^.*\/(docs\/)?/, (whole) => (whole.endsWith('docs/') ? 'docs/' : ''));
  const learned = new Substitutions();
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

test("the README's first purchase answers what the README shows", async () => {
  const text = readFileSync(README, 'utf8');
  const start = statedStart(text, /^npx prepaid wallet credit \S+ ([\d,]+)$/m, 'README.md');
  const { compared, problems } = await runExamples(README, await fundedAccount(start));
  assert.ok(compared >= 3, `${compared} answers shown in README.md`);
  assert.equal(problems, [], problems.join('\n'));
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
