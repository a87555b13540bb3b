/**
 * The contract's product and status words and its event types are spelled once, in
 * core/domain/words.ts (and the domain's own lists it maps to); a client (gateway/, dashboard/,
 * console/, cli/) takes them from there. Read from the string literals of every client file,
 * parsed with the TypeScript compiler, so a word inside prose or an HTML template is no literal.
 *
 * `pending`, `success` and `failed` are not looked for: the same words are the answer
 * envelope's `status`, a webhook delivery's state and a CLI command's name, which a literal
 * cannot tell apart from a transaction's status. Their tables come from words.ts all the same.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import * as assert from 'uvu/assert';
import { PRODUCT_WORDS, TRANSACTION_STATUSES } from '../../core/domain/words.js';
import { suite } from '../helpers/suite.js';

const test = suite('ops: the contract words are spelled once');

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CLIENTS = ['gateway', 'dashboard', 'console', 'cli'];

/** The words no client spells: every product (and the enum's own bulk_sms), reversed and refunded. */
const WORDS = new Set<string>([
  ...Object.values(PRODUCT_WORDS).filter((word) => word !== null),
  'bulk_sms',
  ...TRANSACTION_STATUSES.filter((word) => !['pending', 'success', 'failed'].includes(word)),
  'refunded',
]);
/** An event type of a purchase: transaction.success and its siblings. */
const EVENT_TYPE = /^transaction\.[a-z_]+$/;

/** Literals that only look like a contract word, by file and word, each with why. */
const ALLOWED: ReadonlyArray<{ file: string; word: string; reason: string }> = [
  { file: 'cli/routes.ts', word: 'bulk_sms', reason: "the enum's own name, still accepted as input (never printed)" },
  { file: 'dashboard/pages/buy.ts', word: 'airtime', reason: 'a Buy page path (/buy/airtime), not the word' },
  { file: 'dashboard/pages/buy.ts', word: 'data', reason: 'a Buy page path' },
  { file: 'dashboard/pages/buy.ts', word: 'electricity', reason: 'a Buy page path' },
  { file: 'dashboard/pages/buy.ts', word: 'cable', reason: 'a Buy page path' },
  {
    file: 'dashboard/pages/overview.ts',
    word: 'airtime',
    reason: "a CSS class of the chart's colours (bulk SMS is sms)",
  },
  { file: 'dashboard/pages/overview.ts', word: 'data', reason: "a CSS class of the chart's colours" },
  { file: 'dashboard/pages/overview.ts', word: 'electricity', reason: "a CSS class of the chart's colours" },
  { file: 'dashboard/pages/overview.ts', word: 'cable', reason: "a CSS class of the chart's colours" },
  { file: 'dashboard/pages/transactions.ts', word: 'refunded', reason: 'a CSV column name, not a status' },
  { file: 'gateway/body.ts', word: 'data', reason: "a Node stream's event name" },
  { file: 'gateway/compat/adex/ids.ts', word: 'cable', reason: "the Adex family's field and path name, not our word" },
  { file: 'gateway/openapi.ts', word: 'data', reason: "an event's `data` key" },
  { file: 'gateway/compat/vtpass/answers.ts', word: 'reversed', reason: "VTpass's own transaction status word" },
  { file: 'gateway/compat/vtpass/openapi.ts', word: 'reversed', reason: "VTpass's own transaction status word" },
];

function clientFiles(): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
      const file = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(file);
      else if (file.endsWith('.ts')) files.push(file);
    }
  };
  for (const dir of CLIENTS) walk(dir);
  return files;
}

/** Every string literal of a file (quoted or a template without substitutions), with its line. */
function literals(file: string): { text: string; line: number }[] {
  const source = ts.createSourceFile(file, readFileSync(path.join(ROOT, file), 'utf8'), ts.ScriptTarget.Latest, true);
  const found: { text: string; line: number }[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node))
      found.push({ text: node.text, line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1 });
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const isContractWord = (text: string) => WORDS.has(text) || EVENT_TYPE.test(text);

test('no client file spells a product, a refund status or an event type itself', () => {
  const files = clientFiles();
  assert.ok(
    files.includes('cli/format.ts') && files.includes('gateway/actions/views.ts'),
    'the walk finds the clients',
  );
  const allowed = (file: string, word: string) => ALLOWED.some((a) => a.file === file && a.word === word);
  const spelled = files.flatMap((file) =>
    literals(file)
      .filter((l) => isContractWord(l.text) && !allowed(file, l.text))
      .map((l) => `${file}:${l.line} '${l.text}'`),
  );
  assert.equal(spelled, [], 'take the word from core/domain/words.ts');
});

test('every allowance is still needed', () => {
  const stale = ALLOWED.filter((a) => !literals(a.file).some((l) => l.text === a.word));
  assert.equal(stale, [], 'an allowance whose literal is gone');
  assert.ok(
    ALLOWED.every((a) => a.reason.length > 0 && isContractWord(a.word)),
    'each allowance says why',
  );
});

test.run();
