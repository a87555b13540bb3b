/**
 * The store conformance suite: what every adapter of core/store/port.ts must do, pinned
 * through the port alone so the SQLite and MongoDB adapters run the very same checks.
 * An adapter's test file calls `storeConformance(label, open)`; `open` must hand out a
 * fresh, empty store for every test.
 *
 * After every test, each account the test created is audited through the port: its
 * balance equals the sum of its ledger entries (read through listLedger paging), every
 * entry's balance_after is the running sum, and no balance was ever negative.
 */
import { randomUUID } from 'node:crypto';
import * as assert from 'uvu/assert';
import { type Posting, upstreamFundedPostings } from '../../../core/domain/books.js';
import { type EventRecord, pingEvent, planEvent, publicPlan } from '../../../core/domain/events.js';
import { type NewInflow, newInflowId, type VirtualAccountRecord } from '../../../core/domain/funding.js';
import { MODES, type Mode } from '../../../core/domain/mode.js';
import { kobo } from '../../../core/domain/money.js';
import { InvalidCursorError, type Page, type PageRequest } from '../../../core/domain/paging.js';
import { lagosDay } from '../../../core/domain/people.js';
import type { TransactionStatus } from '../../../core/domain/products.js';
import { RAW_ANSWERS_PER_PURCHASE } from '../../../core/domain/raw-answers.js';
import type { RecipientControls } from '../../../core/domain/recipient-controls.js';
import {
  balanceOf,
  type CatalogSeed,
  type InvitationRecord,
  type LedgerEntryRecord,
  type NewTransaction,
  type PlanRecord,
  type PriceRule,
  type ReconcileFindingRecord,
  type SessionRecord,
  type TransactionQuery,
  type TransactionRecord,
  type UserRecord,
} from '../../../core/domain/records.js';
import type { SalesDayRow } from '../../../core/domain/reports.js';
import type { ProposalRecord, StaffMemberRecord } from '../../../core/domain/staff.js';
import { canMove, TRANSITIONS } from '../../../core/domain/transactions.js';
import type { ProviderOutcome, ProviderRequest } from '../../../core/providers/port.js';
import { createSandbox } from '../../../core/providers/sandbox/index.js';
import type { PurchaseDeps } from '../../../core/purchases/flow.js';
import { Background } from '../../../core/purchases/receipts.js';
import { createRecoveryWorker } from '../../../core/purchases/recovery.js';
import { transactionCursorBefore } from '../../../core/store/paging.js';
import type { DebitInput, Store } from '../../../core/store/port.js';
import { unchecked } from '../../helpers/money.js';
import { airtimePurchase } from '../../helpers/purchases.js';
import { suite } from '../../helpers/suite.js';
import { randomMoves } from './books-random.js';

/** A fresh store and how to throw it away. */
export interface OpenedStore {
  store: Store;
  cleanup(): Promise<void>;
}

/** Page size the audit reads the ledger with; small, so that paging itself is exercised. */
const AUDIT_PAGE_LIMIT = 7;

/** A fixed clock origin keeps every time in the suite exact and readable. */
const T0 = Date.UTC(2025, 0, 1, 8, 0, 0);

function at(seconds: number): Date {
  return new Date(T0 + seconds * 1000);
}

/** One test's view of a fresh store, remembering the accounts it must audit afterwards. */
class Harness {
  readonly accountIds = new Set<string>();
  /** Keeps references unique even if an adapter's "fresh" stores share a database. */
  private readonly prefix = randomUUID().slice(0, 8);
  private sequence = 0;

  constructor(readonly store: Store) {}

  /** Creates an account, funded with one credit when balanceKobo > 0. */
  async account(balanceKobo = 0, tierId = 'standard'): Promise<string> {
    const accountId = this.unique('acct');
    await this.store.accounts.create({ accountId, name: `Account ${accountId}`, tierId, createdAt: at(0) });
    this.accountIds.add(accountId);
    if (balanceKobo > 0) {
      const credited = await this.store.ledger.post({
        kind: 'credit',
        credit: {
          mode: 'live',
          accountId,
          amountKobo: kobo(balanceKobo),
          reference: this.unique('fund'),
          memo: 'opening balance',
          at: at(1),
        },
      });
      assert.ok(credited, 'the opening credit found the account');
    }
    return accountId;
  }

  unique(kind: string): string {
    this.sequence += 1;
    return `${kind}-${this.prefix}-${String(this.sequence).padStart(4, '0')}`;
  }

  /** An airtime purchase of ₦100 charged ₦98 unless overridden. */
  purchase(accountId: string, overrides: Partial<NewTransaction> = {}): NewTransaction {
    return airtimePurchase(this.unique('TX'), { accountId, nextAttemptAt: at(60), createdAt: at(10), ...overrides });
  }

  async reserved(tx: NewTransaction): Promise<TransactionRecord> {
    const result = await this.store.ledger.post({ kind: 'reserve', tx });
    if (result.outcome !== 'reserved') throw new Error(`expected the purchase to be reserved, got ${result.outcome}`);
    return result.transaction;
  }

  async balance(accountId: string, mode: Mode = 'live'): Promise<number> {
    const account = await this.store.accounts.get(accountId);
    assert.ok(account, `account ${accountId} exists`);
    return balanceOf(account, mode);
  }

  /** Every ledger entry of the account's wallet in `mode`, newest first, read page by page. */
  async ledger(accountId: string, limit = AUDIT_PAGE_LIMIT, mode: Mode = 'live'): Promise<LedgerEntryRecord[]> {
    return readAll((page) => this.store.wallet.listLedger(accountId, mode, page), limit);
  }

  /** Credits the account's test wallet. */
  async creditTest(accountId: string, amountKobo: number): Promise<void> {
    const credited = await this.store.ledger.post({
      kind: 'credit',
      credit: {
        accountId,
        mode: 'test',
        amountKobo: kobo(amountKobo),
        reference: this.unique('test'),
        memo: 'test money',
        at: at(2),
      },
    });
    assert.ok(credited, 'the test credit found the account');
  }
}

/** Follows `next` cursors to the end, checking that every page but the last is full. */
async function readAll<T>(list: (page: PageRequest) => Promise<Page<T>>, limit: number): Promise<T[]> {
  const items: T[] = [];
  let after: string | undefined;
  for (let pages = 0; ; pages++) {
    assert.ok(pages < 10_000, 'paging terminates');
    const page: Page<T> = await list(after === undefined ? { limit } : { limit, after });
    assert.ok(page.items.length <= limit, 'a page never exceeds its limit');
    items.push(...page.items);
    if (page.next === undefined) return items;
    assert.is(page.items.length, limit, 'only the last page may be short');
    after = page.next;
  }
}

async function auditLedger(h: Harness): Promise<void> {
  for (const accountId of h.accountIds) {
    for (const mode of MODES) await auditWallet(h, accountId, mode);
  }
  // The store's own checker must agree: after any sequence of port operations it finds nothing.
  const audit = await h.store.wallet.audit();
  assert.equal(audit.violations, [], 'the ledger audit finds no violation');
  assert.is(audit.violationCount, 0);
  assert.is(audit.modes.live.violationCount + audit.modes.test.violationCount, 0);
}

/** One wallet (account and mode) against its own entries. */
async function auditWallet(h: Harness, accountId: string, mode: Mode): Promise<void> {
  {
    const account = await h.store.accounts.get(accountId);
    assert.ok(account, `audited account ${accountId} exists`);
    const newestFirst = await h.ledger(accountId, AUDIT_PAGE_LIMIT, mode);
    const ids = newestFirst.map((e) => e.entryId);
    assert.is(new Set(ids).size, ids.length, 'ledger entries are listed once each');
    for (let i = 1; i < ids.length; i++) assert.ok(ids[i - 1]! > ids[i]!, 'ledger is newest first');
    let running = 0;
    for (const entry of [...newestFirst].reverse()) {
      assert.is(entry.accountId, accountId);
      assert.is(entry.mode, mode, 'a wallet lists only its own entries');
      assert.ok(Number.isSafeInteger(entry.amountKobo) && entry.amountKobo !== 0, 'entry amount is a non-zero integer');
      const negative = entry.kind === 'debit' || entry.kind === 'manual_debit';
      assert.ok(negative ? entry.amountKobo < 0 : entry.amountKobo > 0, `sign of a ${entry.kind} entry`);
      running += entry.amountKobo;
      assert.is(entry.balanceAfterKobo, running, `balance after entry ${entry.entryId} is the running sum`);
      assert.ok(running >= 0, 'the balance never went negative');
    }
    assert.is(
      balanceOf(account, mode),
      running,
      `${mode} balance of ${accountId} equals the sum of its ledger entries`,
    );
  }
}

/**
 * Builds and runs the conformance suites for one adapter. Every test gets a fresh store
 * from `open` and gives it back through `cleanup`.
 */
export function storeConformance(label: string, open: () => Promise<OpenedStore>): void {
  /** One uvu suite whose tests each get a fresh store and end with the ledger audit. */
  function define(name: string, body: (it: (title: string, fn: (h: Harness) => Promise<void>) => void) => void): void {
    const test = suite(`${label} store: ${name}`);
    let current: { harness: Harness; cleanup(): Promise<void> } | undefined;
    test.before.each(async () => {
      const opened = await open();
      current = { harness: new Harness(opened.store), cleanup: opened.cleanup };
    });
    // uvu runs after.each again when a test failed, so this must be safe to call twice.
    test.after.each(async () => {
      const done = current;
      current = undefined;
      if (done) await done.cleanup();
    });
    // CONFORMANCE_ONLY=<words> runs only the cases whose title has them (for working on one case).
    const only = process.env['CONFORMANCE_ONLY'];
    body((title, fn) =>
      (only === undefined || title.includes(only) ? test : test.skip)(title, async () => {
        const h = current!.harness;
        await fn(h);
        await auditLedger(h);
      }),
    );
    test.run();
  }

  define('accounts', (it) => {
    it('a new account starts at zero and reads back as created', async (h) => {
      const created = await h.store.accounts.create({
        accountId: 'acct-1',
        name: 'Ada Stores',
        tierId: 'standard',
        createdAt: at(5),
      });
      h.accountIds.add('acct-1');
      assert.equal(created, {
        accountId: 'acct-1',
        name: 'Ada Stores',
        tierId: 'standard',
        balanceKobo: kobo(0),
        testBalanceKobo: kobo(0),
        createdAt: at(5),
        // The operator made it: its owner's email and phone count as proven when it was made.
        emailVerifiedAt: at(5),
        phoneVerifiedAt: at(5),
      });
      assert.equal(await h.store.accounts.get('acct-1'), created);
    });

    it('an unknown account is null', async (h) => {
      assert.is(await h.store.accounts.get('nobody'), null);
      assert.is(await h.store.accounts.setTier('nobody', 'api'), null);
    });

    it('getWithTier reads the account with its tier, a missing tier as null', async (h) => {
      const gold = {
        tierId: 'gold',
        name: 'Gold',
        apiAccess: true,
        discounts: [{ product: 'airtime' as const, service: 'mtn', basisPoints: 300 }],
        priceRules: [
          {
            product: 'airtime' as const,
            network: '',
            planType: '',
            service: 'mtn',
            marginBasisPoints: 50,
            marginKobo: kobo(0),
            floorKobo: kobo(1_00),
            ceilingKobo: kobo(0),
            aboveFaceValue: false,
          },
        ],
      };
      await h.store.catalog.upsertTier(gold);
      const accountId = await h.account(5_000);
      await h.store.accounts.setTier(accountId, 'gold');
      const found = await h.store.accounts.getWithTier(accountId);
      assert.equal(found?.account, await h.store.accounts.get(accountId));
      assert.equal(found?.tier, gold);
      await h.store.accounts.setTier(accountId, 'no-such-tier');
      const orphan = await h.store.accounts.getWithTier(accountId);
      assert.is(orphan?.account.tierId, 'no-such-tier');
      assert.is(orphan?.tier, null);
      assert.is(await h.store.accounts.getWithTier('nobody'), null);
    });

    it('setTier moves the account and keeps its balance', async (h) => {
      const accountId = await h.account(5_000);
      const moved = await h.store.accounts.setTier(accountId, 'api');
      assert.is(moved?.tierId, 'api');
      assert.is(moved?.balanceKobo, 5_000);
      assert.is((await h.store.accounts.get(accountId))?.tierId, 'api');
    });
  });

  define('keys', (it) => {
    it('a key reads back exactly as inserted', async (h) => {
      const accountId = await h.account();
      const key = {
        publicKey: 'pk_one',
        accountId,
        secretHash: 'a'.repeat(64),
        allowedIps: ['203.0.113.7'],
        revoked: false,
        mode: 'live' as const,
        createdAt: at(3),
      };
      await h.store.keys.insert(key);
      assert.equal(await h.store.keys.find('pk_one'), key);
      assert.is(await h.store.keys.find('pk_missing'), null);
    });

    it('keys are found by the start of their public key, in order, bounded, wildcards literal', async (h) => {
      const a = await h.account();
      const b = await h.account();
      const key = (publicKey: string, accountId: string) => ({
        publicKey,
        accountId,
        secretHash: 'h',
        allowedIps: [],
        revoked: false,
        mode: 'live' as const,
        createdAt: at(1),
      });
      for (const k of [key('pk_ab12', a), key('pk_ab34', b), key('pk_ac00', a), key('pk_test_ab', b)])
        await h.store.keys.insert(k);
      const found = async (prefix: string, limit = 10) =>
        (await h.store.keys.findByPrefix(prefix, limit)).map((k) => [k.publicKey, k.accountId]);
      assert.equal(await found('pk_ab'), [
        ['pk_ab12', a],
        ['pk_ab34', b],
      ]);
      assert.equal(await found('pk_ab', 1), [['pk_ab12', a]]);
      assert.equal(await found('pk_ab12'), [['pk_ab12', a]]);
      assert.equal(await found('pk_a%'), []);
      assert.equal(await found('pk_a_'), []);
      assert.equal(await found('pk_zz'), []);
      assert.equal(await found(''), []);
    });

    it("an account's keys list newest first, revoked ones included, other accounts' excluded", async (h) => {
      const accountId = await h.account();
      const other = await h.account();
      await h.store.keys.insert({
        publicKey: 'pk_old',
        accountId,
        secretHash: 'h1',
        allowedIps: [],
        revoked: true,
        mode: 'live',
        createdAt: at(1),
      });
      await h.store.keys.insert({
        publicKey: 'pk_new',
        accountId,
        secretHash: 'h2',
        allowedIps: [],
        revoked: false,
        mode: 'live',
        createdAt: at(9),
      });
      await h.store.keys.insert({
        publicKey: 'pk_mid',
        accountId,
        secretHash: 'h3',
        allowedIps: [],
        revoked: false,
        mode: 'live',
        createdAt: at(5),
      });
      await h.store.keys.insert({
        publicKey: 'pk_theirs',
        accountId: other,
        secretHash: 'h4',
        allowedIps: [],
        revoked: false,
        mode: 'live',
        createdAt: at(7),
      });
      const listed = await h.store.keys.listByAccount(accountId);
      assert.equal(
        listed.map((k) => k.publicKey),
        ['pk_new', 'pk_mid', 'pk_old'],
      );
      assert.equal(await h.store.keys.listByAccount('nobody'), []);
    });

    it('revoke marks the key revoked and returns it; an unknown key is null', async (h) => {
      const accountId = await h.account();
      await h.store.keys.insert({
        publicKey: 'pk_r',
        accountId,
        secretHash: 'h',
        allowedIps: [],
        revoked: false,
        mode: 'live',
        createdAt: at(1),
      });
      const revoked = await h.store.keys.revoke('pk_r');
      assert.is(revoked?.revoked, true);
      assert.is((await h.store.keys.find('pk_r'))?.revoked, true);
      assert.is(await h.store.keys.revoke('pk_missing'), null);
    });

    it('setAllowedIps replaces the list, and an empty list removes the lock', async (h) => {
      const accountId = await h.account();
      await h.store.keys.insert({
        publicKey: 'pk_ip',
        accountId,
        secretHash: 'h',
        allowedIps: ['198.51.100.1'],
        revoked: false,
        mode: 'live',
        createdAt: at(1),
      });
      const locked = await h.store.keys.setAllowedIps('pk_ip', ['203.0.113.7', '2001:db8::1']);
      assert.equal(locked?.allowedIps, ['203.0.113.7', '2001:db8::1']);
      assert.equal((await h.store.keys.find('pk_ip'))?.allowedIps, ['203.0.113.7', '2001:db8::1']);
      assert.equal((await h.store.keys.setAllowedIps('pk_ip', []))?.allowedIps, []);
      assert.is(await h.store.keys.setAllowedIps('pk_missing', ['203.0.113.7']), null);
    });
  });

  define('key use', (it) => {
    /** A live key of a new account, its public key unique to this test. */
    async function key(h: Harness): Promise<string> {
      const publicKey = h.unique('pk');
      await h.store.keys.insert({
        publicKey,
        accountId: await h.account(),
        secretHash: 'h',
        allowedIps: [],
        revoked: false,
        mode: 'live',
        createdAt: at(1),
      });
      return publicKey;
    }

    it('a recorded use reads back; a key never used has none', async (h) => {
      const used = await key(h);
      const unused = await key(h);
      await h.store.keyUse.recordUses(new Map([[used, at(60)]]));
      assert.equal(await h.store.keyUse.lastUses([used, unused]), new Map([[used, at(60)]]));
      assert.equal(await h.store.keyUse.lastUses([unused]), new Map());
      assert.equal(await h.store.keyUse.lastUses([]), new Map());
      await h.store.keyUse.recordUses(new Map());
      assert.equal(await h.store.keyUse.lastUses([used, unused]), new Map([[used, at(60)]]));
    });

    it('the last use only moves forward: an older time changes nothing, a newer one replaces it', async (h) => {
      const first = await key(h);
      const second = await key(h);
      await h.store.keyUse.recordUses(new Map([[first, at(120)]]));
      // One batch where one key goes back (left as it was) and another is new.
      await h.store.keyUse.recordUses(
        new Map([
          [first, at(60)],
          [second, at(30)],
        ]),
      );
      assert.equal(
        await h.store.keyUse.lastUses([first, second]),
        new Map([
          [first, at(120)],
          [second, at(30)],
        ]),
      );
      await h.store.keyUse.recordUses(new Map([[first, at(180)]]));
      assert.equal(await h.store.keyUse.lastUses([first]), new Map([[first, at(180)]]));
    });

    it('two writers at once keep the later time', async (h) => {
      const publicKey = await key(h);
      await Promise.all([
        h.store.keyUse.recordUses(new Map([[publicKey, at(300)]])),
        h.store.keyUse.recordUses(new Map([[publicKey, at(200)]])),
      ]);
      assert.equal(await h.store.keyUse.lastUses([publicKey]), new Map([[publicKey, at(300)]]));
    });
  });

  define('catalog', (it) => {
    const standard = {
      tierId: 'standard',
      name: 'Standard',
      apiAccess: false,
      discounts: [{ product: 'airtime' as const, service: 'mtn', basisPoints: 200 }],
      priceRules: [],
    };

    it('tiers upsert, read back and update in place', async (h) => {
      assert.equal(await h.store.catalog.upsertTier(standard), standard);
      const api = {
        tierId: 'api',
        name: 'API',
        apiAccess: true,
        discounts: [{ product: 'data' as const, service: '', basisPoints: 150 }],
        priceRules: [],
      };
      await h.store.catalog.upsertTier(api);
      assert.equal(await h.store.catalog.getTier('api'), api);
      const renamed = { ...standard, name: 'Standard plus', discounts: [] };
      assert.equal(await h.store.catalog.upsertTier(renamed), renamed);
      const tiers = await h.store.catalog.listTiers();
      assert.is(tiers.length, 2);
      assert.equal(
        tiers.find((t) => t.tierId === 'standard'),
        renamed,
      );
      assert.is(await h.store.catalog.getTier('gold'), null);
    });

    it('a plan keeps its type, size, validity days and costs, and a tier its price rules', async (h) => {
      const rules: PriceRule[] = [
        {
          product: 'data',
          network: 'mtn',
          planType: 'sme',
          service: '',
          marginBasisPoints: 500,
          marginKobo: kobo(10_00),
          floorKobo: kobo(0),
          ceilingKobo: kobo(900_00),
          aboveFaceValue: false,
        },
        // Airtime, electricity and cable rules price over the commissions; one may pass face value.
        {
          product: 'electricity',
          network: '',
          planType: '',
          service: 'ikedc',
          marginBasisPoints: 150,
          marginKobo: kobo(25),
          floorKobo: kobo(0),
          ceilingKobo: kobo(0),
          aboveFaceValue: true,
        },
        {
          product: 'airtime',
          network: '',
          planType: '',
          service: '',
          marginBasisPoints: 0,
          marginKobo: kobo(5_00),
          floorKobo: kobo(1_00),
          ceilingKobo: kobo(0),
          aboveFaceValue: false,
        },
      ];
      assert.equal(await h.store.catalog.upsertTier({ ...standard, priceRules: rules }), {
        ...standard,
        priceRules: rules,
      });
      assert.equal((await h.store.catalog.getTier('standard'))!.priceRules, rules);
      const plan: PlanRecord = {
        planId: 0,
        network: 'mtn',
        label: 'SME 1GB',
        validity: '30 days',
        type: 'sme',
        sizeMb: 1024,
        validityDays: 30,
        faceValueKobo: kobo(300_00),
        tierPricesKobo: {},
        costsKobo: { vtpass: kobo(250_00), 'odd.name': kobo(260_00) },
        active: true,
        providerCode: 'mtn-sme-1gb',
      };
      const stored = await h.store.catalog.upsertPlan(plan);
      assert.equal(await h.store.catalog.getPlan(stored.planId), { ...plan, planId: stored.planId });
    });

    it('a plan change writes its plans, its type switch, a tier and its events together', async (h) => {
      await h.store.catalog.upsertTier(standard);
      const accountId = await h.account();
      const plan = await h.store.catalog.upsertPlan({
        planId: 0,
        network: 'glo',
        label: '2GB',
        validity: '30 days',
        type: 'cg',
        sizeMb: 2048,
        validityDays: 30,
        faceValueKobo: kobo(1_000_00),
        tierPricesKobo: {},
        costsKobo: {},
        active: true,
        providerCode: '',
      });
      assert.equal(await h.store.catalog.listPlanTypesOff(), []);
      const event = planEvent('plan.disabled', accountId, publicPlan(plan, kobo(970_00)), at(5));
      const written = await h.store.catalog.applyPlanChanges({
        plans: [{ ...plan, costsKobo: { vtpass: kobo(900_00) } }],
        typeSwitch: { network: 'glo', type: 'cg', enabled: false },
        tier: { ...standard, name: 'Standard, changed' },
        events: [event],
      });
      assert.equal(written, [{ ...plan, costsKobo: { vtpass: kobo(900_00) } }]);
      assert.equal(await h.store.catalog.listPlanTypesOff(), [{ network: 'glo', type: 'cg' }]);
      assert.is((await h.store.catalog.getTier('standard'))!.name, 'Standard, changed');
      const feed = await h.store.events.listFeed(accountId, 'live', 0, 10);
      assert.equal(
        feed.map((e) => [e.eventId, e.type, e.subject, e.body, e.delivery]),
        [[event.eventId, 'plan.disabled', `plan:${plan.planId}`, event.body, 'none']],
      );
      // Switching off twice keeps one switch; switching on removes it.
      await h.store.catalog.applyPlanChanges({
        plans: [],
        typeSwitch: { network: 'glo', type: 'cg', enabled: false },
        events: [],
      });
      assert.is((await h.store.catalog.listPlanTypesOff()).length, 1);
      await h.store.catalog.applyPlanChanges({
        plans: [],
        typeSwitch: { network: 'glo', type: 'cg', enabled: true },
        events: [],
      });
      assert.equal(await h.store.catalog.listPlanTypesOff(), []);
    });

    it('a plan change whose event cannot be written writes nothing', async (h) => {
      await h.store.catalog.upsertTier(standard);
      const accountId = await h.account();
      const plan = await h.store.catalog.upsertPlan({
        planId: 0,
        network: 'airtel',
        label: '1GB',
        validity: '1 day',
        type: 'awoof',
        sizeMb: 1024,
        validityDays: 1,
        faceValueKobo: kobo(300_00),
        tierPricesKobo: {},
        costsKobo: {},
        active: true,
        providerCode: '',
      });
      const event = planEvent('plan.updated', accountId, publicPlan(plan, kobo(290_00)), at(5));
      // The same event id twice: the second insert breaks the unique id, so the whole change rolls back.
      await h.store.catalog
        .applyPlanChanges({
          plans: [{ ...plan, active: false }],
          typeSwitch: { network: 'airtel', type: 'awoof', enabled: false },
          events: [event, event],
        })
        .then(
          () => assert.unreachable('a duplicate event id must fail the change'),
          (error: unknown) => assert.instance(error, Error),
        );
      assert.is((await h.store.catalog.getPlan(plan.planId))!.active, true);
      assert.equal(await h.store.catalog.listPlanTypesOff(), []);
      assert.equal(await h.store.events.listFeed(accountId, 'live', 0, 10), []);
    });

    it('cost rules are kept one per product, service and upstream, replaced, listed in order, removed', async (h) => {
      assert.equal(await h.store.catalog.listCostRules(), []);
      await h.store.catalog.setCostRule({ product: 'cable', service: '', upstream: 'vtpass' }, 150);
      await h.store.catalog.setCostRule({ product: 'airtime', service: 'mtn', upstream: 'vtpass' }, 300);
      await h.store.catalog.setCostRule({ product: 'airtime', service: '', upstream: 'vtpass' }, 250);
      await h.store.catalog.setCostRule({ product: 'airtime', service: 'mtn', upstream: 'clubkonnect' }, 0);
      // Setting the same key again replaces its commission.
      await h.store.catalog.setCostRule({ product: 'airtime', service: 'mtn', upstream: 'vtpass' }, 320);
      assert.equal(await h.store.catalog.listCostRules(), [
        { product: 'airtime', service: '', upstream: 'vtpass', commissionBasisPoints: 250 },
        { product: 'airtime', service: 'mtn', upstream: 'clubkonnect', commissionBasisPoints: 0 },
        { product: 'airtime', service: 'mtn', upstream: 'vtpass', commissionBasisPoints: 320 },
        { product: 'cable', service: '', upstream: 'vtpass', commissionBasisPoints: 150 },
      ]);
      await h.store.catalog.setCostRule({ product: 'airtime', service: 'mtn', upstream: 'vtpass' }, null);
      // Removing what is not there changes nothing.
      await h.store.catalog.setCostRule({ product: 'electricity', service: 'ikedc', upstream: 'vtpass' }, null);
      assert.equal(
        (await h.store.catalog.listCostRules()).map((r) => `${r.product}/${r.service}/${r.upstream}`),
        ['airtime//vtpass', 'airtime/mtn/clubkonnect', 'cable//vtpass'],
      );
      // A commission that is not whole basis points from 0 to 100% is refused by the store itself.
      for (const bad of [-1, 10_001, 2.5])
        await h.store.catalog.setCostRule({ product: 'cable', service: 'dstv', upstream: 'vtpass' }, bad).then(
          () => assert.unreachable(`commission ${bad} must be refused`),
          (error: unknown) => assert.instance(error, Error),
        );
      assert.is((await h.store.catalog.listCostRules()).length, 3);
    });

    it('the accounts on a tier are listed a page at a time, in id order', async (h) => {
      // A tier of this run's own, should an adapter's fresh stores share a database.
      const gold = `gold-${randomUUID().slice(0, 8)}`;
      const ids = [await h.account(0, gold), await h.account(0, gold), await h.account(0, gold)].sort();
      await h.account(0, 'silver');
      assert.equal(await h.store.accounts.listIdsOnTier(gold, '', 2), ids.slice(0, 2));
      assert.equal(await h.store.accounts.listIdsOnTier(gold, ids[1]!, 2), ids.slice(2));
      assert.equal(await h.store.accounts.listIdsOnTier('bronze', '', 10), []);
    });

    it('an account is suspended with when, by whom and why, and resumed; the money stays', async (h) => {
      const accountId = await h.account(5_000);
      assert.is((await h.store.accounts.get(accountId))!.suspension, undefined);
      const suspension = { at: at(60), by: 'staff:ada@ops.example.ng', note: 'Chargeback under review' };
      const suspended = await h.store.accounts.setSuspension(accountId, suspension);
      assert.equal(suspended!.suspension, suspension);
      assert.is(suspended!.balanceKobo, 5_000);
      assert.equal((await h.store.accounts.get(accountId))!.suspension, suspension);
      const resumed = await h.store.accounts.setSuspension(accountId, null);
      assert.is(resumed!.suspension, undefined);
      assert.is((await h.store.accounts.get(accountId))!.suspension, undefined);
      assert.is(await h.store.accounts.setSuspension('nobody', suspension), null);
    });

    it('accounts are found by a fragment of their name, ignoring case, literally, bounded', async (h) => {
      const run = randomUUID().slice(0, 8);
      const make = async (name: string) => {
        const accountId = h.unique('acct');
        await h.store.accounts.create({ accountId, name, tierId: 'standard', createdAt: at(0) });
        h.accountIds.add(accountId);
        return accountId;
      };
      const a = await make(`Ade Stores ${run}`);
      const b = await make(`ADE STORES ${run} Ikeja`);
      await make(`Bola Ventures ${run}`);
      const pct = await make(`100% Data_${run}`);
      const found = await h.store.accounts.searchByName(`ade stores ${run}`, 10);
      assert.equal(
        found.map((x) => x.accountId),
        [a, b].sort(),
      );
      assert.is((await h.store.accounts.searchByName(`stores ${run}`, 1)).length, 1);
      assert.equal(
        (await h.store.accounts.searchByName(`0% data_${run}`, 10)).map((x) => x.accountId),
        [pct],
      );
      // % _ . * are letters here, never patterns.
      assert.equal(await h.store.accounts.searchByName(`% Ventures ${run}`, 10), []);
      assert.equal(await h.store.accounts.searchByName(`.* ${run}`, 10), []);
      assert.equal(await h.store.accounts.searchByName('', 10), []);
    });

    it('the console lists accounts filtered, sorted by time, balance or name, a bounded page at a time', async (h) => {
      // A year no other test writes in, so a store shared between tests still lists only these.
      const base = Date.UTC(2031, 5, 1) + Math.floor(Math.random() * 1e9);
      const when = (days: number) => new Date(base + days * 86_400_000);
      const made: { id: string; name: string; balance: number; days: number }[] = [];
      for (const [name, balance, days, tierId] of [
        ['Zeta Data', 5_000, 1, 'standard'],
        ['Ade Stores', 20_000, 2, 'standard'],
        ['Bola Ventures', 0, 3, 'api'],
        ['Chi Telecom', 20_000, 4, 'standard'],
      ] as const) {
        const id = h.unique('acct');
        await h.store.accounts.create({ accountId: id, name, tierId, createdAt: when(days) });
        h.accountIds.add(id);
        if (balance > 0) {
          const memo = 'opening balance';
          const credit = { mode: 'live' as const, accountId: id, amountKobo: kobo(balance), memo, at: when(days) };
          await h.store.ledger.post({ kind: 'credit', credit: { ...credit, reference: h.unique('fund') } });
        }
        made.push({ id, name, balance, days });
      }
      const range = { createdFrom: when(0), createdBefore: when(5) };
      const ids = (page: { items: { accountId: string }[] }) => page.items.map((a) => a.accountId);
      const byDays = (...days: number[]) => days.map((d) => made.find((m) => m.days === d)!.id);
      // Newest first, two at a time: the cursor carries on where the first page stopped.
      const first = await h.store.accounts.list({ ...range, sort: 'created', descending: true, limit: 2 });
      assert.equal(ids(first), byDays(4, 3));
      assert.ok(first.next);
      const second = await h.store.accounts.list({
        ...range,
        sort: 'created',
        descending: true,
        limit: 2,
        after: first.next!,
      });
      assert.equal(ids(second), byDays(2, 1));
      assert.is(second.next, undefined);
      // Balance, highest first: the two equal balances are ordered by id, in the same direction, across pages.
      const tied = byDays(2, 4).sort().reverse();
      const rich = await h.store.accounts.list({ ...range, sort: 'balance', descending: true, limit: 1 });
      assert.equal(ids(rich), [tied[0]!]);
      const next = await h.store.accounts.list({
        ...range,
        sort: 'balance',
        descending: true,
        limit: 1,
        after: rich.next!,
      });
      assert.equal(ids(next), [tied[1]!]);
      // By name, A to Z.
      const named = await h.store.accounts.list({ ...range, sort: 'name', descending: false, limit: 10 });
      assert.equal(
        named.items.map((a) => a.name),
        ['Ade Stores', 'Bola Ventures', 'Chi Telecom', 'Zeta Data'],
      );
      // Filters narrow: tier, balance range, created range, suspension.
      assert.equal(
        ids(await h.store.accounts.list({ ...range, tierId: 'api', sort: 'created', descending: true, limit: 10 })),
        byDays(3),
      );
      const middle = { balanceMinKobo: 1, balanceMaxKobo: 10_000 };
      assert.equal(
        ids(await h.store.accounts.list({ ...range, ...middle, sort: 'name', descending: false, limit: 10 })),
        byDays(1),
      );
      const early = { createdFrom: when(2), createdBefore: when(4) };
      assert.equal(
        ids(await h.store.accounts.list({ ...early, sort: 'created', descending: false, limit: 10 })),
        byDays(2, 3),
      );
      await h.store.accounts.setSuspension(byDays(1)[0]!, {
        at: when(6),
        by: 'staff:ada@ops.example.ng',
        note: 'review',
      });
      const suspended = await h.store.accounts.list({
        ...range,
        suspended: true,
        sort: 'created',
        descending: true,
        limit: 10,
      });
      assert.equal(ids(suspended), byDays(1));
      const active = await h.store.accounts.list({
        ...range,
        suspended: false,
        sort: 'created',
        descending: true,
        limit: 10,
      });
      assert.equal(ids(active), byDays(4, 3, 2));
      // A cursor of another sort's kind, or none this store issued, is refused as such.
      for (const after of [first.next!, 'not-a-cursor']) {
        let caught: unknown;
        try {
          await h.store.accounts.list({ ...range, sort: 'name', descending: false, limit: 2, after });
        } catch (error) {
          caught = error;
        }
        assert.instance(caught, InvalidCursorError, 'a cursor of another sort or none issued is refused');
      }
    });

    it('the transactions desk finds live purchases in a range by recipient, account, status and upstream, paged', async (h) => {
      const buyer = await h.account(10_000_00);
      const other = await h.account(10_000_00);
      // A time no other test writes at, so a shared store still answers only these.
      const base = Date.UTC(2032, 2, 1) + Math.floor(Math.random() * 1e9);
      const made = (seconds: number) => new Date(base + seconds * 1000);
      const buy = async (
        accountId: string,
        seconds: number,
        recipient: string,
        upstream: string,
        mode: 'live' | 'test' = 'live',
      ) => {
        const tx = h.purchase(accountId, { createdAt: made(seconds), recipient, mode });
        const result = await h.store.ledger.post({ kind: 'reserve', tx, first: { upstream } });
        assert.is(result.outcome, 'reserved');
        return tx.reference;
      };
      const a = await buy(buyer, 1, '08031110001', 'vtpass');
      const b = await buy(buyer, 2, '08031110002', 'ck');
      const c = await buy(other, 3, '08031110001', 'vtpass');
      await h.store.ledger.post({
        kind: 'credit',
        credit: {
          mode: 'test',
          accountId: buyer,
          amountKobo: kobo(10_000_00),
          reference: h.unique('fund'),
          memo: 'test money',
          at: made(0),
        },
      });
      await buy(buyer, 4, '08031110001', 'vtpass', 'test');
      const range = { from: made(0), until: made(10) };
      const refs = (page: { items: { reference: string }[] }) => page.items.map((t) => t.reference);
      // Newest first, across accounts, live only; two at a time.
      const first = await h.store.history.searchDesk(range, { limit: 2 });
      assert.equal(refs(first), [c, b]);
      assert.equal(refs(await h.store.history.searchDesk(range, { limit: 2, after: first.next! })), [a]);
      assert.equal(refs(await h.store.history.searchDesk({ ...range, recipient: '08031110001' }, { limit: 10 })), [
        c,
        a,
      ]);
      const mine = { ...range, accountId: buyer, recipient: '08031110001' };
      assert.equal(refs(await h.store.history.searchDesk(mine, { limit: 10 })), [a]);
      assert.equal(refs(await h.store.history.searchDesk({ ...range, upstream: 'ck' }, { limit: 10 })), [b]);
      assert.equal(refs(await h.store.history.searchDesk({ ...range, status: 'success' }, { limit: 10 })), []);
      assert.equal(refs(await h.store.history.searchDesk({ ...range, reference: b }, { limit: 10 })), [b]);
      assert.equal(refs(await h.store.history.searchDesk({ from: made(2), until: made(3) }, { limit: 10 })), [b]);
    });

    it('planId 0 allocates the next id; ids stay stable across updates and are never reused', async (h) => {
      const plan = (network: string, label: string): PlanRecord => ({
        planId: 0,
        network,
        label,
        validity: '30 days',
        faceValueKobo: kobo(100_000),
        tierPricesKobo: { standard: kobo(98_000), api: kobo(95_000) },
        type: 'direct' as const,
        sizeMb: 0,
        validityDays: 0,
        costsKobo: {},
        active: true,
        providerCode: '',
      });
      const first = await h.store.catalog.upsertPlan(plan('mtn', '1GB'));
      const second = await h.store.catalog.upsertPlan(plan('mtn', '2GB'));
      assert.ok(first.planId > 0, 'an allocated id is positive');
      assert.is(second.planId, first.planId + 1);
      assert.equal(first, { ...plan('mtn', '1GB'), planId: first.planId });

      const explicit = await h.store.catalog.upsertPlan({ ...plan('glo', '5GB'), planId: 40 });
      assert.is(explicit.planId, 40);
      const after = await h.store.catalog.upsertPlan(plan('airtel', '500MB'));
      assert.is(after.planId, 41, 'allocation continues past the largest id');

      const updated = await h.store.catalog.upsertPlan({
        ...first,
        label: '1.5GB',
        active: false,
        tierPricesKobo: { standard: kobo(97_000) },
        type: 'direct' as const,
        sizeMb: 0,
        validityDays: 0,
        costsKobo: {},
      });
      assert.is(updated.planId, first.planId);
      assert.equal(await h.store.catalog.getPlan(first.planId), updated);
      assert.is((await h.store.catalog.listPlans()).length, 4, 'an update does not add a plan');
      assert.is(await h.store.catalog.getPlan(999), null);
    });

    it('listPlans orders by network then id, and filters by network and activity', async (h) => {
      const base = {
        validity: '30 days',
        faceValueKobo: kobo(50_000),
        tierPricesKobo: { standard: kobo(49_000) },
        type: 'direct' as const,
        sizeMb: 0,
        validityDays: 0,
        costsKobo: {},
        providerCode: '',
      };
      const mtnA = await h.store.catalog.upsertPlan({
        ...base,
        planId: 0,
        network: 'mtn',
        label: 'a',
        active: true,
        providerCode: '',
      });
      const airtel = await h.store.catalog.upsertPlan({
        ...base,
        planId: 0,
        network: 'airtel',
        label: 'b',
        active: true,
        providerCode: '',
      });
      const mtnB = await h.store.catalog.upsertPlan({
        ...base,
        planId: 0,
        network: 'mtn',
        label: 'c',
        active: false,
        providerCode: '',
      });
      const glo = await h.store.catalog.upsertPlan({
        ...base,
        planId: 0,
        network: 'glo',
        label: 'd',
        active: true,
        providerCode: '',
      });
      const ids = (plans: PlanRecord[]) => plans.map((p) => p.planId);
      assert.equal(ids(await h.store.catalog.listPlans()), [airtel.planId, glo.planId, mtnA.planId, mtnB.planId]);
      assert.equal(ids(await h.store.catalog.listPlans({ network: 'mtn' })), [mtnA.planId, mtnB.planId]);
      assert.equal(ids(await h.store.catalog.listPlans({ activeOnly: true })), [
        airtel.planId,
        glo.planId,
        mtnA.planId,
      ]);
      assert.equal(ids(await h.store.catalog.listPlans({ network: 'mtn', activeOnly: true })), [mtnA.planId]);
      assert.equal(await h.store.catalog.listPlans({ network: '9mobile' }), []);
    });

    it('cable packages upsert by provider and code, and list by provider', async (h) => {
      const compact = {
        provider: 'dstv',
        packageCode: 'compact',
        name: 'DStv Compact',
        priceKobo: kobo(1_250_000),
        active: true,
        providerCode: '',
      };
      assert.equal(await h.store.catalog.upsertCablePackage(compact), compact);
      await h.store.catalog.upsertCablePackage({
        provider: 'gotv',
        packageCode: 'compact',
        name: 'GOtv Compact?',
        priceKobo: kobo(500_000),
        active: true,
        providerCode: '',
      });
      await h.store.catalog.upsertCablePackage({
        provider: 'dstv',
        packageCode: 'padi',
        name: 'DStv Padi',
        priceKobo: kobo(360_000),
        active: true,
        providerCode: '',
      });
      const repriced = { ...compact, priceKobo: kobo(1_350_000), active: false, providerCode: '' };
      assert.equal(await h.store.catalog.upsertCablePackage(repriced), repriced);
      assert.equal(await h.store.catalog.getCablePackage('dstv', 'compact'), repriced);
      assert.is(
        (await h.store.catalog.getCablePackage('gotv', 'compact'))?.priceKobo,
        500_000,
        'same code, other provider',
      );
      assert.is(await h.store.catalog.getCablePackage('startimes', 'compact'), null);
      assert.equal((await h.store.catalog.listCablePackages({ provider: 'dstv' })).map((p) => p.packageCode).sort(), [
        'compact',
        'padi',
      ]);
      assert.is((await h.store.catalog.listCablePackages()).length, 3);
    });

    it('the SMS rate reads back what was set last', async (h) => {
      await h.store.catalog.setSmsRateKobo(kobo(400));
      assert.is(await h.store.catalog.getSmsRateKobo(), 400);
      await h.store.catalog.setSmsRateKobo(kobo(450));
      assert.is(await h.store.catalog.getSmsRateKobo(), 450);
    });

    it('seedIfEmpty writes the seed once and never overwrites later edits', async (h) => {
      const seed: CatalogSeed = {
        tiers: [standard, { tierId: 'api', name: 'API', apiAccess: true, discounts: [], priceRules: [] }],
        plans: [
          {
            planId: 1,
            network: 'mtn',
            label: '1GB',
            validity: '30 days',
            faceValueKobo: kobo(100_000),
            tierPricesKobo: { standard: kobo(98_000), api: kobo(95_000) },
            type: 'direct' as const,
            sizeMb: 0,
            validityDays: 0,
            costsKobo: {},
            active: true,
            providerCode: '',
          },
          {
            planId: 2,
            network: 'glo',
            label: '2GB',
            validity: '30 days',
            faceValueKobo: kobo(150_000),
            tierPricesKobo: { standard: kobo(147_000), api: kobo(140_000) },
            type: 'direct' as const,
            sizeMb: 0,
            validityDays: 0,
            costsKobo: {},
            active: true,
            providerCode: '',
          },
        ],
        cablePackages: [
          {
            provider: 'gotv',
            packageCode: 'max',
            name: 'GOtv Max',
            priceKobo: kobo(720_000),
            active: true,
            providerCode: '',
          },
        ],
        smsRateKobo: kobo(400),
      };
      assert.is(await h.store.catalog.seedIfEmpty(seed), true);
      assert.is((await h.store.catalog.listTiers()).length, 2);
      assert.equal(await h.store.catalog.getPlan(2), seed.plans[1]);
      assert.equal(await h.store.catalog.getCablePackage('gotv', 'max'), seed.cablePackages[0]);
      assert.is(await h.store.catalog.getSmsRateKobo(), 400);

      await h.store.catalog.setSmsRateKobo(kobo(425));
      const changed: CatalogSeed = {
        ...seed,
        tiers: [{ tierId: 'gold', name: 'Gold', apiAccess: true, discounts: [], priceRules: [] }],
        smsRateKobo: kobo(999),
      };
      assert.is(await h.store.catalog.seedIfEmpty(changed), false);
      assert.is(await h.store.catalog.getTier('gold'), null);
      assert.is(await h.store.catalog.getSmsRateKobo(), 425);
      assert.is(
        (await h.store.catalog.upsertPlan({ ...seed.plans[0]!, planId: 0 })).planId,
        3,
        'allocation continues after seeded ids',
      );
    });

    it('seedIfEmpty does nothing when tiers exist already', async (h) => {
      await h.store.catalog.upsertTier(standard);
      const seeded = await h.store.catalog.seedIfEmpty({
        tiers: [{ ...standard, name: 'Seeded' }],
        plans: [],
        cablePackages: [],
        smsRateKobo: kobo(400),
      });
      assert.is(seeded, false);
      assert.is((await h.store.catalog.getTier('standard'))?.name, 'Standard');
    });
  });

  define('wallet credit', (it) => {
    it('a credit adds to the balance and writes a credit entry', async (h) => {
      const accountId = await h.account();
      const first = await h.store.ledger.post({
        kind: 'credit',
        credit: {
          mode: 'live',
          accountId,
          amountKobo: kobo(250_000),
          reference: 'CR-1',
          memo: 'bank transfer',
          at: at(20),
        },
      });
      assert.equal(first, {
        balanceKobo: kobo(250_000),
        replayed: false,
        entry: {
          entryId: first!.entry.entryId,
          accountId,
          mode: 'live',
          amountKobo: kobo(250_000),
          balanceAfterKobo: kobo(250_000),
          kind: 'credit',
          reference: 'CR-1',
          memo: 'bank transfer',
          createdAt: at(20),
        },
      });
      const second = await h.store.ledger.post({
        kind: 'credit',
        credit: {
          mode: 'live',
          accountId,
          amountKobo: kobo(50),
          reference: 'CR-2',
          memo: 'top up',
          at: at(21),
        },
      });
      assert.is(second?.balanceKobo, 250_050);
      assert.is(await h.balance(accountId), 250_050);
      assert.equal(
        (await h.ledger(accountId)).map((e) => e.reference),
        ['CR-2', 'CR-1'],
      );
    });

    it('an operator credit retried with the same reference credits once and answers the first credit', async (h) => {
      const accountId = await h.account();
      const input = {
        mode: 'live' as const,
        accountId,
        amountKobo: kobo(70_000),
        reference: 'GTB-0042',
        memo: 'bank transfer',
        at: at(20),
      };
      const first = await h.store.ledger.post({ kind: 'credit', credit: input });
      await h.store.ledger.post({
        kind: 'credit',
        credit: {
          mode: 'live' as const,
          accountId,
          amountKobo: kobo(5),
          reference: 'GTB-0043',
          memo: 'another',
          at: at(21),
        },
      });
      const retried = await h.store.ledger.post({ kind: 'credit', credit: { ...input, at: at(40) } });
      assert.equal(retried, { ...first!, replayed: true }, 'the first credit, with the balance it left');
      assert.is(await h.balance(accountId), 70_005);
      assert.equal(
        (await h.ledger(accountId)).map((e) => e.reference),
        ['GTB-0043', 'GTB-0042'],
      );
    });

    it('a retried reference with another amount writes nothing and returns the first credit', async (h) => {
      const accountId = await h.account();
      await h.store.ledger.post({
        kind: 'credit',
        credit: {
          mode: 'live' as const,
          accountId,
          amountKobo: kobo(1_000),
          reference: 'R-1',
          memo: '',
          at: at(20),
        },
      });
      const other = await h.store.ledger.post({
        kind: 'credit',
        credit: {
          mode: 'live' as const,
          accountId,
          amountKobo: kobo(9_999),
          reference: 'R-1',
          memo: '',
          at: at(21),
        },
      });
      assert.is(other?.replayed, true);
      assert.is(other?.entry.amountKobo, 1_000, 'the caller compares the amounts');
      assert.is(await h.balance(accountId), 1_000);
    });

    it('a credit reference is once per wallet: the test wallet and the live wallet each credit it once', async (h) => {
      const accountId = await h.account();
      const credit = (mode: 'live' | 'test', minute: number) =>
        h.store.ledger.post({
          kind: 'credit',
          credit: { mode, accountId, amountKobo: kobo(1_000), reference: 'R-1', memo: '', at: at(minute) },
        });
      const rehearsal = await credit('test', 20);
      const live = await credit('live', 21);
      const [liveAgain, testAgain] = [await credit('live', 22), await credit('test', 23)];
      assert.equal([rehearsal?.replayed, rehearsal?.entry.mode], [false, 'test']);
      assert.equal([live?.replayed, live?.entry.mode], [false, 'live'], 'the test credit does not block the live one');
      assert.equal([liveAgain?.replayed, liveAgain?.entry.entryId], [true, live?.entry.entryId]);
      assert.equal([testAgain?.replayed, testAgain?.entry.entryId], [true, rehearsal?.entry.entryId]);
      assert.is(await h.balance(accountId), 1_000);
      assert.is((await h.ledger(accountId)).length, 1);
    });

    it('the same reference credits each account once, and concurrent retries credit once', async (h) => {
      const a = await h.account();
      const b = await h.account();
      const credit = (accountId: string) =>
        h.store.ledger.post({
          kind: 'credit',
          credit: {
            mode: 'live' as const,
            accountId,
            amountKobo: kobo(300),
            reference: 'SAME',
            memo: '',
            at: at(20),
          },
        });
      const results = await Promise.all([credit(a), credit(a), credit(a), credit(b)]);
      assert.is(results.slice(0, 3).filter((r) => r?.replayed === false).length, 1, 'one of the three writes');
      assert.is(results[3]?.replayed, false, 'another account may use the same reference');
      assert.is(await h.balance(a), 300);
      assert.is(await h.balance(b), 300);
      assert.is((await h.ledger(a)).length, 1);
    });

    it('a credit to an unknown account is null and writes nothing', async (h) => {
      assert.is(
        await h.store.ledger.post({
          kind: 'credit',
          credit: {
            mode: 'live',
            accountId: 'nobody',
            amountKobo: kobo(100),
            reference: 'CR-x',
            memo: '',
            at: at(1),
          },
        }),
        null,
      );
      assert.equal(await h.ledger('nobody'), []);
    });

    it('a zero, negative or fractional credit is refused and writes nothing', async (h) => {
      const accountId = await h.account(1_000);
      for (const amountKobo of [0, -500, 12.5, Number.NaN]) {
        let refused = false;
        try {
          await h.store.ledger.post({
            kind: 'credit',
            credit: {
              mode: 'live',
              accountId,
              amountKobo: unchecked(amountKobo),
              reference: h.unique('bad'),
              memo: '',
              at: at(2),
            },
          });
        } catch {
          refused = true;
        }
        assert.ok(refused, `a credit of ${amountKobo} is refused`);
      }
      assert.is(await h.balance(accountId), 1_000);
      assert.is((await h.ledger(accountId)).length, 1);
    });
  });

  define('wallet reserve', (it) => {
    it('a covered purchase debits, writes the debit entry and a pending transaction', async (h) => {
      const accountId = await h.account(20_000);
      const tx = h.purchase(accountId, {
        product: 'data',
        details: { planId: 3, planLabel: '1GB' },
        requestId: 'order-77',
        requestHash: 'b'.repeat(64),
      });
      const reserved = await h.reserved(tx);
      assert.equal(reserved, {
        ...tx,
        status: 'pending',
        balanceAfterKobo: kobo(10_200),
        result: null,
        failureReason: null,
        attempts: 0,
        needsAttention: false,
        updatedAt: tx.createdAt,
      });
      assert.equal(await h.store.transactions.get(tx.reference), reserved);
      assert.is(await h.balance(accountId), 10_200);
      const [debit] = await h.ledger(accountId);
      assert.is(debit?.kind, 'debit');
      assert.is(debit?.amountKobo, -9_800);
      assert.is(debit?.balanceAfterKobo, 10_200);
      assert.is(debit?.reference, tx.reference);
      assert.equal(debit?.createdAt, tx.createdAt);
    });

    it('a short balance is "insufficient" and writes nothing', async (h) => {
      const accountId = await h.account(5_000);
      const tx = h.purchase(accountId, { requestId: 'short-1' });
      assert.equal(await h.store.ledger.post({ kind: 'reserve', tx }), {
        outcome: 'insufficient',
        balanceKobo: kobo(5_000),
      });
      assert.is(await h.balance(accountId), 5_000);
      assert.is((await h.ledger(accountId)).length, 1, 'only the opening credit');
      assert.is(await h.store.transactions.get(tx.reference), null);
      assert.equal((await h.store.transactions.listByAccount(accountId, 'live', { limit: 10 })).items, []);
      // Nothing was written, so the idempotency key is still free once the wallet is funded.
      await h.store.ledger.post({
        kind: 'credit',
        credit: {
          mode: 'live',
          accountId,
          amountKobo: kobo(5_000),
          reference: 'CR-more',
          memo: '',
          at: at(30),
        },
      });
      assert.is((await h.store.ledger.post({ kind: 'reserve', tx })).outcome, 'reserved');
    });

    it('a charge equal to the balance leaves exactly zero, and the next kobo is refused', async (h) => {
      const accountId = await h.account(9_800);
      const reserved = await h.reserved(h.purchase(accountId));
      assert.is(reserved.balanceAfterKobo, 0);
      assert.is(await h.balance(accountId), 0);
      assert.equal(
        await h.store.ledger.post({ kind: 'reserve', tx: h.purchase(accountId, { chargedKobo: kobo(1) }) }),
        {
          outcome: 'insufficient',
          balanceKobo: kobo(0),
        },
      );
    });

    it('an unknown account is "no_account" and writes nothing', async (h) => {
      const tx = h.purchase('nobody');
      assert.equal(await h.store.ledger.post({ kind: 'reserve', tx }), { outcome: 'no_account' });
      assert.is(await h.store.transactions.get(tx.reference), null);
    });

    it('a repeated request_id is "duplicate", returns the original and never debits twice', async (h) => {
      const accountId = await h.account(50_000);
      const original = await h.reserved(h.purchase(accountId, { requestId: 'same', requestHash: 'hash-1' }));
      const replay = h.purchase(accountId, { requestId: 'same', requestHash: 'hash-2', chargedKobo: kobo(100) });
      const again = await h.store.ledger.post({ kind: 'reserve', tx: replay });
      assert.equal(again, { outcome: 'duplicate', transaction: original });
      assert.is(await h.store.transactions.get(replay.reference), null);
      assert.is(await h.balance(accountId), 40_200);
      assert.is((await h.ledger(accountId)).filter((e) => e.kind === 'debit').length, 1);
    });

    it('a duplicate returns the transaction as it is now, settled included', async (h) => {
      const accountId = await h.account(50_000);
      const original = await h.reserved(h.purchase(accountId, { requestId: 'then-settled' }));
      await h.store.ledger.post({
        kind: 'settle',
        reference: original.reference,
        result: { providerReference: 'P-1' },
        at: at(40),
      });
      const again = await h.store.ledger.post({
        kind: 'reserve',
        tx: h.purchase(accountId, { requestId: 'then-settled' }),
      });
      assert.is(again.outcome, 'duplicate');
      if (again.outcome === 'duplicate') {
        assert.is(again.transaction.status, 'success');
        assert.equal(again.transaction.result, { providerReference: 'P-1' });
      }
    });

    it('concurrent reserves with one request_id debit exactly once', async (h) => {
      const accountId = await h.account(100_000);
      const results = await Promise.all(
        Array.from({ length: 10 }, () =>
          h.store.ledger.post({ kind: 'reserve', tx: h.purchase(accountId, { requestId: 'racing' }) }),
        ),
      );
      assert.is(results.filter((r) => r.outcome === 'reserved').length, 1);
      assert.is(results.filter((r) => r.outcome === 'duplicate').length, 9);
      assert.is(await h.balance(accountId), 90_200);
    });

    it('the same request_id on two accounts is two purchases', async (h) => {
      const a = await h.account(10_000);
      const b = await h.account(10_000);
      await h.reserved(h.purchase(a, { requestId: 'shared' }));
      await h.reserved(h.purchase(b, { requestId: 'shared' }));
      assert.is(await h.balance(a), 200);
      assert.is(await h.balance(b), 200);
    });

    it('a purchase is found by its request_id within its account and mode only', async (h) => {
      const a = await h.account(10_000);
      const b = await h.account(10_000);
      const made = await h.reserved(h.purchase(a, { requestId: 'lookup-1' }));
      const found = await h.store.transactions.getByRequestId(a, 'live', 'lookup-1');
      assert.is(found?.reference, made.reference);
      assert.is(await h.store.transactions.getByRequestId(a, 'test', 'lookup-1'), null);
      assert.is(await h.store.transactions.getByRequestId(b, 'live', 'lookup-1'), null);
      assert.is(await h.store.transactions.getByRequestId(a, 'live', 'lookup-2'), null);
    });

    it('purchases without a request_id never collide', async (h) => {
      const accountId = await h.account(30_000);
      await h.reserved(h.purchase(accountId));
      await h.reserved(h.purchase(accountId));
      assert.is(await h.balance(accountId), 10_400);
    });

    it('100 concurrent reserves on a wallet that covers 37 reserve exactly 37', async (h) => {
      const chargeKobo = kobo(500);
      const accountId = await h.account(37 * chargeKobo);
      const results = await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          h.store.ledger.post({
            kind: 'reserve',
            tx: h.purchase(accountId, { chargedKobo: chargeKobo, faceValueKobo: chargeKobo, createdAt: at(100 + i) }),
          }),
        ),
      );
      const reserved = results.flatMap((r) => (r.outcome === 'reserved' ? [r.transaction] : []));
      assert.is(reserved.length, 37);
      assert.is(results.filter((r) => r.outcome === 'insufficient').length, 63);
      assert.is(await h.balance(accountId), 0);
      const balancesAfter = reserved.map((t) => t.balanceAfterKobo).sort((x, y) => x - y);
      assert.equal(
        balancesAfter,
        Array.from({ length: 37 }, (_, i) => i * chargeKobo),
        'each debit saw the previous one',
      );
    });
  });

  define('key caps', (it) => {
    /** A live key of the account with these caps (0: none). */
    async function cappedKey(h: Harness, accountId: string, perPurchase: number, perDay: number): Promise<string> {
      const publicKey = h.unique('pk');
      await h.store.keys.insert({
        publicKey,
        accountId,
        secretHash: 'h',
        allowedIps: [],
        revoked: false,
        mode: 'live',
        createdAt: at(0),
        controls: { scopes: ['all'], capPerPurchaseKobo: kobo(perPurchase), capPerDayKobo: kobo(perDay) },
      });
      return publicKey;
    }

    it("a key's controls read back as written, and taking them away leaves a key without any", async (h) => {
      const accountId = await h.account();
      const publicKey = await cappedKey(h, accountId, 5_000, 0);
      assert.equal((await h.store.keys.find(publicKey))?.controls, {
        scopes: ['all'],
        capPerPurchaseKobo: 5_000,
        capPerDayKobo: 0,
      });
      const limited = { scopes: ['balance', 'purchase:airtime'], capPerPurchaseKobo: kobo(0), capPerDayKobo: kobo(9) };
      assert.equal((await h.store.keys.setControls(publicKey, limited))?.controls, limited);
      const cleared = await h.store.keys.setControls(publicKey, null);
      assert.ok(cleared !== null && !('controls' in cleared));
      assert.is(await h.store.keys.setControls('pk_missing', null), null);
    });

    it("a day's cap counts each reserve and refuses the charge that would pass it, writing nothing", async (h) => {
      const accountId = await h.account(100_000);
      const publicKey = await cappedKey(h, accountId, 0, 20_000);
      const checks = { cappedKey: publicKey };
      assert.is(
        (await h.store.ledger.post({ kind: 'reserve', tx: h.purchase(accountId), checks })).outcome,
        'reserved',
      );
      assert.is(
        (await h.store.ledger.post({ kind: 'reserve', tx: h.purchase(accountId), checks })).outcome,
        'reserved',
      );
      const refused = h.purchase(accountId);
      assert.equal(await h.store.ledger.post({ kind: 'reserve', tx: refused, checks }), {
        outcome: 'key_cap',
        refusal: { cap: 'per_day', capKobo: 20_000, spentTodayKobo: 19_600 },
      });
      assert.is(await h.store.transactions.get(refused.reference), null);
      assert.is(await h.balance(accountId), 100_000 - 2 * 9_800);
      assert.equal(await h.store.keys.spentOn([publicKey], lagosDay(at(10))), new Map([[publicKey, 19_600]]));
      // The next Lagos day starts again from nothing.
      const tomorrow = h.purchase(accountId, { createdAt: at(86_400) });
      assert.is((await h.store.ledger.post({ kind: 'reserve', tx: tomorrow, checks })).outcome, 'reserved');
    });

    it('a per-purchase cap refuses a larger charge; a purchase without checks is not counted', async (h) => {
      const accountId = await h.account(100_000);
      const publicKey = await cappedKey(h, accountId, 9_000, 0);
      assert.equal(
        await h.store.ledger.post({ kind: 'reserve', tx: h.purchase(accountId), checks: { cappedKey: publicKey } }),
        {
          outcome: 'key_cap',
          refusal: { cap: 'per_purchase', capKobo: 9_000 },
        },
      );
      assert.is((await h.store.ledger.post({ kind: 'reserve', tx: h.purchase(accountId) })).outcome, 'reserved');
      assert.equal(await h.store.keys.spentOn([publicKey], lagosDay(at(10))), new Map());
    });

    it("a refund and a reversal give the charge back to the key's day it was counted on", async (h) => {
      const accountId = await h.account(100_000);
      const publicKey = await cappedKey(h, accountId, 0, 9_800);
      const checks = { cappedKey: publicKey };
      const first = await h.store.ledger.post({ kind: 'reserve', tx: h.purchase(accountId), checks });
      assert.is(first.outcome, 'reserved');
      assert.is((await h.store.ledger.post({ kind: 'reserve', tx: h.purchase(accountId), checks })).outcome, 'key_cap');
      if (first.outcome !== 'reserved') return;
      await h.store.ledger.post({
        kind: 'refund',
        reference: first.transaction.reference,
        reason: 'failed upstream',
        at: at(20),
      });
      assert.equal(await h.store.keys.spentOn([publicKey], lagosDay(at(10))), new Map([[publicKey, 0]]));
      const second = await h.store.ledger.post({ kind: 'reserve', tx: h.purchase(accountId), checks });
      assert.is(second.outcome, 'reserved');
      if (second.outcome !== 'reserved') return;
      await h.store.ledger.post({ kind: 'settle', reference: second.transaction.reference, result: {}, at: at(21) });
      await h.store.ledger.post({
        kind: 'reverse',
        reference: second.transaction.reference,
        reason: 'reversed',
        at: at(22),
      });
      assert.is(
        (await h.store.ledger.post({ kind: 'reserve', tx: h.purchase(accountId), checks })).outcome,
        'reserved',
      );
    });

    it('a roll inserts the new pair and ends the old one, never later than an end it already had', async (h) => {
      const accountId = await h.account();
      const publicKey = await cappedKey(h, accountId, 0, 0);
      const next = {
        publicKey: h.unique('pk'),
        accountId,
        secretHash: 'n',
        allowedIps: ['203.0.113.9'],
        revoked: false,
        mode: 'live' as const,
        createdAt: at(5),
      };
      assert.equal((await h.store.keys.roll(publicKey, next, at(100)))?.expiresAt, at(100));
      assert.equal(await h.store.keys.find(next.publicKey), next);
      const second = { ...next, publicKey: h.unique('pk') };
      assert.equal((await h.store.keys.roll(publicKey, second, at(500)))?.expiresAt, at(100), 'the sooner end stays');
      assert.is(await h.store.keys.roll('pk_missing', { ...next, publicKey: h.unique('pk') }, at(1)), null);
    });

    it("another account's key caps nothing", async (h) => {
      const accountId = await h.account(100_000);
      const other = await h.account();
      const publicKey = await cappedKey(h, other, 1, 1);
      assert.is(
        (await h.store.ledger.post({ kind: 'reserve', tx: h.purchase(accountId), checks: { cappedKey: publicKey } }))
          .outcome,
        'reserved',
      );
    });
  });

  define('key freezes and the velocity history', (it) => {
    async function liveKey(h: Harness, accountId: string): Promise<string> {
      const publicKey = h.unique('pk');
      await h.store.keys.insert({
        publicKey,
        accountId,
        secretHash: 'h',
        allowedIps: [],
        revoked: false,
        mode: 'live',
        createdAt: at(0),
      });
      return publicKey;
    }
    const brake = { actor: 'system', address: null, note: 'velocity brake' };
    const staff = { actor: 'staff:ada@example.com', address: '203.0.113.9', note: 'owner called' };

    it('a freeze is on the key with its reason, once, with key.frozen and its audit row beside it', async (h) => {
      const accountId = await h.account();
      const publicKey = await liveKey(h, accountId);
      const freeze = { at: at(10), reason: 'spent too fast', by: 'velocity' };
      const frozen = await h.store.keys.freeze(publicKey, freeze, brake);
      assert.is(frozen?.changed, true);
      assert.equal(frozen?.key.frozen, freeze);
      assert.equal((await h.store.keys.find(publicKey))?.frozen, freeze);
      // A second freeze keeps the first and writes nothing.
      const again = await h.store.keys.freeze(publicKey, { at: at(20), reason: 'again', by: 'cli' }, brake);
      assert.is(again?.changed, false);
      assert.equal(again?.key.frozen, freeze);
      const feed = await h.store.events.listFeed(accountId, 'live', 0, 10);
      assert.equal(
        feed.map((e) => [e.type, e.subject]),
        [['key.frozen', publicKey]],
      );
      const body = JSON.parse(feed[0]!.body) as { data: Record<string, unknown> };
      assert.equal(body.data, { public_key: publicKey, reason: 'spent too fast', frozen_by: 'velocity_brake' });
      const rows = await h.store.auditLog.list({ target: publicKey, limit: 10 });
      assert.equal(
        rows.map((r) => [r.action, r.actor, r.note]),
        [['key.freeze', 'system', 'velocity brake']],
      );
      assert.equal(await h.store.keys.listFrozen(10).then((keys) => keys.map((k) => k.publicKey)), [publicKey]);
    });

    it('an unfreeze takes the freeze off, with key.unfrozen and its audit row; unknown keys are null', async (h) => {
      const accountId = await h.account();
      const publicKey = await liveKey(h, accountId);
      const notFrozen = await h.store.keys.unfreeze(publicKey, { at: at(5), by: 'cli' }, staff);
      assert.is(notFrozen?.changed, false);
      await h.store.keys.freeze(publicKey, { at: at(10), reason: 'by hand', by: 'cli' }, staff);
      const unfrozen = await h.store.keys.unfreeze(publicKey, { at: at(30), by: 'staff:ada@example.com' }, staff);
      assert.is(unfrozen?.changed, true);
      assert.ok(unfrozen !== null && !('frozen' in unfrozen.key));
      assert.ok(!('frozen' in ((await h.store.keys.find(publicKey)) ?? {})));
      assert.equal(await h.store.keys.listFrozen(10), []);
      const feed = await h.store.events.listFeed(accountId, 'live', 0, 10);
      assert.equal(
        feed.map((e) => e.type),
        ['key.frozen', 'key.unfrozen'],
      );
      const actions = (await h.store.auditLog.list({ target: publicKey, limit: 10 })).map((r) => r.action);
      assert.equal(actions, ['key.unfreeze', 'key.freeze']);
      assert.is(await h.store.keys.freeze('pk_missing', { at: at(1), reason: 'x', by: 'cli' }, staff), null);
      assert.is(await h.store.keys.unfreeze('pk_missing', { at: at(1), by: 'cli' }, staff), null);
    });

    it('frozen keys are listed longest frozen first, within the limit', async (h) => {
      const accountId = await h.account();
      const later = await liveKey(h, accountId);
      const earlier = await liveKey(h, accountId);
      await liveKey(h, accountId);
      await h.store.keys.freeze(later, { at: at(50), reason: 'b', by: 'cli' }, staff);
      await h.store.keys.freeze(earlier, { at: at(40), reason: 'a', by: 'cli' }, staff);
      assert.equal(
        (await h.store.keys.listFrozen(10)).map((k) => k.publicKey),
        [earlier, later],
      );
      assert.equal(
        (await h.store.keys.listFrozen(1)).map((k) => k.publicKey),
        [earlier],
      );
    });

    it("a key's velocity days add up across writes and keep the highest peak; read by a range of days", async (h) => {
      const accountId = await h.account();
      const publicKey = await liveKey(h, accountId);
      const other = await liveKey(h, accountId);
      await h.store.keyUse.recordVelocity([
        { publicKey, day: 100, addKobo: kobo(5_000), peakNewRecipients: 3 },
        { publicKey, day: 101, addKobo: kobo(1_000), peakNewRecipients: 1 },
        { publicKey: other, day: 100, addKobo: kobo(7), peakNewRecipients: 9 },
      ]);
      await h.store.keyUse.recordVelocity([{ publicKey, day: 100, addKobo: kobo(2_500), peakNewRecipients: 2 }]);
      await h.store.keyUse.recordVelocity([{ publicKey, day: 102, addKobo: kobo(1), peakNewRecipients: 0 }]);
      assert.equal(await h.store.keyUse.velocityDays(publicKey, 100, 102), [
        { day: 100, spentKobo: 7_500, peakNewRecipients: 3 },
        { day: 101, spentKobo: 1_000, peakNewRecipients: 1 },
      ]);
      assert.equal(await h.store.keyUse.velocityDays(publicKey, 103, 110), []);
    });
  });

  define('recipient controls', (it) => {
    const controls = (over: Partial<RecipientControls> = {}): RecipientControls => ({
      blocklist: false,
      perDayCount: 0,
      perDayKobo: kobo(0),
      duplicateGuard: false,
      ...over,
    });
    const checked = (c: RecipientControls) => ({ recipient: { controls: c, duplicateWindowMs: 30_000 } });

    it("an account's block refuses its purchases to the number and marks its controls; the platform's is listed apart", async (h) => {
      const accountId = await h.account(100_000);
      await h.store.recipients.block({ accountId, value: '08030000001', reason: 'r', by: 'cli', at: at(1) });
      await h.store.recipients.block({ accountId: '', value: '08030000002', reason: 'p', by: 'cli', at: at(2) });
      const account = await h.store.accounts.get(accountId);
      assert.equal(account?.recipientControls, controls({ blocklist: true }));
      const tx = h.purchase(accountId, { recipient: '08030000001' });
      assert.equal(await h.store.ledger.post({ kind: 'reserve', tx, checks: checked(account!.recipientControls!) }), {
        outcome: 'recipient',
        refusal: { kind: 'blocked' },
      });
      assert.is(await h.store.transactions.get(tx.reference), null);
      assert.equal(await h.store.recipients.platformValues(10), ['08030000002']);
      assert.equal(
        (await h.store.recipients.listBlocks(accountId, 10)).map((b) => b.value),
        ['08030000001'],
      );
      assert.is(await h.store.recipients.unblock(accountId, '08030000001'), true);
      assert.is(await h.store.recipients.unblock(accountId, '08030000001'), false);
    });

    it('a per-recipient count limit refuses the purchase past it, and a refund gives one back', async (h) => {
      const accountId = await h.account(100_000);
      const limits = controls({ perDayCount: 2 });
      const updated = await h.store.recipients.setLimits(accountId, limits);
      assert.equal(updated?.recipientControls, limits);
      const first = await h.store.ledger.post({ kind: 'reserve', tx: h.purchase(accountId), checks: checked(limits) });
      assert.is(
        (await h.store.ledger.post({ kind: 'reserve', tx: h.purchase(accountId), checks: checked(limits) })).outcome,
        'reserved',
      );
      assert.equal(await h.store.ledger.post({ kind: 'reserve', tx: h.purchase(accountId), checks: checked(limits) }), {
        outcome: 'recipient',
        refusal: { kind: 'count', limit: 2 },
      });
      if (first.outcome !== 'reserved') throw new Error('not reserved');
      await h.store.ledger.post({
        kind: 'refund',
        reference: first.transaction.reference,
        reason: 'failed',
        at: at(20),
      });
      assert.is(
        (await h.store.ledger.post({ kind: 'reserve', tx: h.purchase(accountId), checks: checked(limits) })).outcome,
        'reserved',
      );
    });

    it('the duplicate guard names the earlier purchase within its window, not after it, and never with a request_id', async (h) => {
      const accountId = await h.account(100_000);
      const guard = controls({ duplicateGuard: true });
      const first = await h.store.ledger.post({ kind: 'reserve', tx: h.purchase(accountId), checks: checked(guard) });
      if (first.outcome !== 'reserved') throw new Error('not reserved');
      assert.equal(
        await h.store.ledger.post({
          kind: 'reserve',
          tx: h.purchase(accountId, { createdAt: at(20) }),
          checks: checked(guard),
        }),
        {
          outcome: 'recipient',
          refusal: { kind: 'duplicate', reference: first.transaction.reference },
        },
      );
      const keyed = h.purchase(accountId, { createdAt: at(20), requestId: 'k-1', requestHash: 'h' });
      assert.is(
        (await h.store.ledger.post({ kind: 'reserve', tx: keyed, checks: checked(guard) })).outcome,
        'reserved',
      );
      // The keyed purchase at 20 s is the latest of the three: the window runs from it.
      assert.is(
        (
          await h.store.ledger.post({
            kind: 'reserve',
            tx: h.purchase(accountId, { createdAt: at(45) }),
            checks: checked(guard),
          })
        ).outcome,
        'recipient',
      );
      const later = h.purchase(accountId, { createdAt: at(51) });
      assert.is(
        (await h.store.ledger.post({ kind: 'reserve', tx: later, checks: checked(guard) })).outcome,
        'reserved',
      );
    });
  });

  define('wallet settle and refund', (it) => {
    async function pending(h: Harness): Promise<{ accountId: string; tx: TransactionRecord }> {
      const accountId = await h.account(20_000);
      const tx = await h.reserved(h.purchase(accountId));
      return { accountId, tx };
    }

    it('settle moves pending to success once; a second settle changes nothing', async (h) => {
      const { accountId, tx } = await pending(h);
      const first = await h.store.ledger.post({
        kind: 'settle',
        reference: tx.reference,
        result: { providerReference: 'P-9', units: '31.5 kWh' },
        at: at(30),
      });
      assert.is(first?.changed, true);
      assert.equal(first?.transaction, {
        ...tx,
        status: 'success',
        result: { providerReference: 'P-9', units: '31.5 kWh' },
        updatedAt: at(30),
      });
      const second = await h.store.ledger.post({
        kind: 'settle',
        reference: tx.reference,
        result: { providerReference: 'P-other' },
        at: at(31),
      });
      assert.is(second?.changed, false);
      assert.equal(second?.transaction, first?.transaction);
      assert.equal(await h.store.transactions.get(tx.reference), first?.transaction);
      assert.is(await h.balance(accountId), 10_200);
      assert.is((await h.ledger(accountId)).length, 2, 'settling writes no ledger entry');
    });

    it('an electricity vend keeps its key-change and bonus tokens in order; cable renewals type, months', async (h) => {
      const accountId = await h.account(20_000);
      const power = await h.reserved(
        h.purchase(accountId, {
          product: 'electricity',
          service: 'kaedc',
          recipient: '45012346666',
          details: { meterType: 'prepaid' },
        }),
      );
      const result = {
        token: '1111-2222-3333-4444-5555',
        units: '31.5 kWh',
        kctTokens: ['5161-0000-1111-2222-3333', '5161-4444-5555-6666-7777'],
        bonusTokens: ['9999-8888-7777-6666-5555'],
      };
      await h.store.ledger.post({ kind: 'settle', reference: power.reference, result, at: at(30) });
      assert.equal((await h.store.transactions.get(power.reference))?.result, result);
      const cable = await h.reserved(
        h.purchase(accountId, {
          product: 'cable',
          service: 'dstv',
          recipient: '1212121212',
          details: { packageCode: 'DSTV COMPACT', planLabel: 'DStv Compact', subscriptionType: 'renew', months: 3 },
        }),
      );
      assert.equal((await h.store.transactions.get(cable.reference))?.details, {
        packageCode: 'DSTV COMPACT',
        planLabel: 'DStv Compact',
        subscriptionType: 'renew',
        months: 3,
      });
    });

    it('settle and refund of an unknown reference are null', async (h) => {
      assert.is(await h.store.ledger.post({ kind: 'settle', reference: 'TX-none', result: {}, at: at(1) }), null);
      assert.is(
        await h.store.ledger.post({ kind: 'refund', reference: 'TX-none', reason: 'provider failed', at: at(1) }),
        null,
      );
    });

    it('refund fails the purchase and returns the full charge exactly once', async (h) => {
      const { accountId, tx } = await pending(h);
      const first = await h.store.ledger.post({
        kind: 'refund',
        reference: tx.reference,
        reason: 'provider rejected the number',
        at: at(30),
      });
      assert.is(first?.changed, true);
      assert.equal(first?.transaction, {
        ...tx,
        status: 'failed',
        failureReason: 'provider rejected the number',
        updatedAt: at(30),
      });
      assert.is(await h.balance(accountId), 20_000);
      const [refundEntry] = await h.ledger(accountId);
      assert.is(refundEntry?.kind, 'refund');
      assert.is(refundEntry?.amountKobo, 9_800);
      assert.is(refundEntry?.balanceAfterKobo, 20_000);
      assert.is(refundEntry?.reference, tx.reference);

      const second = await h.store.ledger.post({
        kind: 'refund',
        reference: tx.reference,
        reason: 'again',
        at: at(31),
      });
      assert.is(second?.changed, false);
      assert.is(second?.transaction.failureReason, 'provider rejected the number');
      assert.is(await h.balance(accountId), 20_000);
      assert.is((await h.ledger(accountId)).filter((e) => e.kind === 'refund').length, 1);
    });

    it("a purchase's entries: its debit, then refund and balance after; none of another account or mode", async (h) => {
      const { accountId, tx } = await pending(h);
      await h.reserved(h.purchase(accountId, { chargedKobo: kobo(1_000) }));
      assert.equal(
        (await h.store.wallet.ledgerOf(accountId, 'live', tx.reference)).map((e) => [
          e.kind,
          e.amountKobo,
          e.balanceAfterKobo,
        ]),
        [['debit', -9_800, 10_200]],
      );
      await h.store.ledger.post({ kind: 'refund', reference: tx.reference, reason: 'failed', at: at(30) });
      assert.equal(
        (await h.store.wallet.ledgerOf(accountId, 'live', tx.reference)).map((e) => [
          e.kind,
          e.amountKobo,
          e.balanceAfterKobo,
        ]),
        [
          ['debit', -9_800, 10_200],
          ['refund', 9_800, 19_000],
        ],
        'the refund, and the balance right after it (another purchase came between)',
      );
      const other = await h.account();
      assert.equal(await h.store.wallet.ledgerOf(other, 'live', tx.reference), []);
      assert.equal(await h.store.wallet.ledgerOf(accountId, 'test', tx.reference), []);
    });

    it('concurrent refunds of one purchase refund once', async (h) => {
      const { accountId, tx } = await pending(h);
      const results = await Promise.all(
        Array.from({ length: 8 }, () =>
          h.store.ledger.post({ kind: 'refund', reference: tx.reference, reason: 'failed', at: at(30) }),
        ),
      );
      assert.is(results.filter((r) => r?.changed).length, 1);
      assert.is(await h.balance(accountId), 20_000);
      assert.is((await h.ledger(accountId)).filter((e) => e.kind === 'refund').length, 1);
    });

    it('a refund restores the charge even after the wallet moved on', async (h) => {
      const { accountId, tx } = await pending(h);
      await h.reserved(h.purchase(accountId, { chargedKobo: kobo(10_000) }));
      assert.is(await h.balance(accountId), 200);
      await h.store.ledger.post({ kind: 'refund', reference: tx.reference, reason: 'failed', at: at(30) });
      assert.is(await h.balance(accountId), 10_000);
    });

    it('refund after settle changes nothing', async (h) => {
      const { accountId, tx } = await pending(h);
      await h.store.ledger.post({
        kind: 'settle',
        reference: tx.reference,
        result: { providerReference: 'P-1' },
        at: at(30),
      });
      const refund = await h.store.ledger.post({
        kind: 'refund',
        reference: tx.reference,
        reason: 'too late',
        at: at(31),
      });
      assert.is(refund?.changed, false);
      assert.is(refund?.transaction.status, 'success');
      assert.is(refund?.transaction.failureReason, null);
      assert.is(await h.balance(accountId), 10_200);
      assert.is((await h.ledger(accountId)).filter((e) => e.kind === 'refund').length, 0);
    });

    it('settle after refund changes nothing', async (h) => {
      const { accountId, tx } = await pending(h);
      await h.store.ledger.post({ kind: 'refund', reference: tx.reference, reason: 'failed', at: at(30) });
      const settle = await h.store.ledger.post({
        kind: 'settle',
        reference: tx.reference,
        result: { providerReference: 'P-late' },
        at: at(31),
      });
      assert.is(settle?.changed, false);
      assert.is(settle?.transaction.status, 'failed');
      assert.is(settle?.transaction.result, null);
      assert.is(await h.balance(accountId), 20_000);
    });

    it('a settle racing a refund: exactly one wins and the money matches the winner', async (h) => {
      const { accountId, tx } = await pending(h);
      const [settled, refunded] = await Promise.all([
        h.store.ledger.post({
          kind: 'settle',
          reference: tx.reference,
          result: { providerReference: 'P-1' },
          at: at(30),
        }),
        h.store.ledger.post({ kind: 'refund', reference: tx.reference, reason: 'failed', at: at(30) }),
      ]);
      assert.is(Number(settled?.changed) + Number(refunded?.changed), 1);
      const final = await h.store.transactions.get(tx.reference);
      const refunds = (await h.ledger(accountId)).filter((e) => e.kind === 'refund').length;
      assert.is(final?.status, settled?.changed ? 'success' : 'failed');
      assert.is(refunds, settled?.changed ? 0 : 1);
      assert.is(await h.balance(accountId), settled?.changed ? 10_200 : 20_000);
    });
  });

  define('wallet reverse', (it) => {
    it('a delivered purchase is reversed once: state reversed, one refund of the full charge', async (h) => {
      const accountId = await h.account(50_000);
      const tx = await h.reserved(h.purchase(accountId));
      await h.store.ledger.post({ kind: 'settle', reference: tx.reference, result: { token: 'T' }, at: at(20) });
      const first = await h.store.ledger.post({
        kind: 'reverse',
        reference: tx.reference,
        reason: 'reversed by the provider',
        at: at(30),
      });
      assert.is(first?.changed, true);
      assert.is(first?.transaction.status, 'reversed');
      assert.is(first?.transaction.failureReason, 'reversed by the provider');
      assert.equal(first?.transaction.updatedAt, at(30));
      assert.is(await h.balance(accountId), 50_000, 'the charge came back');
      const again = await Promise.all([
        h.store.ledger.post({ kind: 'reverse', reference: tx.reference, reason: 'again', at: at(40) }),
        h.store.ledger.post({ kind: 'reverse', reference: tx.reference, reason: 'again', at: at(40) }),
      ]);
      assert.ok(again.every((r) => r?.changed === false && r.transaction.status === 'reversed'));
      const refunds = (await h.ledger(accountId)).filter((e) => e.kind === 'refund');
      assert.equal(
        refunds.map((e) => [e.reference, e.amountKobo]),
        [[tx.reference, 9_800]],
      );
    });

    it('only a delivered purchase can be reversed; settle and refund cannot touch a reversed one', async (h) => {
      const accountId = await h.account(50_000);
      const pending = await h.reserved(h.purchase(accountId));
      const failed = await h.reserved(h.purchase(accountId));
      await h.store.ledger.post({ kind: 'refund', reference: failed.reference, reason: 'declined', at: at(20) });
      for (const reference of [pending.reference, failed.reference]) {
        const result = await h.store.ledger.post({ kind: 'reverse', reference, reason: 'no', at: at(30) });
        assert.is(result?.changed, false);
      }
      assert.is((await h.store.transactions.get(pending.reference))?.status, 'pending');
      assert.is((await h.store.transactions.get(failed.reference))?.status, 'failed');
      assert.is(await h.store.ledger.post({ kind: 'reverse', reference: 'TX-none', reason: 'no', at: at(30) }), null);

      const delivered = await h.reserved(h.purchase(accountId));
      await h.store.ledger.post({ kind: 'settle', reference: delivered.reference, result: {}, at: at(20) });
      await h.store.ledger.post({ kind: 'reverse', reference: delivered.reference, reason: 'reversal', at: at(30) });
      assert.is(
        (
          await h.store.ledger.post({
            kind: 'refund',
            reference: delivered.reference,
            reason: 'late failure',
            at: at(40),
          })
        )?.changed,
        false,
      );
      assert.is(
        (await h.store.ledger.post({ kind: 'settle', reference: delivered.reference, result: {}, at: at(40) }))
          ?.changed,
        false,
      );
      assert.is((await h.store.transactions.get(delivered.reference))?.status, 'reversed');
    });

    it('every move the state machine forbids is refused, moving no money; every move it allows is made', async (h) => {
      const accountId = await h.account(500_000);
      const moves: Record<
        Exclude<TransactionStatus, 'pending'>,
        (reference: string) => Promise<{ changed: boolean } | null>
      > = {
        success: (reference) =>
          h.store.ledger.post({ kind: 'settle', reference, result: { providerReference: 'P-late' }, at: at(50) }),
        failed: (reference) => h.store.ledger.post({ kind: 'refund', reference, reason: 'late failure', at: at(50) }),
        reversed: (reference) =>
          h.store.ledger.post({ kind: 'reverse', reference, reason: 'late reversal', at: at(50) }),
      };
      /** A purchase brought to `state` by the allowed moves only. */
      const inState = async (state: TransactionStatus): Promise<TransactionRecord> => {
        const tx = await h.reserved(h.purchase(accountId));
        if (state === 'success' || state === 'reversed')
          await h.store.ledger.post({
            kind: 'settle',
            reference: tx.reference,
            result: { providerReference: 'P-1' },
            at: at(20),
          });
        if (state === 'failed')
          await h.store.ledger.post({ kind: 'refund', reference: tx.reference, reason: 'declined', at: at(20) });
        if (state === 'reversed')
          await h.store.ledger.post({ kind: 'reverse', reference: tx.reference, reason: 'undone', at: at(30) });
        const now = await h.store.transactions.get(tx.reference);
        assert.is(now?.status, state);
        return now!;
      };
      const states = Object.keys(TRANSITIONS) as TransactionStatus[];
      let checked = 0;
      for (const from of states) {
        for (const to of Object.keys(moves) as (keyof typeof moves)[]) {
          const tx = await inState(from);
          const balanceBefore = await h.balance(accountId);
          const entriesBefore = (await h.ledger(accountId)).length;
          const result = await moves[to](tx.reference);
          const after = await h.store.transactions.get(tx.reference);
          if (canMove(from, to)) {
            assert.is(result?.changed, true, `${from} -> ${to} is allowed`);
            assert.is(after?.status, to);
          } else {
            assert.is(result?.changed, false, `${from} -> ${to} is refused`);
            assert.equal(after, tx, `${from} -> ${to} leaves the purchase as it was`);
            assert.is(await h.balance(accountId), balanceBefore, `${from} -> ${to} moves no money`);
            assert.is((await h.ledger(accountId)).length, entriesBefore, `${from} -> ${to} writes no entry`);
            checked += 1;
          }
        }
      }
      // 4 states x 3 target moves, less the 3 allowed ones (pending->success, pending->failed, success->reversed).
      assert.is(checked, 9);
    });
  });

  define('recovery scans', (it) => {
    it('recordAttempt updates a pending purchase only', async (h) => {
      const accountId = await h.account(50_000);
      const open = await h.reserved(h.purchase(accountId));
      const done = await h.reserved(h.purchase(accountId));
      await h.store.ledger.post({ kind: 'settle', reference: done.reference, result: {}, at: at(20) });
      const next = { attempts: 3, nextAttemptAt: at(600), needsAttention: true, at: at(120) };
      await h.store.wallet.recordAttempt(open.reference, next);
      await h.store.wallet.recordAttempt(done.reference, next);
      await h.store.wallet.recordAttempt('TX-none', next);
      assert.equal(await h.store.transactions.get(open.reference), {
        ...open,
        attempts: 3,
        nextAttemptAt: at(600),
        needsAttention: true,
        updatedAt: at(120),
      });
      const settled = await h.store.transactions.get(done.reference);
      assert.is(settled?.attempts, 0);
      assert.is(settled?.needsAttention, false);
      assert.equal(settled?.updatedAt, at(20));
    });

    it('recordAttempt never takes the attempts back (a core whose claim lapsed writes late)', async (h) => {
      const accountId = await h.account(50_000);
      const tx = await h.reserved(h.purchase(accountId));
      await h.store.wallet.recordAttempt(tx.reference, {
        attempts: 4,
        nextAttemptAt: at(600),
        needsAttention: false,
        at: at(120),
      });
      await h.store.wallet.recordAttempt(tx.reference, {
        attempts: 3,
        nextAttemptAt: at(90),
        needsAttention: false,
        at: at(130),
      });
      const after = await h.store.transactions.get(tx.reference);
      assert.equal([after?.attempts, after?.nextAttemptAt], [4, at(600)]);
    });

    it('claimAttempt takes a due purchase once: attempts up by one, due again when the lease ends', async (h) => {
      const accountId = await h.account(50_000);
      const tx = await h.reserved(h.purchase(accountId, { nextAttemptAt: at(60) }));
      const claim = { dueBy: at(100), attempts: 0, leaseUntil: at(160), at: at(100) };
      const claims = await Promise.all([1, 2, 3].map(() => h.store.wallet.claimAttempt(tx.reference, claim)));
      const won = claims.filter((c) => c !== null);
      assert.is(won.length, 1, 'one claim of three wins');
      assert.equal(won[0], { ...tx, attempts: 1, nextAttemptAt: at(160), updatedAt: at(100) });
      assert.equal(await h.store.transactions.get(tx.reference), won[0]);
      assert.equal(
        (await h.store.transactions.listDuePending(at(159), 1_000)).filter((t) => t.reference === tx.reference),
        [],
        'not due while the lease holds',
      );
      // A claim that saw an older count, or a purchase not yet due or no longer pending, matches nothing.
      assert.is(
        await h.store.wallet.claimAttempt(tx.reference, { ...claim, dueBy: at(200) }),
        null,
        'attempts moved on',
      );
      assert.is(
        await h.store.wallet.claimAttempt(tx.reference, { ...claim, dueBy: at(159), attempts: 1 }),
        null,
        'not due yet',
      );
      assert.is(
        (await h.store.wallet.claimAttempt(tx.reference, { ...claim, dueBy: at(160), attempts: 1 }))?.attempts,
        2,
        'due at the lease end',
      );
      await h.store.ledger.post({ kind: 'settle', reference: tx.reference, result: {}, at: at(170) });
      assert.is(
        await h.store.wallet.claimAttempt(tx.reference, { ...claim, dueBy: at(900), attempts: 2 }),
        null,
        'final',
      );
      assert.is(await h.store.wallet.claimAttempt('TX-none', claim), null, 'unknown');
    });

    it('two recovery passes running at once query the provider once per due transaction', async (h) => {
      const accountId = await h.account(100_000);
      const ours = new Set<string>();
      for (let i = 0; i < 6; i++)
        ours.add((await h.reserved(h.purchase(accountId, { nextAttemptAt: at(50 + i) }))).reference);
      const queried = new Map<string, number>();
      const sandbox = createSandbox();
      const providers = {
        ...sandbox,
        airtime: {
          ...sandbox.airtime,
          async query(request: ProviderRequest): Promise<ProviderOutcome> {
            queried.set(request.reference, (queried.get(request.reference) ?? 0) + 1);
            // The other pass runs while this one waits, as another core would.
            await new Promise((resolve) => setTimeout(resolve, 5));
            return { kind: 'unknown', reason: 'still processing' };
          },
        },
      };
      // Two cores: one store, each its own in-flight set and worker.
      const core = (): PurchaseDeps => ({
        store: h.store,
        providers: { live: providers, test: providers },
        clock: () => at(100),
        providerTimeoutMs: 1_000,
        inFlight: new Set(),
        background: new Background(),
        log: () => {},
      });
      const workers = [
        createRecoveryWorker(core(), { intervalMs: 60_000 }),
        createRecoveryWorker(core(), { intervalMs: 60_000 }),
      ];
      await Promise.all(workers.map((worker) => worker.runOnce(at(100))));
      assert.equal(
        [...ours].map((reference) => queried.get(reference) ?? 0),
        [1, 1, 1, 1, 1, 1],
        'each queried exactly once',
      );
      for (const reference of ours) {
        const tx = await h.store.transactions.get(reference);
        assert.equal([tx?.status, tx?.attempts], ['pending', 1], `${reference} counts one attempt`);
      }
    });

    it('listDuePending returns due pending purchases, oldest due first, at most limit', async (h) => {
      const accountId = await h.account(100_000);
      const later = await h.reserved(h.purchase(accountId, { nextAttemptAt: at(100) }));
      const sooner = await h.reserved(h.purchase(accountId, { nextAttemptAt: at(50) }));
      const notYet = await h.reserved(h.purchase(accountId, { nextAttemptAt: at(200) }));
      const settled = await h.reserved(h.purchase(accountId, { nextAttemptAt: at(10) }));
      const refunded = await h.reserved(h.purchase(accountId, { nextAttemptAt: at(20) }));
      await h.store.ledger.post({ kind: 'settle', reference: settled.reference, result: {}, at: at(11) });
      await h.store.ledger.post({ kind: 'refund', reference: refunded.reference, reason: 'failed', at: at(21) });
      const refs = (txs: TransactionRecord[]) => txs.map((t) => t.reference);

      assert.equal(refs(await h.store.transactions.listDuePending(at(150), 10)), [sooner.reference, later.reference]);
      assert.equal(
        refs(await h.store.transactions.listDuePending(at(100), 10)),
        [sooner.reference, later.reference],
        'due at exactly now',
      );
      assert.equal(refs(await h.store.transactions.listDuePending(at(150), 1)), [sooner.reference]);
      assert.equal(await h.store.transactions.listDuePending(at(5), 10), []);
      assert.equal(refs(await h.store.transactions.listDuePending(at(1_000), 10)), [
        sooner.reference,
        later.reference,
        notYet.reference,
      ]);

      await h.store.wallet.recordAttempt(sooner.reference, {
        attempts: 1,
        nextAttemptAt: at(500),
        needsAttention: false,
        at: at(150),
      });
      assert.equal(
        refs(await h.store.transactions.listDuePending(at(150), 10)),
        [later.reference],
        'a recorded attempt postpones it',
      );
    });
  });

  define('pending list and audit', (it) => {
    it('listPending pages every pending purchase oldest first, or only those flagged for a person', async (h) => {
      const accountId = await h.account(200_000);
      const made: TransactionRecord[] = [];
      for (let i = 0; i < 7; i++) made.push(await h.reserved(h.purchase(accountId, { createdAt: at(100 + i) })));
      await h.store.ledger.post({ kind: 'settle', reference: made[1]!.reference, result: {}, at: at(200) });
      await h.store.ledger.post({ kind: 'refund', reference: made[2]!.reference, reason: 'declined', at: at(200) });
      for (const tx of [made[3]!, made[5]!]) {
        await h.store.wallet.recordAttempt(tx.reference, {
          attempts: 9,
          nextAttemptAt: at(900),
          needsAttention: true,
          at: at(300),
        });
      }
      const refs = (txs: TransactionRecord[]) => txs.map((t) => t.reference);
      const pending = await readAll((page) => h.store.transactions.listPending({ needsAttentionOnly: false }, page), 2);
      assert.equal(
        refs(pending),
        [0, 3, 4, 5, 6].map((i) => made[i]!.reference),
      );
      const flagged = await readAll((page) => h.store.transactions.listPending({ needsAttentionOnly: true }, page), 1);
      assert.equal(refs(flagged), [made[3]!.reference, made[5]!.reference]);
      assert.ok(flagged.every((t) => t.needsAttention && t.attempts === 9));
      const audit = await h.store.wallet.audit();
      assert.ok(audit.pendingCount >= 5, 'the audit counts the pending purchases');
      assert.ok(audit.needsAttentionCount >= 2, 'and those flagged for a person');
    });

    it('pendingSummary counts the pending purchases, those flagged for a person, and the oldest one', async (h) => {
      // An adapter may share its database between tests: compare with what was there before.
      const before = await h.store.transactions.pendingSummary();
      if (before.count === 0) assert.is(before.oldestCreatedAt, null, 'nothing pending has no oldest');
      const accountId = await h.account(200_000);
      const oldest = await h.reserved(h.purchase(accountId, { createdAt: at(-500) }));
      const flagged = await h.reserved(h.purchase(accountId, { createdAt: at(-400) }));
      const settled = await h.reserved(h.purchase(accountId, { createdAt: at(-900) }));
      const refunded = await h.reserved(h.purchase(accountId, { createdAt: at(-800) }));
      await h.store.ledger.post({ kind: 'settle', reference: settled.reference, result: {}, at: at(20) });
      await h.store.ledger.post({ kind: 'refund', reference: refunded.reference, reason: 'declined', at: at(20) });
      await h.store.wallet.recordAttempt(flagged.reference, {
        attempts: 3,
        nextAttemptAt: at(900),
        needsAttention: true,
        at: at(30),
      });

      const after = await h.store.transactions.pendingSummary();
      assert.is(after.count - before.count, 2, 'the two still pending are counted, not the settled or refunded ones');
      assert.is(
        after.needsAttentionCount - before.needsAttentionCount,
        1,
        'the flagged one is counted as needing a person',
      );
      assert.ok(
        after.oldestCreatedAt !== null && after.oldestCreatedAt.getTime() <= oldest.createdAt.getTime(),
        'the oldest pending is at least as old as ours',
      );
      if (before.count === 0)
        assert.equal(after.oldestCreatedAt, oldest.createdAt, 'a final transaction is never the oldest pending one');

      await h.store.ledger.post({ kind: 'settle', reference: oldest.reference, result: {}, at: at(40) });
      await h.store.ledger.post({ kind: 'refund', reference: flagged.reference, reason: 'declined', at: at(40) });
      const done = await h.store.transactions.pendingSummary();
      assert.is(done.count, before.count, 'settled and refunded ones leave the summary');
      assert.is(done.needsAttentionCount, before.needsAttentionCount);
    });

    it('the audit counts what it read and finds nothing after purchases, settlements and refunds', async (h) => {
      const first = await h.account(100_000);
      const second = await h.account(30_000);
      const a = await h.reserved(h.purchase(first));
      const b = await h.reserved(h.purchase(first));
      await h.reserved(h.purchase(second));
      await h.store.ledger.post({
        kind: 'settle',
        reference: a.reference,
        result: { providerReference: 'x' },
        at: at(20),
      });
      await h.store.ledger.post({ kind: 'refund', reference: b.reference, reason: 'declined', at: at(20) });
      const audit = await h.store.wallet.audit();
      assert.ok(audit.accountsChecked >= 2, 'both accounts were checked');
      assert.ok(audit.transactionsChecked >= 3, 'the three purchases were checked');
      // 2 credits + 3 debits + 1 refund, at least (an adapter may share its database between tests).
      assert.ok(audit.entriesChecked >= 6);
      assert.equal(audit.violations, []);
    });
  });

  define('test mode', (it) => {
    it('a test credit fills the test wallet only; each wallet lists only its own entries', async (h) => {
      const accountId = await h.account(50_000);
      const credited = await h.store.ledger.post({
        kind: 'credit',
        credit: {
          accountId,
          mode: 'test',
          amountKobo: kobo(7_000),
          reference: 'CR-T',
          memo: 'test money',
          at: at(3),
        },
      });
      assert.is(credited?.balanceKobo, 7_000);
      assert.is(credited?.entry.mode, 'test');
      assert.is(credited?.entry.balanceAfterKobo, 7_000, 'a test entry runs on the test balance');
      assert.is(await h.balance(accountId, 'live'), 50_000, 'the live balance is untouched');
      assert.is(await h.balance(accountId, 'test'), 7_000);
      assert.equal(
        (await h.ledger(accountId, 10, 'test')).map((e) => e.reference),
        ['CR-T'],
      );
      assert.is((await h.ledger(accountId, 10, 'live')).length, 1, 'the live ledger has only its opening credit');
    });

    it('a test purchase debits the test wallet, and its refund goes back there; live is untouched', async (h) => {
      const accountId = await h.account(50_000);
      await h.creditTest(accountId, 20_000);
      const tx = await h.reserved(h.purchase(accountId, { mode: 'test' }));
      assert.is(tx.mode, 'test');
      assert.is(tx.balanceAfterKobo, 20_000 - 9_800);
      assert.is(await h.balance(accountId, 'test'), 20_000 - 9_800);
      assert.is(await h.balance(accountId, 'live'), 50_000);
      const refunded = await h.store.ledger.post({
        kind: 'refund',
        reference: tx.reference,
        reason: 'failed upstream',
        at: at(30),
      });
      assert.is(refunded?.changed, true);
      assert.is(await h.balance(accountId, 'test'), 20_000);
      assert.is(await h.balance(accountId, 'live'), 50_000);
      assert.equal(
        (await h.ledger(accountId, 10, 'test')).map((e) => e.kind),
        ['refund', 'debit', 'credit'],
      );
      assert.equal(
        (await h.ledger(accountId, 10, 'live')).map((e) => e.kind),
        ['credit'],
      );
    });

    it('a test purchase is refused on the test balance, whatever the live wallet holds, and the reverse', async (h) => {
      const rich = await h.account(1_000_000);
      assert.equal(await h.store.ledger.post({ kind: 'reserve', tx: h.purchase(rich, { mode: 'test' }) }), {
        outcome: 'insufficient',
        balanceKobo: kobo(0),
      });
      const testOnly = await h.account();
      await h.creditTest(testOnly, 1_000_000);
      assert.equal(await h.store.ledger.post({ kind: 'reserve', tx: h.purchase(testOnly, { mode: 'live' }) }), {
        outcome: 'insufficient',
        balanceKobo: kobo(0),
      });
      assert.is(await h.balance(testOnly, 'test'), 1_000_000);
    });

    it('an idempotency key is scoped to the account and mode: the same key makes one purchase in each', async (h) => {
      const accountId = await h.account(50_000);
      await h.creditTest(accountId, 50_000);
      const keyed = { requestId: 'order-1', requestHash: 'hash-1' };
      const live = await h.reserved(h.purchase(accountId, { ...keyed, mode: 'live' }));
      const test = await h.reserved(h.purchase(accountId, { ...keyed, mode: 'test' }));
      assert.is.not(live.reference, test.reference);
      const again = await h.store.ledger.post({
        kind: 'reserve',
        tx: h.purchase(accountId, { ...keyed, mode: 'test' }),
      });
      assert.is(again.outcome, 'duplicate');
      assert.is(
        again.outcome === 'duplicate' && again.transaction.reference,
        test.reference,
        'a replay in test finds the test purchase',
      );
      const liveAgain = await h.store.ledger.post({
        kind: 'reserve',
        tx: h.purchase(accountId, { ...keyed, mode: 'live' }),
      });
      assert.is(liveAgain.outcome === 'duplicate' && liveAgain.transaction.reference, live.reference);
      assert.is(await h.balance(accountId, 'live'), 50_000 - 9_800);
      assert.is(await h.balance(accountId, 'test'), 50_000 - 9_800);
    });

    it("each mode's history holds only its own purchases, and a purchase reads back with its mode", async (h) => {
      const accountId = await h.account(100_000);
      await h.creditTest(accountId, 100_000);
      const live = await h.reserved(h.purchase(accountId, { mode: 'live', createdAt: at(10) }));
      const test1 = await h.reserved(h.purchase(accountId, { mode: 'test', createdAt: at(11) }));
      const test2 = await h.reserved(h.purchase(accountId, { mode: 'test', createdAt: at(12) }));
      assert.equal(
        (await h.store.transactions.listByAccount(accountId, 'test', { limit: 10 })).items.map((t) => t.reference),
        [test2.reference, test1.reference],
      );
      assert.equal(
        (await h.store.transactions.listByAccount(accountId, 'live', { limit: 10 })).items.map((t) => t.reference),
        [live.reference],
      );
      assert.is((await h.store.transactions.get(test1.reference))?.mode, 'test');
      assert.is((await h.store.transactions.get(live.reference))?.mode, 'live');
      // Paging stays within the mode.
      const first = await h.store.transactions.listByAccount(accountId, 'test', { limit: 1 });
      assert.equal(
        first.items.map((t) => t.reference),
        [test2.reference],
      );
      const second = await h.store.transactions.listByAccount(accountId, 'test', { limit: 1, after: first.next! });
      assert.equal(
        second.items.map((t) => t.reference),
        [test1.reference],
      );
      assert.is(second.next, undefined);
    });

    it('keys keep their mode', async (h) => {
      const accountId = await h.account();
      await h.store.keys.insert({
        publicKey: 'pk_test_one',
        accountId,
        secretHash: 'h',
        allowedIps: [],
        revoked: false,
        mode: 'test',
        createdAt: at(1),
      });
      await h.store.keys.insert({
        publicKey: 'pk_live_one',
        accountId,
        secretHash: 'h',
        allowedIps: [],
        revoked: false,
        mode: 'live',
        createdAt: at(2),
      });
      assert.is((await h.store.keys.find('pk_test_one'))?.mode, 'test');
      assert.is((await h.store.keys.find('pk_live_one'))?.mode, 'live');
      assert.equal(
        (await h.store.keys.listByAccount(accountId)).map((k) => [k.publicKey, k.mode]),
        [
          ['pk_live_one', 'live'],
          ['pk_test_one', 'test'],
        ],
      );
    });

    it('the audit counts each mode apart', async (h) => {
      const accountId = await h.account(100_000);
      await h.creditTest(accountId, 100_000);
      const before = await h.store.wallet.audit();
      await h.reserved(h.purchase(accountId, { mode: 'live' }));
      const failed = await h.reserved(h.purchase(accountId, { mode: 'test' }));
      await h.reserved(h.purchase(accountId, { mode: 'test' }));
      await h.store.ledger.post({ kind: 'refund', reference: failed.reference, reason: 'failed upstream', at: at(40) });
      const after = await h.store.wallet.audit();
      assert.is(after.modes.live.transactionsChecked - before.modes.live.transactionsChecked, 1);
      assert.is(after.modes.test.transactionsChecked - before.modes.test.transactionsChecked, 2);
      // Since `before`: live, one debit; test, two debits and a refund.
      assert.is(after.modes.live.entriesChecked - before.modes.live.entriesChecked, 1);
      assert.is(after.modes.test.entriesChecked - before.modes.test.entriesChecked, 3);
      assert.is(after.modes.test.pendingCount - before.modes.test.pendingCount, 1);
      assert.is(after.modes.live.pendingCount - before.modes.live.pendingCount, 1);
      assert.is(after.pendingCount, after.modes.live.pendingCount + after.modes.test.pendingCount);
      assert.is(after.transactionsChecked, after.modes.live.transactionsChecked + after.modes.test.transactionsChecked);
    });
  });

  define('history paging', (it) => {
    it('transactions page newest first with no duplicates or gaps, and the last page has no next', async (h) => {
      const accountId = await h.account(1_000_000);
      const other = await h.account(1_000_000);
      const created: TransactionRecord[] = [];
      for (let i = 0; i < 23; i++) {
        // Three purchases share each second, so ties on created_at must page correctly.
        created.push(
          await h.reserved(h.purchase(accountId, { chargedKobo: kobo(100), createdAt: at(Math.floor(i / 3)) })),
        );
        await h.reserved(h.purchase(other, { chargedKobo: kobo(100), createdAt: at(i) }));
      }
      for (const limit of [1, 5, 7, 23, 50]) {
        const listed = await readAll((page) => h.store.transactions.listByAccount(accountId, 'live', page), limit);
        const refs = listed.map((t) => t.reference);
        assert.is(new Set(refs).size, refs.length, `no duplicates at limit ${limit}`);
        assert.equal([...refs].sort(), created.map((t) => t.reference).sort(), `no gaps at limit ${limit}`);
        for (let i = 1; i < listed.length; i++) {
          assert.ok(listed[i - 1]!.createdAt.getTime() >= listed[i]!.createdAt.getTime(), 'newest first');
        }
        assert.equal(
          listed.find((t) => t.reference === created[4]!.reference),
          created[4],
        );
      }
    });

    it("a bulk SMS on a history page carries its recipients' count, not the numbers; get still has them", async (h) => {
      const accountId = await h.account(1_000_000);
      const recipients = Array.from({ length: 250 }, (_, i) => `0803${String(1_000_000 + i).padStart(7, '0')}`);
      const details = { sender: 'Shop', message: 'Hello', recipients, pages: 1 };
      const sms = await h.reserved(
        h.purchase(accountId, { product: 'bulksms', service: 'sms', recipient: '', details, createdAt: at(1) }),
      );
      const airtime = await h.reserved(h.purchase(accountId, { createdAt: at(2) }));
      const listed = { ...sms, details: { sender: 'Shop', message: 'Hello', pages: 1, recipientCount: 250 } };
      const whole = await h.store.transactions.listByAccount(accountId, 'live', { limit: 10 });
      assert.equal(whole.items, [airtime, listed]);
      // The first page and the pages after a cursor are read by different statements.
      const first = await h.store.transactions.listByAccount(accountId, 'live', { limit: 1 });
      const second = await h.store.transactions.listByAccount(accountId, 'live', { limit: 1, after: first.next! });
      assert.equal([...first.items, ...second.items], [airtime, listed]);
      assert.equal(
        (await h.store.transactions.get(sms.reference))?.details,
        details,
        'the purchase keeps every number',
      );
    });

    it('a history that fills its pages exactly ends without a next cursor', async (h) => {
      const accountId = await h.account(1_000_000);
      for (let i = 0; i < 21; i++)
        await h.reserved(h.purchase(accountId, { chargedKobo: kobo(100), createdAt: at(i) }));
      const first = await h.store.transactions.listByAccount(accountId, 'live', { limit: 7 });
      const second = await h.store.transactions.listByAccount(accountId, 'live', { limit: 7, after: first.next! });
      const third = await h.store.transactions.listByAccount(accountId, 'live', { limit: 7, after: second.next! });
      assert.equal([first.items.length, second.items.length, third.items.length], [7, 7, 7]);
      assert.ok(first.next && second.next);
      assert.is(third.next, undefined);
      assert.equal(first.items[0]?.createdAt, at(20));
      assert.equal(third.items[6]?.createdAt, at(0));
    });

    it('a period is read from its end, page by page, and the read stops at its start', async (h) => {
      const accountId = await h.account(1_000_000);
      const created: TransactionRecord[] = [];
      for (let i = 0; i < 30; i++) {
        // Two purchases a second, so the period's edges fall on ties.
        created.push(
          await h.reserved(h.purchase(accountId, { chargedKobo: kobo(100), createdAt: at(Math.floor(i / 2)) })),
        );
      }
      const [from, to] = [at(4), at(11)];
      const read: TransactionRecord[] = [];
      let pages = 0;
      let after = transactionCursorBefore(to);
      for (;;) {
        const page = await h.store.transactions.listByAccount(accountId, 'live', { limit: 4, after });
        pages += 1;
        const inPeriod = page.items.filter((t) => t.createdAt >= from);
        read.push(...inPeriod);
        if (inPeriod.length < page.items.length || page.next === undefined) break;
        after = page.next;
      }
      const expected = created.filter((t) => t.createdAt >= from && t.createdAt < to);
      assert.equal(
        read.map((t) => t.reference),
        expected
          .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.reference < b.reference ? 1 : -1))
          .map((t) => t.reference),
        'exactly the period, newest first',
      );
      assert.is(read.length, 14);
      assert.is(pages, 4, 'only the pages that hold the period, and the one that crosses its start');
    });

    it('an empty history is one empty page', async (h) => {
      const accountId = await h.account();
      assert.equal(await h.store.transactions.listByAccount(accountId, 'live', { limit: 10 }), { items: [] });
      assert.equal(await h.store.wallet.listLedger(accountId, 'live', { limit: 10 }), { items: [] });
    });

    it('the ledger pages newest first in the order entries were written', async (h) => {
      const accountId = await h.account();
      for (let amount = 1; amount <= 23; amount++) {
        await h.store.ledger.post({
          kind: 'credit',
          credit: {
            mode: 'live',
            accountId,
            amountKobo: kobo(amount),
            reference: `CR-${amount}`,
            memo: '',
            at: at(5),
          },
        });
      }
      for (const limit of [1, 4, 23, 100]) {
        const amounts = (await h.ledger(accountId, limit)).map((e) => e.amountKobo);
        assert.equal(
          amounts,
          Array.from({ length: 23 }, (_, i) => 23 - i),
          `ledger order at limit ${limit}`,
        );
      }
    });

    it('a forged cursor is refused with InvalidCursorError', async (h) => {
      const accountId = await h.account();
      for (const list of [
        () => h.store.transactions.listByAccount(accountId, 'live', { limit: 5, after: 'not a cursor!' }),
        () => h.store.wallet.listLedger(accountId, 'live', { limit: 5, after: 'bm9wZQ' }),
      ]) {
        let caught: unknown;
        try {
          await list();
        } catch (error) {
          caught = error;
        }
        assert.instance(caught, InvalidCursorError, 'a forged cursor is refused');
      }
    });
  });

  define('people', (it) => {
    const user = (h: Harness, overrides: Partial<UserRecord> = {}): UserRecord => ({
      userId: h.unique('usr'),
      email: `${h.unique('ada')}@example.com`,
      passwordHash: 'scrypt$hash',
      totpSecret: null,
      totpPendingSecret: null,
      totpLastStep: 0,
      recoveryCodeHashes: [],
      createdAt: at(100),
      ...overrides,
    });
    const invitation = (
      h: Harness,
      accountId: string,
      email: string,
      overrides: Partial<InvitationRecord> = {},
    ): InvitationRecord => ({
      tokenHash: h.unique('inv'),
      accountId,
      email,
      role: 'owner',
      invitedBy: 'operator',
      createdAt: at(0),
      expiresAt: at(72 * 3600),
      usedAt: null,
      revokedAt: null,
      ...overrides,
    });

    it("a person's turned-off holder mails are kept in place of the last, and read for several people", async (h) => {
      const accountId = await h.account();
      const [ada, obi] = [user(h), user(h, { email: `${h.unique('obi')}@example.com` })];
      for (const person of [ada, obi]) {
        const inv = invitation(h, accountId, person.email, { role: 'owner' });
        await h.store.people.insertInvitation(inv);
        await h.store.people.acceptInvitation(inv.tokenHash, person);
      }
      assert.equal(await h.store.notices.mailOptOuts([ada.userId, obi.userId]), new Map());
      await h.store.notices.setMailOptOuts(ada.userId, ['wallet_credited', 'wallet_debited'], at(1));
      await h.store.notices.setMailOptOuts(obi.userId, ['api_access_approved'], at(1));
      await h.store.notices.setMailOptOuts(ada.userId, ['wallet_debited'], at(2));
      const read = await h.store.notices.mailOptOuts([ada.userId, obi.userId, ada.userId]);
      assert.equal(read.get(ada.userId), ['wallet_debited'], 'the last choice, not both');
      assert.equal(read.get(obi.userId), ['api_access_approved']);
      await h.store.notices.setMailOptOuts(obi.userId, [], at(3));
      assert.is((await h.store.notices.mailOptOuts([obi.userId])).has(obi.userId), false, 'every mail on again');
    });

    it('an invitation is accepted once: the user is written and the invitation marked used', async (h) => {
      const accountId = await h.account();
      const invited = user(h);
      const inv = invitation(h, accountId, invited.email, { role: 'viewer' });
      await h.store.people.insertInvitation(inv);
      assert.equal(await h.store.people.findInvitation(inv.tokenHash), inv);
      assert.is(await h.store.people.findInvitation('no-such-hash'), null);
      assert.equal(await h.store.people.acceptInvitation(inv.tokenHash, invited), {
        outcome: 'accepted',
        user: invited,
        membership: {
          userId: invited.userId,
          accountId,
          role: 'viewer',
          disabled: false,
          createdAt: invited.createdAt,
        },
      });
      assert.equal((await h.store.people.findInvitation(inv.tokenHash))?.usedAt, invited.createdAt);
      assert.equal(await h.store.people.getUser(invited.userId), invited);
      assert.equal(await h.store.people.findUserByEmail(invited.email), invited);
      const again = user(h, { email: `${h.unique('other')}@example.com` });
      assert.equal(await h.store.people.acceptInvitation(inv.tokenHash, again), { outcome: 'invalid' });
      assert.is(await h.store.people.getUser(again.userId), null, 'a used invitation writes no user');
    });

    it('an expired or unknown invitation is invalid, and a taken email is refused; nothing is written', async (h) => {
      const accountId = await h.account();
      const late = user(h, { createdAt: at(72 * 3600) });
      const inv = invitation(h, accountId, late.email);
      await h.store.people.insertInvitation(inv);
      assert.equal(
        await h.store.people.acceptInvitation(inv.tokenHash, late),
        { outcome: 'invalid' },
        'at the expiry instant it is expired',
      );
      assert.is((await h.store.people.findInvitation(inv.tokenHash))?.usedAt, null);
      assert.equal(await h.store.people.acceptInvitation('unknown', user(h)), { outcome: 'invalid' });

      const first = user(h);
      const firstInv = invitation(h, accountId, first.email);
      await h.store.people.insertInvitation(firstInv);
      assert.is((await h.store.people.acceptInvitation(firstInv.tokenHash, first)).outcome, 'accepted');
      const twin = user(h, { email: first.email });
      const twinInv = invitation(h, accountId, first.email);
      await h.store.people.insertInvitation(twinInv);
      assert.equal(await h.store.people.acceptInvitation(twinInv.tokenHash, twin), { outcome: 'email_taken' });
      assert.is(
        (await h.store.people.findInvitation(twinInv.tokenHash))?.usedAt,
        null,
        'the refused invitation stays unused',
      );
    });

    it("an account's users list oldest first; updates change only what they name", async (h) => {
      const accountId = await h.account();
      const other = await h.account();
      const accepted: UserRecord[] = [];
      for (const [seconds, acct] of [
        [300, accountId],
        [100, accountId],
        [200, other],
      ] as const) {
        const u = user(h, { createdAt: at(seconds) });
        const inv = invitation(h, acct, u.email);
        await h.store.people.insertInvitation(inv);
        assert.is((await h.store.people.acceptInvitation(inv.tokenHash, u)).outcome, 'accepted');
        accepted.push(u);
      }
      assert.equal(
        (await h.store.people.listMembers(accountId)).map((m) => m.user.userId),
        [accepted[1]!.userId, accepted[0]!.userId],
      );
      const target = accepted[0]!;
      const changed = await h.store.people.updateUser(target.userId, { totpPendingSecret: 'PENDING' });
      assert.equal(changed, { ...target, totpPendingSecret: 'PENDING' });
      const on = await h.store.people.updateUser(target.userId, { totpSecret: 'SECRET', totpPendingSecret: null });
      assert.equal(on, { ...target, totpSecret: 'SECRET', totpPendingSecret: null });
      assert.is(await h.store.people.updateUser('usr_missing', { totpSecret: 'X' }), null);
    });

    it('under concurrency one invitation is accepted once and one TOTP step claimed once', async (h) => {
      const accountId = await h.account();
      const first = user(h);
      const second = user(h, { email: first.email });
      const inv = invitation(h, accountId, first.email, { role: 'viewer' });
      await h.store.people.insertInvitation(inv);
      // Two browsers submit the same invitation at the same moment, as two different new users.
      const results = await Promise.all([
        h.store.people.acceptInvitation(inv.tokenHash, first),
        h.store.people.acceptInvitation(inv.tokenHash, second),
      ]);
      assert.equal(results.map((r) => r.outcome).filter((o) => o === 'accepted').length, 1, 'accepted once');
      const users = [await h.store.people.getUser(first.userId), await h.store.people.getUser(second.userId)].filter(
        (u) => u !== null,
      );
      assert.is(users.length, 1, 'one user written');
      const claims = await Promise.all([1, 2, 3].map(() => h.store.people.claimTotpStep(users[0]!.userId, 5000)));
      assert.equal(claims.filter(Boolean).length, 1, 'one step, one sign-in');
    });

    it('one person in two accounts: a second invitation adds a membership; disabling one keeps another', async (h) => {
      const first = await h.account();
      const second = await h.account();
      const ada = user(h, { totpSecret: 'SECRET', recoveryCodeHashes: ['r1'] });
      const inv1 = invitation(h, first, ada.email, { role: 'owner' });
      await h.store.people.insertInvitation(inv1);
      assert.is((await h.store.people.acceptInvitation(inv1.tokenHash, ada)).outcome, 'accepted');
      // The same person (same userId) accepts an invitation of another account, later.
      const inv2 = invitation(h, second, ada.email, { role: 'viewer' });
      await h.store.people.insertInvitation(inv2);
      const joined = await h.store.people.acceptInvitation(
        inv2.tokenHash,
        { ...ada, passwordHash: 'ignored' },
        at(500),
      );
      assert.equal(joined, {
        outcome: 'accepted',
        user: ada,
        membership: { userId: ada.userId, accountId: second, role: 'viewer', disabled: false, createdAt: at(500) },
      });
      assert.equal(await h.store.people.getUser(ada.userId), ada, 'password and two-step sign-in unchanged');
      assert.equal(
        (await h.store.people.listMemberships(ada.userId)).map((m) => [m.accountId, m.role]),
        [
          [first, 'owner'],
          [second, 'viewer'],
        ],
      );
      assert.equal(
        (await h.store.people.listMembers(second)).map((m) => [m.user.email, m.membership.role]),
        [[ada.email, 'viewer']],
      );
      const off = await h.store.people.setMembershipDisabled(ada.userId, first, true);
      assert.is(off?.disabled, true);
      assert.is((await h.store.people.getMembership(ada.userId, first))?.disabled, true);
      assert.is((await h.store.people.getMembership(ada.userId, second))?.disabled, false, 'the other account goes on');
      assert.is(await h.store.people.getMembership(ada.userId, 'acct_nowhere'), null);
      assert.is(await h.store.people.setMembershipDisabled(ada.userId, 'acct_nowhere', true), null);
    });

    it('a disabled member invited again is enabled with the new role and keeps the date they joined', async (h) => {
      const accountId = await h.account();
      const bea = user(h);
      const inv = invitation(h, accountId, bea.email, { role: 'owner' });
      await h.store.people.insertInvitation(inv);
      await h.store.people.acceptInvitation(inv.tokenHash, bea);
      await h.store.people.setMembershipDisabled(bea.userId, accountId, true);
      const again = invitation(h, accountId, bea.email, { role: 'viewer' });
      await h.store.people.insertInvitation(again);
      const result = await h.store.people.acceptInvitation(again.tokenHash, bea, at(900));
      assert.equal(result, {
        outcome: 'accepted',
        user: bea,
        membership: { userId: bea.userId, accountId, role: 'viewer', disabled: false, createdAt: bea.createdAt },
      });
      assert.is((await h.store.people.listMembers(accountId)).length, 1, 'still one membership');
    });

    it('open invitations: oldest first, not used, revoked or expired ones; revoked ones cannot be used', async (h) => {
      const accountId = await h.account();
      const other = await h.account();
      const now = at(1000);
      const older = invitation(h, accountId, 'cy@example.com', { createdAt: at(10) });
      const newer = invitation(h, accountId, 'di@example.com', { createdAt: at(20), role: 'viewer' });
      const expired = invitation(h, accountId, 'ed@example.com', { expiresAt: at(999) });
      const elsewhere = invitation(h, other, 'cy@example.com');
      for (const one of [newer, older, expired, elsewhere]) await h.store.people.insertInvitation(one);
      assert.equal(
        (await h.store.people.listOpenInvitations(accountId, now)).map((one) => one.email),
        ['cy@example.com', 'di@example.com'],
      );
      assert.is(await h.store.people.revokeInvitations(accountId, 'cy@example.com', now), 1);
      assert.is(await h.store.people.revokeInvitations(accountId, 'cy@example.com', now), 0, 'revoked once');
      assert.is(await h.store.people.revokeInvitations(accountId, 'ed@example.com', now), 0, 'expired: nothing to do');
      assert.equal((await h.store.people.findInvitation(older.tokenHash))?.revokedAt, now);
      assert.equal(
        (await h.store.people.listOpenInvitations(accountId, now)).map((one) => one.email),
        ['di@example.com'],
      );
      assert.equal(
        (await h.store.people.listOpenInvitations(other, now)).map((one) => one.email),
        ['cy@example.com'],
        "another account's invitation of the same email stands",
      );
      const cy = user(h, { email: 'cy@example.com' });
      assert.equal(await h.store.people.acceptInvitation(older.tokenHash, cy, now), { outcome: 'invalid' });
      assert.is(await h.store.people.getUser(cy.userId), null, 'a revoked invitation writes nobody');
      const di = user(h, { email: 'di@example.com' });
      assert.is((await h.store.people.acceptInvitation(newer.tokenHash, di, now)).outcome, 'accepted');
      assert.equal(await h.store.people.listOpenInvitations(accountId, now), [], 'a used one is no longer open');
    });

    it('a TOTP step is claimed once, and never an earlier one', async (h) => {
      const accountId = await h.account();
      const u = user(h);
      const inv = invitation(h, accountId, u.email);
      await h.store.people.insertInvitation(inv);
      await h.store.people.acceptInvitation(inv.tokenHash, u);
      assert.is(await h.store.people.claimTotpStep(u.userId, 1000), true);
      assert.is(await h.store.people.claimTotpStep(u.userId, 1000), false, 'the same step again');
      assert.is(await h.store.people.claimTotpStep(u.userId, 999), false, 'an earlier step');
      assert.is(await h.store.people.claimTotpStep(u.userId, 1001), true);
      assert.is((await h.store.people.getUser(u.userId))?.totpLastStep, 1001);
    });

    it('users: recovery codes are set with the user and each is used once', async (h) => {
      const accountId = await h.account();
      const u = user(h);
      const inv = invitation(h, accountId, u.email);
      await h.store.people.insertInvitation(inv);
      await h.store.people.acceptInvitation(inv.tokenHash, u);
      assert.equal((await h.store.people.getUser(u.userId))?.recoveryCodeHashes, []);
      assert.is(await h.store.people.useRecoveryCode(u.userId, 'aaa'), false, 'none yet');
      const updated = await h.store.people.updateUser(u.userId, { recoveryCodeHashes: ['aaa', 'bbb', 'ccc'] });
      assert.equal(updated?.recoveryCodeHashes, ['aaa', 'bbb', 'ccc']);
      const [first, second] = await Promise.all([
        h.store.people.useRecoveryCode(u.userId, 'bbb'),
        h.store.people.useRecoveryCode(u.userId, 'bbb'),
      ]);
      assert.equal([first, second].sort(), [false, true], 'once, even twice at once');
      assert.is(await h.store.people.useRecoveryCode(u.userId, 'zzz'), false);
      assert.is(await h.store.people.useRecoveryCode('usr_nobody', 'aaa'), false);
      assert.equal((await h.store.people.getUser(u.userId))?.recoveryCodeHashes, ['aaa', 'ccc']);
      await h.store.people.updateUser(u.userId, { recoveryCodeHashes: [] });
      assert.is(await h.store.people.useRecoveryCode(u.userId, 'aaa'), false, 'cleared');
    });

    it('sessions: read back, touched forward only, deleted once, ended per user and by expiry', async (h) => {
      // Times relative to now, all in the future: MongoDB's TTL monitor deletes a session once
      // its absolute expiry has passed, so a fixed date in the past could vanish mid-test.
      const now = Date.now() - (Date.now() % 1000);
      const fromNow = (seconds: number) => new Date(now + seconds * 1000);
      const accountId = await h.account();
      const u = user(h);
      const inv = invitation(h, accountId, u.email);
      await h.store.people.insertInvitation(inv);
      await h.store.people.acceptInvitation(inv.tokenHash, u);
      const session = (seconds: number, stage: SessionRecord['stage'] = 'session'): SessionRecord => ({
        tokenHash: h.unique('ses'),
        stage,
        userId: u.userId,
        accountId,
        createdAt: fromNow(seconds),
        lastSeenAt: fromNow(seconds),
        absoluteExpiresAt: fromNow(seconds + 12 * 3600),
      });
      const a = session(1000);
      const b = session(2000, 'totp');
      const c = session(3000);
      for (const s of [a, b, c]) await h.store.people.insertSession(s);
      assert.equal(await h.store.people.findSession(b.tokenHash), b);
      assert.is(await h.store.people.findSession('nope'), null);
      assert.equal(await h.store.people.touchSession(a.tokenHash, fromNow(1500)), { ...a, lastSeenAt: fromNow(1500) });
      assert.equal(
        await h.store.people.touchSession(a.tokenHash, fromNow(1200)),
        { ...a, lastSeenAt: fromNow(1500) },
        'never moved back',
      );
      assert.is(await h.store.people.touchSession('nope', fromNow(1)), null);
      assert.is(await h.store.people.deleteSession(b.tokenHash), true);
      assert.is(await h.store.people.deleteSession(b.tokenHash), false, 'deleted once');
      // a was last seen at 1500, c at 3000: an idle bound of 2000 ends a only.
      assert.is(await h.store.people.deleteExpiredSessions(fromNow(0), fromNow(2000)), 1);
      assert.is(await h.store.people.findSession(a.tokenHash), null);
      assert.ok(await h.store.people.findSession(c.tokenHash));
      assert.is(await h.store.people.deleteUserSessions(u.userId), 1);
      assert.is(await h.store.people.findSession(c.tokenHash), null);
    });

    it('sessions move to another account; ending the sessions of one account leaves the others', async (h) => {
      const now = Date.now() - (Date.now() % 1000);
      const fromNow = (seconds: number) => new Date(now + seconds * 1000);
      const first = await h.account();
      const second = await h.account();
      const u = user(h);
      for (const [accountId, seconds] of [
        [first, 0],
        [second, 1],
      ] as const) {
        const inv = invitation(h, accountId, u.email);
        await h.store.people.insertInvitation(inv);
        await h.store.people.acceptInvitation(inv.tokenHash, u, at(seconds));
      }
      const session = (accountId: string): SessionRecord => ({
        tokenHash: h.unique('ses'),
        stage: 'session',
        userId: u.userId,
        accountId,
        createdAt: fromNow(10),
        lastSeenAt: fromNow(10),
        absoluteExpiresAt: fromNow(12 * 3600),
      });
      const one = session(first);
      const two = session(first);
      await h.store.people.insertSession(one);
      await h.store.people.insertSession(two);
      assert.equal(await h.store.people.setSessionAccount(two.tokenHash, second), { ...two, accountId: second });
      assert.equal(await h.store.people.findSession(two.tokenHash), { ...two, accountId: second });
      assert.is(await h.store.people.setSessionAccount('nope', second), null);
      assert.is(await h.store.people.deleteUserSessions(u.userId, first), 1, 'only the session acting for the first');
      assert.is(await h.store.people.findSession(one.tokenHash), null);
      assert.ok(await h.store.people.findSession(two.tokenHash));
    });
  });

  define('the audit log', (it) => {
    it('appends rows and lists them newest first, filtered and paged', async (h) => {
      const first = await h.store.auditLog.append({
        at: at(1),
        actor: 'cli',
        action: 'wallet.credit',
        target: 'ACC1',
        before: '{"balance":"0"}',
        after: '{"balance":"500000"}',
        address: null,
        note: 'opening float',
      });
      assert.equal(
        { ...first, id: '' },
        {
          id: '',
          at: at(1),
          actor: 'cli',
          action: 'wallet.credit',
          target: 'ACC1',
          before: '{"balance":"0"}',
          after: '{"balance":"500000"}',
          address: null,
          note: 'opening float',
        },
      );
      const second = await h.store.auditLog.append({
        at: at(2),
        actor: 'staff:ada@example.ng',
        action: 'routes.set',
        target: 'data/mtn',
        before: null,
        after: '["vtpass"]',
        address: '10.0.0.7',
        note: '',
      });
      const third = await h.store.auditLog.append({
        at: at(2),
        actor: 'cli',
        action: 'wallet.debit',
        target: 'ACC1',
        before: null,
        after: null,
        address: null,
        note: 'correction',
      });
      assert.ok(first.id < second.id, 'ids follow time');
      const all = await h.store.auditLog.list({ limit: 10 });
      assert.equal(
        all.filter((e) => [first.id, second.id, third.id].includes(e.id)).map((e) => e.at.getTime()),
        [at(2).getTime(), at(2).getTime(), at(1).getTime()],
        'newest first',
      );
      const byActor = await h.store.auditLog.list({ actor: 'cli', limit: 10 });
      assert.ok(byActor.every((e) => e.actor === 'cli'));
      assert.ok(byActor.some((e) => e.id === first.id) && byActor.some((e) => e.id === third.id));
      assert.ok(!byActor.some((e) => e.id === second.id));
      const area = await h.store.auditLog.list({ action: 'wallet.', target: 'ACC1', limit: 10 });
      assert.equal(area.map((e) => e.action).sort(), ['wallet.credit', 'wallet.debit']);
      assert.equal(await h.store.auditLog.list({ action: 'wallet', limit: 10 }), [], 'an exact action, no dot');
      assert.equal(await h.store.auditLog.list({ action: '.*', limit: 10 }), [], 'an area is text, never a pattern');
      const page1 = await h.store.auditLog.list({ target: 'ACC1', limit: 1 });
      const page2 = await h.store.auditLog.list({ target: 'ACC1', limit: 1, beforeId: page1[0]!.id });
      assert.is(page1.length, 1);
      assert.is(page2.length, 1);
      assert.not.equal(page1[0]!.id, page2[0]!.id);
      assert.equal(await h.store.auditLog.list({ target: 'ACC1', limit: 5, beforeId: page2[0]!.id }), []);
    });
  });

  define('staff and proposals', (it) => {
    const member = (staffId: string, email: string, setup: string | null): StaffMemberRecord => ({
      staffId,
      email,
      role: 'finance',
      passwordHash: '',
      totpSecret: 'JBSWY3DPEHPK3PXP',
      totpLastStep: 0,
      disabled: false,
      setupTokenHash: setup,
      setupExpiresAt: setup === null ? null : at(100),
      createdAt: at(1),
      invitedBy: 'staff:root@example.ng',
      roleSetBy: '',
      powersSince: at(1),
    });

    it('a member reads back as inserted, one per email, and sets up once before the link expires', async (h) => {
      const ada = member('stf_ada', 'ada@example.ng', 'h'.repeat(64));
      assert.is(await h.store.staff.insertMember(ada), true);
      assert.is(await h.store.staff.insertMember(member('stf_other', 'ada@example.ng', null)), false, 'email taken');
      assert.equal(await h.store.staff.getMember('stf_ada'), ada);
      assert.equal(await h.store.staff.findMemberByEmail('ada@example.ng'), ada);
      assert.equal(await h.store.staff.findMemberBySetup('h'.repeat(64)), ada);
      assert.is(await h.store.staff.getMember('stf_other'), null);
      assert.is(await h.store.staff.completeSetup('h'.repeat(64), 'scrypt$x', 7, at(100)), null, 'expired at 100');
      const done = await h.store.staff.completeSetup('h'.repeat(64), 'scrypt$x', 7, at(50));
      assert.equal(done, {
        ...ada,
        passwordHash: 'scrypt$x',
        totpLastStep: 7,
        setupTokenHash: null,
        setupExpiresAt: null,
        powersSince: at(50),
      });
      assert.is(await h.store.staff.completeSetup('h'.repeat(64), 'scrypt$y', 8, at(51)), null, 'used once');
      assert.is(await h.store.staff.findMemberBySetup('h'.repeat(64)), null);
      assert.is(await h.store.staff.claimTotpStep('stf_ada', 7), false, 'the set-up code is used');
      assert.is(await h.store.staff.claimTotpStep('stf_ada', 8), true);
      assert.is(await h.store.staff.claimTotpStep('stf_ada', 8), false, 'a code works once');
      await h.store.staff.insertMember(member('stf_bob', 'bob@example.ng', null));
      assert.equal(
        (await h.store.staff.listMembers()).map((m) => m.email),
        ['ada@example.ng', 'bob@example.ng'],
      );
      assert.is((await h.store.staff.setDisabled('stf_bob', true))?.disabled, true);
      assert.is(await h.store.staff.setDisabled('stf_nobody', true), null);
      const promoted = await h.store.staff.setRole('stf_bob', 'admin', 'staff:ada@example.ng', at(60));
      assert.equal(
        [promoted?.role, promoted?.roleSetBy, promoted?.powersSince, promoted?.invitedBy],
        ['admin', 'staff:ada@example.ng', at(60), 'staff:root@example.ng'],
        'who gave the role and since when',
      );
      assert.equal(await h.store.staff.getMember('stf_bob'), promoted, 'the new role is stored');
      assert.is(await h.store.staff.setRole('stf_nobody', 'admin', 'cli', at(60)), null);
    });

    it('staff sessions are found, touched forward only, and ended one by one or all of a member', async (h) => {
      await h.store.staff.insertMember(member('stf_ada', 'ada@example.ng', null));
      const session = {
        tokenHash: 's'.repeat(64),
        staffId: 'stf_ada',
        createdAt: at(1),
        lastSeenAt: at(1),
        absoluteExpiresAt: at(1000),
      };
      await h.store.staff.insertSession(session);
      await h.store.staff.insertSession({ ...session, tokenHash: 't'.repeat(64) });
      assert.equal(await h.store.staff.findSession('s'.repeat(64)), session);
      assert.equal((await h.store.staff.touchSession('s'.repeat(64), at(9)))?.lastSeenAt, at(9));
      assert.equal((await h.store.staff.touchSession('s'.repeat(64), at(5)))?.lastSeenAt, at(9), 'never back');
      assert.is(await h.store.staff.touchSession('x'.repeat(64), at(9)), null);
      assert.is(await h.store.staff.deleteSession('s'.repeat(64)), true);
      assert.is(await h.store.staff.deleteSession('s'.repeat(64)), false);
      assert.is(await h.store.staff.deleteMemberSessions('stf_ada'), 1);
      assert.is(await h.store.staff.findSession('t'.repeat(64)), null);
    });

    it('a proposal is decided once, never approved by its proposer, and not after it expires', async (h) => {
      const proposal: ProposalRecord = {
        proposalId: 'prp_1',
        kind: 'credit',
        accountId: 'ACC1',
        target: 'ACC1',
        amountKobo: kobo(500_000),
        note: 'goodwill after outage',
        reference: '',
        memo: '',
        feeKobo: kobo(0),
        proposedBy: 'staff:ada@example.ng',
        proposedAt: at(1),
        expiresAt: at(100),
        status: 'pending',
        decidedBy: null,
        decidedAt: null,
        appliedAt: null,
      };
      await h.store.proposals.insert(proposal);
      await h.store.proposals.insert({ ...proposal, proposalId: 'prp_2', proposedAt: at(2), expiresAt: at(10) });
      assert.equal(await h.store.proposals.get('prp_1'), proposal);
      assert.equal(
        (await h.store.proposals.listOpen(at(5), 10)).map((p) => p.proposalId),
        ['prp_1', 'prp_2'],
      );
      assert.equal(
        (await h.store.proposals.listOpen(at(10), 10)).map((p) => p.proposalId),
        ['prp_1'],
        'prp_2 expired',
      );
      assert.is(await h.store.proposals.decide('prp_2', 'approved', 'staff:bob@example.ng', at(10)), null, 'expired');
      assert.is(
        await h.store.proposals.decide('prp_1', 'approved', 'staff:ada@example.ng', at(5)),
        null,
        'not by its proposer',
      );
      assert.is(await h.store.proposals.markApplied('prp_1', at(5)), false, 'not approved yet');
      const approved = await h.store.proposals.decide('prp_1', 'approved', 'staff:bob@example.ng', at(6));
      assert.equal(approved, { ...proposal, status: 'approved', decidedBy: 'staff:bob@example.ng', decidedAt: at(6) });
      assert.is(await h.store.proposals.decide('prp_1', 'refused', 'staff:cy@example.ng', at(7)), null, 'decided once');
      assert.is(await h.store.proposals.markApplied('prp_1', at(7)), true);
      assert.is(await h.store.proposals.markApplied('prp_1', at(8)), false, 'applied once');
      assert.equal((await h.store.proposals.get('prp_1'))?.appliedAt, at(7));
      // Marked applied with no move and no approval row: the ledger check names it ...
      const unbooked = (await h.store.wallet.audit()).violations.map((v) => `${v.kind}:${v.reference}`);
      assert.equal(unbooked, ['proposal_unbooked:prp_1']);
      // ... until the credit is booked under the proposal's id and its approval is in the audit log.
      await h.store.accounts.create({ accountId: 'ACC1', name: 'ACC1', tierId: 'standard', createdAt: at(0) });
      h.accountIds.add('ACC1');
      const move = { accountId: 'ACC1', mode: 'live' as const, amountKobo: kobo(500_000), memo: 'goodwill' };
      await h.store.ledger.post({ kind: 'credit', credit: { ...move, reference: 'prp_1', at: at(7) } });
      const approval = { at: at(7), actor: 'staff:bob@example.ng', action: 'proposal.approve', target: 'prp_1' };
      await h.store.auditLog.append({ ...approval, before: null, after: null, address: null, note: '' });
      await h.store.proposals.insert({ ...proposal, proposalId: 'prp_3' });
      assert.is(
        (await h.store.proposals.decide('prp_3', 'refused', 'staff:ada@example.ng', at(5)))?.status,
        'refused',
        'a proposer may withdraw',
      );
    });

    it("a proposal's reference is one proposal per account and kind, concurrent inserts too", async (h) => {
      const proposal: ProposalRecord = {
        proposalId: 'prp_r1',
        kind: 'credit',
        accountId: 'ACC1',
        target: 'ACC1',
        amountKobo: kobo(77_700),
        note: 'bank transfer',
        reference: 'GTB-777',
        memo: 'GTB transfer 777',
        feeKobo: kobo(0),
        proposedBy: 'cli',
        proposedAt: at(1),
        expiresAt: at(100),
        status: 'pending',
        decidedBy: null,
        decidedAt: null,
        appliedAt: null,
      };
      assert.equal(await h.store.proposals.insert(proposal), proposal);
      const retries = await Promise.all(
        ['prp_r2', 'prp_r3', 'prp_r4'].map((id) => h.store.proposals.insert({ ...proposal, proposalId: id })),
      );
      assert.equal(
        retries.map((p) => p.proposalId),
        ['prp_r1', 'prp_r1', 'prp_r1'],
      );
      assert.is(await h.store.proposals.get('prp_r2'), null, 'nothing written for a retry');
      assert.equal((await h.store.proposals.get('prp_r1'))?.memo, 'GTB transfer 777');
      const debit = await h.store.proposals.insert({ ...proposal, proposalId: 'prp_d1', kind: 'debit' });
      const other = await h.store.proposals.insert({ ...proposal, proposalId: 'prp_o1', accountId: 'ACC2' });
      const none = await h.store.proposals.insert({ ...proposal, proposalId: 'prp_n1', reference: '' });
      const none2 = await h.store.proposals.insert({ ...proposal, proposalId: 'prp_n2', reference: '' });
      assert.equal(
        [debit.proposalId, other.proposalId, none.proposalId, none2.proposalId],
        ['prp_d1', 'prp_o1', 'prp_n1', 'prp_n2'],
        'another kind, another account, and proposals without a reference are their own',
      );
    });
  });

  define('requests for API access', (it) => {
    it('one request per account: a pending or approved one is kept, a refused one is replaced', async (h) => {
      const accountId = await h.account();
      assert.is(await h.store.upgrades.get(accountId), null);
      const first = await h.store.upgrades.open({
        accountId,
        requestedBy: 'ada@example.ng',
        note: 'a shop app',
        at: at(1),
      });
      assert.equal(first, {
        accountId,
        status: 'pending',
        requestedBy: 'ada@example.ng',
        note: 'a shop app',
        createdAt: at(1),
        decidedAt: null,
        keyIssuedAt: null,
      });
      assert.equal(
        await h.store.upgrades.open({ accountId, requestedBy: 'bo@example.ng', note: 'again', at: at(2) }),
        first,
        'pending: kept',
      );
      assert.equal(await h.store.upgrades.decide(accountId, 'refused', at(3)), {
        ...first,
        status: 'refused',
        decidedAt: at(3),
      });
      assert.is(await h.store.upgrades.decide(accountId, 'approved', at(4)), null, 'only a pending request is decided');
      const second = await h.store.upgrades.open({
        accountId,
        requestedBy: 'bo@example.ng',
        note: 'a POS app',
        at: at(5),
      });
      assert.equal(second, {
        accountId,
        status: 'pending',
        requestedBy: 'bo@example.ng',
        note: 'a POS app',
        createdAt: at(5),
        decidedAt: null,
        keyIssuedAt: null,
      });
      await h.store.upgrades.decide(accountId, 'approved', at(6));
      assert.is(
        (await h.store.upgrades.open({ accountId, requestedBy: 'x@example.ng', note: '', at: at(7) })).status,
        'approved',
        'approved: kept',
      );
    });

    it('pending requests are listed oldest first, bounded', async (h) => {
      const a = await h.account();
      const b = await h.account();
      const c = await h.account();
      await h.store.upgrades.open({ accountId: b, requestedBy: 'b@example.ng', note: '', at: at(20) });
      await h.store.upgrades.open({ accountId: a, requestedBy: 'a@example.ng', note: '', at: at(10) });
      await h.store.upgrades.open({ accountId: c, requestedBy: 'c@example.ng', note: '', at: at(30) });
      await h.store.upgrades.decide(c, 'refused', at(31));
      const ours = (await h.store.upgrades.listPending(1000))
        .map((r) => r.accountId)
        .filter((id) => [a, b, c].includes(id));
      assert.equal(ours, [a, b]);
      assert.ok((await h.store.upgrades.listPending(1)).length <= 1);
    });

    it('the first key of an approval is claimed once, even by callers at the same time', async (h) => {
      const accountId = await h.account();
      assert.is(await h.store.upgrades.claimFirstKey(accountId, at(1)), false, 'nothing approved');
      await h.store.upgrades.open({ accountId, requestedBy: 'a@example.ng', note: '', at: at(1) });
      assert.is(await h.store.upgrades.claimFirstKey(accountId, at(2)), false, 'still pending');
      await h.store.upgrades.decide(accountId, 'approved', at(3));
      const claims = await Promise.all(
        Array.from({ length: 6 }, () => h.store.upgrades.claimFirstKey(accountId, at(4))),
      );
      assert.is(claims.filter(Boolean).length, 1);
      assert.equal((await h.store.upgrades.get(accountId))?.keyIssuedAt, at(4));
    });
  });

  define('history', (it) => {
    it('search filters by every field, pages newest first, and never shows another account', async (h) => {
      const accountId = await h.account(1_000_000);
      const other = await h.account(1_000_000);
      const made: TransactionRecord[] = [];
      for (let i = 0; i < 12; i++) {
        made.push(
          await h.reserved(
            h.purchase(accountId, {
              createdAt: at(100 + i * 10),
              product: i % 3 === 0 ? 'data' : 'airtime',
              recipient: i % 2 === 0 ? '08030000000' : '08031111111',
              requestId: `req-${i}`,
            }),
          ),
        );
      }
      await h.reserved(h.purchase(other, { createdAt: at(105), recipient: '08030000000' }));
      await h.creditTest(accountId, 100_000);
      const testOne = await h.reserved(
        h.purchase(accountId, { createdAt: at(115), recipient: '08030000000', mode: 'test' }),
      );
      await h.store.ledger.post({ kind: 'settle', reference: made[4]!.reference, result: {}, at: at(500) });
      await h.store.ledger.post({ kind: 'refund', reference: made[5]!.reference, reason: 'no', at: at(500) });
      const refs = (list: TransactionRecord[]) => list.map((t) => t.reference);
      const newestFirst = [...made].reverse();
      const search = (query: TransactionQuery, limit = 5) =>
        readAll((page) => h.store.history.search(accountId, 'live', query, page), limit);
      assert.equal(refs(await search({})), refs(newestFirst));
      assert.equal(refs(await search({}, 1)), refs(newestFirst));
      assert.equal(refs(await search({ product: 'data' }, 2)), refs(newestFirst.filter((t) => t.product === 'data')));
      assert.equal(refs(await search({ status: 'success' })), [made[4]!.reference]);
      assert.equal(refs(await search({ status: 'failed' })), [made[5]!.reference]);
      assert.equal(
        refs(await search({ recipient: '08030000000' }, 2)),
        refs(newestFirst.filter((_, i) => (11 - i) % 2 === 0)),
      );
      assert.equal(refs(await search({ reference: made[7]!.reference })), [made[7]!.reference]);
      assert.equal(refs(await search({ requestId: 'req-3' })), [made[3]!.reference]);
      assert.equal(refs(await search({ from: at(130), until: at(160) }, 2)), refs([made[5]!, made[4]!, made[3]!]));
      assert.equal(refs(await search({ from: at(130), until: at(160), product: 'data', recipient: '08031111111' })), [
        made[3]!.reference,
      ]);
      assert.equal(await search({ reference: made[0]!.reference, product: 'bulksms' }), []);
      const theirs = await h.store.history.search(other, 'live', {}, { limit: 10 });
      assert.is(theirs.items.length, 1);
      const tested = await h.store.history.search(accountId, 'test', { recipient: '08030000000' }, { limit: 10 });
      assert.equal(refs(tested.items), [testOne.reference], 'the test wallet sees its own purchases only');
    });

    it('search by a recipient start finds each number starting so, newest first, page by page', async (h) => {
      const accountId = await h.account(1_000_000);
      const other = await h.account(1_000_000);
      const recipients = ['08031234567', '08031239999', '08031299999', '08041234567', '0803', '45031234567', '08030'];
      const made: TransactionRecord[] = [];
      for (const [i, recipient] of recipients.entries()) {
        made.push(await h.reserved(h.purchase(accountId, { createdAt: at(100 + i * 10), recipient })));
      }
      await h.reserved(h.purchase(other, { createdAt: at(105), recipient: '08031234567' }));
      await h.creditTest(accountId, 100_000);
      const tested = await h.reserved(
        h.purchase(accountId, { createdAt: at(115), recipient: '08031234000', mode: 'test' }),
      );
      const refs = (list: TransactionRecord[]) => list.map((t) => t.reference);
      const search = (query: TransactionQuery, limit = 2) =>
        readAll((page) => h.store.history.search(accountId, 'live', query, page), limit);
      const startingWith = (prefix: string) => refs([...made].reverse().filter((t) => t.recipient.startsWith(prefix)));
      for (const prefix of ['0803123', '080312', '0803', '08031234567', '4503', '0804', '08030']) {
        assert.equal(refs(await search({ recipientPrefix: prefix })), startingWith(prefix), prefix);
      }
      assert.equal(await search({ recipientPrefix: '0805' }), [], 'no number starts so');
      assert.equal(await search({ recipientPrefix: '08031234568' }), [], 'a longer prefix is not a shorter number');
      assert.equal(
        refs(await search({ recipientPrefix: '0803', from: at(110), until: at(140) })),
        refs([made[3]!, made[2]!, made[1]!].filter((t) => t.recipient.startsWith('0803'))),
        'with dates',
      );
      const theirs = await h.store.history.search(other, 'live', { recipientPrefix: '0803' }, { limit: 10 });
      assert.is(theirs.items.length, 1, 'the other account sees its own only');
      const test = await h.store.history.search(accountId, 'test', { recipientPrefix: '0803123' }, { limit: 10 });
      assert.equal(refs(test.items), [tested.reference], 'the test wallet sees its own only');
    });

    it('spend by day counts pending and successful charges, not refunded ones, and the pending count', async (h) => {
      const accountId = await h.account(1_000_000);
      const day = 86_400;
      // T0 is 08:00 UTC; with a one-hour offset, 23:30 UTC is already the next day.
      const late = await h.reserved(h.purchase(accountId, { createdAt: at(15.5 * 3600), chargedKobo: kobo(100) }));
      const early = await h.reserved(h.purchase(accountId, { createdAt: at(60), chargedKobo: kobo(200) }));
      const data = await h.reserved(
        h.purchase(accountId, { createdAt: at(120), product: 'data', chargedKobo: kobo(300) }),
      );
      const failed = await h.reserved(h.purchase(accountId, { createdAt: at(180), chargedKobo: kobo(400) }));
      await h.store.ledger.post({ kind: 'refund', reference: failed.reference, reason: 'no', at: at(200) });
      await h.store.ledger.post({ kind: 'settle', reference: data.reference, result: {}, at: at(200) });
      await h.reserved(h.purchase(accountId, { createdAt: at(3 * day), chargedKobo: kobo(500) }));
      const firstDay = Math.floor((T0 + 3_600_000) / 86_400_000);
      await h.creditTest(accountId, 100_000);
      await h.reserved(h.purchase(accountId, { createdAt: at(60), chargedKobo: kobo(7_000), mode: 'test' }));
      const spend = await h.store.history.spendByDay(accountId, 'live', at(0), at(2 * day), 3_600_000);
      assert.equal(spend, [
        { day: firstDay, product: 'airtime', spentKobo: kobo(200) },
        { day: firstDay, product: 'data', spentKobo: kobo(300) },
        { day: firstDay + 1, product: 'airtime', spentKobo: kobo(100) },
      ]);
      assert.ok(late && early);
      assert.is(await h.store.history.pendingCount(accountId, 'live'), 3);
      assert.is(await h.store.history.pendingCount(accountId, 'test'), 1);
      assert.equal(await h.store.history.spendByDay(accountId, 'test', at(0), at(2 * day), 3_600_000), [
        { day: firstDay, product: 'airtime', spentKobo: kobo(7_000) },
      ]);
      assert.is(await h.store.history.pendingCount('nobody', 'live'), 0);
    });
  });

  define('events outbox', (it) => {
    /** Every event of the account, oldest first, read through the feed a few at a time. */
    async function feed(h: Harness, accountId: string, pageSize = 2): Promise<EventRecord[]> {
      const events: EventRecord[] = [];
      let after = 0;
      for (;;) {
        const page = await h.store.events.listFeed(accountId, 'live', after, pageSize);
        events.push(...page);
        if (page.length < pageSize) return events;
        after = page[page.length - 1]!.seq;
      }
    }

    async function endpoint(
      h: Harness,
      accountId: string,
      enabled = true,
      mode: 'live' | 'test' = 'live',
    ): Promise<void> {
      await h.store.webhooks.put({
        accountId,
        mode,
        url: 'https://receiver.example/hooks',
        secret: 'whsec_one',
        previousSecret: null,
        previousSecretUntil: null,
        enabled,
        createdAt: at(0),
        updatedAt: at(0),
      });
    }

    it('a credit, a settle, a refund and a reversal each write exactly one event with what changed', async (h) => {
      const accountId = await h.account(50_000);
      const settled = await h.reserved(h.purchase(accountId));
      const failed = await h.reserved(h.purchase(accountId));
      await h.store.ledger.post({
        kind: 'settle',
        reference: settled.reference,
        result: { providerReference: 'P1' },
        at: at(20),
      });
      await h.store.ledger.post({ kind: 'refund', reference: failed.reference, reason: 'declined', at: at(21) });
      await h.store.ledger.post({
        kind: 'reverse',
        reference: settled.reference,
        reason: 'provider reversed',
        at: at(22),
      });
      const events = await feed(h, accountId);
      assert.equal(
        events.map((e) => [e.type, e.subject]),
        [
          ['wallet.credited', events[0]!.subject],
          ['transaction.success', settled.reference],
          ['transaction.failed', failed.reference],
          ['transaction.reversed', settled.reference],
        ],
      );
      const credit = JSON.parse(events[0]!.body);
      assert.equal(credit.data, {
        reference: events[0]!.subject,
        amount: 500,
        balance: 500,
        memo: 'opening balance',
        source: 'operator',
      });
      assert.is(credit.type, 'wallet.credited');
      assert.is(credit.livemode, true);
      const success = JSON.parse(events[1]!.body);
      assert.is(success.id, events[1]!.eventId);
      assert.is(success.created_at, at(20).toISOString());
      assert.is(success.data.transaction.status, 'success', 'an event shows the state it announces');
      assert.is(success.data.transaction.charged, 98);
      assert.is(JSON.parse(events[2]!.body).data.transaction.failure_reason, 'declined');
      for (const e of events)
        assert.is(e.delivery, 'none', 'without a webhook URL an event is only recorded for the feed');
    });

    it('a call that changes nothing writes no event', async (h) => {
      const accountId = await h.account(50_000);
      const tx = await h.reserved(h.purchase(accountId));
      await h.store.ledger.post({ kind: 'settle', reference: tx.reference, result: {}, at: at(20) });
      assert.is(
        (await h.store.ledger.post({ kind: 'settle', reference: tx.reference, result: {}, at: at(21) }))?.changed,
        false,
      );
      assert.is(
        (await h.store.ledger.post({ kind: 'refund', reference: tx.reference, reason: 'late', at: at(22) }))?.changed,
        false,
      );
      const pending = await h.reserved(h.purchase(accountId));
      assert.is(
        (
          await h.store.ledger.post({
            kind: 'reverse',
            reference: pending.reference,
            reason: 'not delivered',
            at: at(23),
          })
        )?.changed,
        false,
      );
      await h.store.ledger.post({ kind: 'refund', reference: pending.reference, reason: 'declined', at: at(24) });
      assert.is(
        (await h.store.ledger.post({ kind: 'refund', reference: pending.reference, reason: 'again', at: at(25) }))
          ?.changed,
        false,
      );
      const types = (await feed(h, accountId)).map((e) => e.type);
      assert.equal(types, ['wallet.credited', 'transaction.success', 'transaction.failed']);
    });

    it('concurrent settles and refunds of one purchase write one event between them', async (h) => {
      const accountId = await h.account(50_000);
      const tx = await h.reserved(h.purchase(accountId));
      await Promise.all([
        h.store.ledger.post({ kind: 'settle', reference: tx.reference, result: {}, at: at(20) }),
        h.store.ledger.post({ kind: 'refund', reference: tx.reference, reason: 'declined', at: at(20) }),
        h.store.ledger.post({ kind: 'settle', reference: tx.reference, result: {}, at: at(20) }),
        h.store.ledger.post({ kind: 'refund', reference: tx.reference, reason: 'declined', at: at(20) }),
      ]);
      const moves = (await feed(h, accountId)).filter((e) => e.subject === tx.reference);
      assert.is(moves.length, 1);
      assert.is(moves[0]!.type, `transaction.${(await h.store.transactions.get(tx.reference))!.status}`);
    });

    it('the feed pages oldest first by seq, never repeats, and shows one account and one mode only', async (h) => {
      const accountId = await h.account();
      const other = await h.account(1_000);
      for (let i = 1; i <= 7; i++) {
        await h.store.ledger.post({
          kind: 'credit',
          credit: {
            accountId,
            amountKobo: kobo(i * 100),
            reference: h.unique('CR'),
            memo: `credit ${i}`,
            at: at(i),
            mode: 'live',
          },
        });
      }
      for (const size of [1, 3, 7, 50]) {
        const events = await feed(h, accountId, size);
        assert.equal(
          events.map((e) => JSON.parse(e.body).data.amount),
          [1, 2, 3, 4, 5, 6, 7],
          `oldest first at page size ${size}`,
        );
        const seqs = events.map((e) => e.seq);
        for (let i = 1; i < seqs.length; i++) assert.ok(seqs[i]! > seqs[i - 1]!, 'seq grows');
      }
      assert.equal(await h.store.events.listFeed(accountId, 'test', 0, 10), [], 'the test world has its own events');
      assert.is((await feed(h, other)).length, 1);
      const last = (await feed(h, accountId)).at(-1)!;
      assert.equal(await h.store.events.listFeed(accountId, 'live', last.seq, 10), [], 'nothing after the last event');
      assert.equal(await h.store.events.get(last.eventId), last);
      assert.is(await h.store.events.get('evt_missing'), null);
    });

    it("live and test purchases on one account: each mode's feed has its events once, in seq order", async (h) => {
      // On MongoDB each mode's seq has a counter document of its own, and settles no longer write
      // the account; the two worlds' events must still never mix, skip or repeat.
      const accountId = await h.account(100_000);
      await h.creditTest(accountId, 100_000);
      await endpoint(h, accountId, true, 'test');
      const purchases = Array.from({ length: 8 }, (_, i) =>
        h.purchase(accountId, { mode: i % 2 === 0 ? 'live' : 'test' }),
      );
      const reserved = await Promise.all(purchases.map((tx) => h.reserved(tx)));
      await Promise.all(
        reserved.map((tx, i) =>
          i >= 6
            ? h.store.ledger.post({ kind: 'refund', reference: tx.reference, reason: 'declined', at: at(20) })
            : h.store.ledger.post({ kind: 'settle', reference: tx.reference, result: {}, at: at(20) }),
        ),
      );
      for (const mode of MODES) {
        const events: EventRecord[] = [];
        let after = 0;
        for (;;) {
          const page = await h.store.events.listFeed(accountId, mode, after, 2);
          events.push(...page);
          if (page.length < 2) break;
          after = page[page.length - 1]!.seq;
        }
        const mine = reserved.filter((tx) => tx.mode === mode).map((tx) => tx.reference);
        const moves = events.filter((e) => e.type !== 'wallet.credited');
        assert.equal(
          new Set(moves.map((e) => e.subject)),
          new Set(mine),
          `${mode}: one event per purchase of the mode`,
        );
        assert.is(moves.length, mine.length, `${mode}: none repeated`);
        const seqs = events.map((e) => e.seq);
        for (let i = 1; i < seqs.length; i++) assert.ok(seqs[i]! > seqs[i - 1]!, `${mode}: seq grows`);
        for (const e of events) assert.is(e.mode, mode);
        for (const e of moves)
          assert.is(e.delivery, mode === 'test' ? 'pending' : 'none', `${mode}: delivery follows the mode's webhook`);
      }
      assert.is(await h.balance(accountId, 'live'), 100_000 - 3 * 9_800);
      assert.is(await h.balance(accountId, 'test'), 100_000 - 3 * 9_800);
    });

    it('with an enabled webhook URL events are queued; a disabled one only records them', async (h) => {
      const accountId = await h.account();
      await endpoint(h, accountId);
      await h.store.ledger.post({
        kind: 'credit',
        credit: {
          accountId,
          amountKobo: kobo(100),
          reference: h.unique('CR'),
          memo: '',
          at: at(5),
          mode: 'live',
        },
      });
      await endpoint(h, accountId, false);
      await h.store.ledger.post({
        kind: 'credit',
        credit: {
          accountId,
          amountKobo: kobo(100),
          reference: h.unique('CR'),
          memo: '',
          at: at(6),
          mode: 'live',
        },
      });
      const events = await feed(h, accountId);
      assert.equal(
        events.map((e) => e.delivery),
        ['pending', 'none'],
      );
      assert.equal(events[0]!.nextAttemptAt, at(5), 'due at once');
      assert.equal(await h.store.events.undeliveredSummary().then((s) => s.count >= 1), true);
      const endpointRead = await h.store.webhooks.get(accountId, 'live');
      assert.is(endpointRead?.enabled, false);
      assert.is(endpointRead?.secret, 'whsec_one');
      assert.is(await h.store.webhooks.get(accountId, 'test'), null);
    });

    it('destinations with events undelivered since before a time are listed, oldest first, bounded', async (h) => {
      const early = await h.account();
      const late = await h.account();
      const quiet = await h.account();
      await endpoint(h, early);
      await endpoint(h, late);
      const credit = (accountId: string, seconds: number) =>
        h.store.ledger.post({
          kind: 'credit',
          credit: {
            accountId,
            amountKobo: kobo(100),
            reference: h.unique('CR'),
            memo: '',
            at: at(seconds),
            mode: 'live',
          },
        });
      await credit(early, 0);
      await credit(early, 10);
      await credit(late, 100_000);
      await credit(quiet, 0);
      const mine = <T extends { accountId: string }>(list: T[]) =>
        list.filter((d) => [early, late, quiet].includes(d.accountId));
      const dayOld = mine(await h.store.events.failingDestinations(at(50), 100));
      assert.equal(dayOld, [
        { accountId: early, mode: 'live', oldestCreatedAt: at(0), undelivered: 2, lastStatus: null, lastError: null },
      ]);
      const all = mine(await h.store.events.failingDestinations(at(200_000), 100));
      assert.equal(
        all.map((d) => [d.accountId, d.undelivered]),
        [
          [early, 2],
          [late, 1],
        ],
      );
      assert.ok((await h.store.events.failingDestinations(at(200_000), 1)).length <= 1);
      assert.equal(
        (await h.store.events.failingDestinations(at(200_000), 2, late)).map((d) => [d.accountId, d.undelivered]),
        [[late, 1]],
        "one account's backlog (its console page)",
      );
      assert.equal(await h.store.events.failingDestinations(at(200_000), 2, quiet), []);
    });

    it('a claim leases due events to one owner; attempts are recorded only by the owner', async (h) => {
      const accountId = await h.account();
      const busy = await h.account();
      await endpoint(h, accountId);
      await endpoint(h, busy);
      await h.store.ledger.post({
        kind: 'credit',
        credit: {
          accountId,
          amountKobo: kobo(100),
          reference: h.unique('CR'),
          memo: '',
          at: at(5),
          mode: 'live',
        },
      });
      await h.store.ledger.post({
        kind: 'credit',
        credit: {
          accountId: busy,
          amountKobo: kobo(100),
          reference: h.unique('CR'),
          memo: '',
          at: at(5),
          mode: 'live',
        },
      });
      const claim = { now: at(10), owner: 'core-a', leaseUntil: at(40), limit: 10, excludeAccounts: [busy] };
      const mine = (await h.store.events.claimDue(claim)).filter(
        (e) => e.accountId === accountId || e.accountId === busy,
      );
      assert.equal(
        mine.map((e) => e.accountId),
        [accountId],
        'a busy account is left out',
      );
      const again = await h.store.events.claimDue({ ...claim, owner: 'core-b', excludeAccounts: [] });
      assert.not.ok(
        again.some((e) => e.eventId === mine[0]!.eventId),
        'a leased event is not claimed again before its lease ends',
      );
      const eventId = mine[0]!.eventId;
      const failed = {
        delivery: 'pending' as const,
        status: 500,
        error: 'the receiver answered 500',
        at: at(11),
        nextAttemptAt: at(71),
      };
      assert.is(await h.store.events.recordAttempt(eventId, 'core-b', failed), false, 'another owner cannot record');
      assert.is(await h.store.events.recordAttempt(eventId, 'core-a', failed), true);
      let event = (await h.store.events.get(eventId))!;
      assert.equal(
        [event.delivery, event.attempts, event.lastStatus, event.nextAttemptAt],
        ['pending', 1, 500, at(71)],
      );
      assert.equal(
        await h.store.events
          .claimDue({ ...claim, now: at(70), excludeAccounts: [] })
          .then((es) => es.some((e) => e.eventId === eventId)),
        false,
      );
      const retried = await h.store.events.claimDue({
        ...claim,
        now: at(71),
        leaseUntil: at(100),
        excludeAccounts: [],
      });
      assert.ok(
        retried.some((e) => e.eventId === eventId),
        'due again at its next attempt',
      );
      assert.is(
        await h.store.events.recordAttempt(eventId, 'core-a', {
          delivery: 'delivered',
          status: 204,
          error: null,
          at: at(72),
          nextAttemptAt: null,
        }),
        true,
      );
      event = (await h.store.events.get(eventId))!;
      assert.equal(
        [event.delivery, event.attempts, event.lastStatus, event.nextAttemptAt],
        ['delivered', 2, 204, null],
      );
      assert.is(
        await h.store.events.recordAttempt(eventId, 'core-a', failed),
        false,
        'a delivered event takes no further attempt',
      );
    });

    it("a claim for one destination takes only that account's due events of that mode, oldest due first", async (h) => {
      const accountId = await h.account();
      const other = await h.account();
      await endpoint(h, accountId);
      await endpoint(h, accountId, true, 'test');
      await endpoint(h, other);
      const credit = (id: string, second: number, mode: 'live' | 'test' = 'live') =>
        h.store.ledger.post({
          kind: 'credit',
          credit: {
            accountId: id,
            amountKobo: kobo(100),
            reference: h.unique('CR'),
            memo: '',
            at: at(second),
            mode,
          },
        });
      await credit(other, 1);
      await credit(accountId, 3);
      await credit(accountId, 2, 'test');
      await credit(accountId, 4);
      await credit(accountId, 5);
      await credit(accountId, 20);
      const claim = {
        now: at(10),
        owner: 'w',
        leaseUntil: at(40),
        limit: 2,
        excludeAccounts: [],
        destination: { accountId, mode: 'live' as const },
      };
      const first = await h.store.events.claimDue(claim);
      assert.equal(
        first.map((e) => [e.accountId, e.mode, e.createdAt]),
        [
          [accountId, 'live', at(3)],
          [accountId, 'live', at(4)],
        ],
        'the limit holds, and neither the other account, the test mode nor an event not yet due is taken',
      );
      assert.equal(
        (await h.store.events.claimDue({ ...claim, limit: 10 })).map((e) => e.createdAt),
        [at(5)],
        'leased events are not taken again',
      );
      assert.equal(
        await h.store.events.claimDue({ ...claim, now: at(30), excludeAccounts: [accountId] }),
        [],
        'an excluded account gets none',
      );
      const test = await h.store.events.claimDue({ ...claim, destination: { accountId, mode: 'test' } });
      assert.equal(
        test.map((e) => [e.mode, e.createdAt]),
        [['test', at(2)]],
      );
    });

    it("a destination's claim with its endpoint leases as claimDue does and reads the webhook as it is then", async (h) => {
      const accountId = await h.account();
      await endpoint(h, accountId);
      const credit = (second: number) =>
        h.store.ledger.post({
          kind: 'credit',
          credit: {
            accountId,
            amountKobo: kobo(100),
            reference: h.unique('CR'),
            memo: '',
            at: at(second),
            mode: 'live',
          },
        });
      await credit(3);
      const claim = {
        now: at(10),
        owner: 'w',
        leaseUntil: at(40),
        limit: 10,
        excludeAccounts: [],
        destination: { accountId, mode: 'live' as const },
      };
      const first = await h.store.events.claimDueWithEndpoint(claim);
      assert.equal(
        first.events.map((e) => [e.accountId, e.createdAt, e.nextAttemptAt]),
        [[accountId, at(3), at(40)]],
      );
      assert.equal(first.endpoint, await h.store.webhooks.get(accountId, 'live'), 'the endpoint as stored');
      assert.equal(
        await h.store.events.claimDueWithEndpoint(claim),
        { events: [], endpoint: null },
        'a leased event is not taken again, and with nothing claimed no endpoint is given',
      );
      await h.store.webhooks.put({
        ...(await h.store.webhooks.get(accountId, 'live'))!,
        url: 'https://moved.example/hooks',
        updatedAt: at(4),
      });
      await credit(5);
      const second = await h.store.events.claimDueWithEndpoint(claim);
      assert.equal(
        second.events.map((e) => e.createdAt),
        [at(5)],
      );
      assert.is(second.endpoint?.url, 'https://moved.example/hooks', 'a changed URL is read at the next claim');
      await credit(6);
      assert.equal(
        await h.store.events.claimDueWithEndpoint({ ...claim, excludeAccounts: [accountId] }),
        { events: [], endpoint: null },
        'an excluded account gets none',
      );
    });

    it('a lease that runs out lets another owner take the event (its first owner died)', async (h) => {
      const accountId = await h.account();
      await endpoint(h, accountId);
      await h.store.ledger.post({
        kind: 'credit',
        credit: {
          accountId,
          amountKobo: kobo(100),
          reference: h.unique('CR'),
          memo: '',
          at: at(5),
          mode: 'live',
        },
      });
      const first = await h.store.events.claimDue({
        now: at(10),
        owner: 'dead',
        leaseUntil: at(40),
        limit: 10,
        excludeAccounts: [],
      });
      const eventId = first.find((e) => e.accountId === accountId)!.eventId;
      const second = await h.store.events.claimDue({
        now: at(40),
        owner: 'alive',
        leaseUntil: at(70),
        limit: 10,
        excludeAccounts: [],
      });
      assert.ok(second.some((e) => e.eventId === eventId));
      assert.is(
        await h.store.events.recordAttempt(eventId, 'dead', {
          delivery: 'delivered',
          status: 200,
          error: null,
          at: at(41),
          nextAttemptAt: null,
        }),
        false,
      );
    });

    it('deliveries list newest first, failed ones alone on request; a resend queues an event again', async (h) => {
      const accountId = await h.account();
      await endpoint(h, accountId);
      for (let i = 1; i <= 3; i++)
        await h.store.ledger.post({
          kind: 'credit',
          credit: {
            accountId,
            amountKobo: kobo(100),
            reference: `CR-${i}`,
            memo: '',
            at: at(i),
            mode: 'live',
          },
        });
      const claimed = (
        await h.store.events.claimDue({ now: at(10), owner: 'w', leaseUntil: at(40), limit: 100, excludeAccounts: [] })
      ).filter((e) => e.accountId === accountId);
      assert.is(claimed.length, 3);
      await h.store.events.recordAttempt(claimed[0]!.eventId, 'w', {
        delivery: 'failed',
        status: 0,
        error: 'no answer',
        at: at(11),
        nextAttemptAt: null,
      });
      const all = await h.store.events.listDeliveries(accountId, 'live', { failedOnly: false }, { limit: 2 });
      assert.equal(
        all.items.map((e) => e.subject),
        ['CR-3', 'CR-2'],
      );
      const rest = await h.store.events.listDeliveries(
        accountId,
        'live',
        { failedOnly: false },
        { limit: 2, after: all.next! },
      );
      assert.equal(
        rest.items.map((e) => e.subject),
        ['CR-1'],
      );
      const failed = await h.store.events.listDeliveries(accountId, 'live', { failedOnly: true }, { limit: 10 });
      assert.equal(
        failed.items.map((e) => [e.subject, e.delivery, e.lastError]),
        [['CR-1', 'failed', 'no answer']],
      );
      const requeued = await h.store.events.requeue(claimed[0]!.eventId, at(100));
      assert.equal(
        [requeued?.delivery, requeued?.nextAttemptAt, requeued?.queuedAt, requeued?.attempts],
        ['pending', at(100), at(100), 1],
      );
      assert.is(await h.store.events.requeue('evt_missing', at(100)), null);
    });

    it('a test-mode change writes a test event (livemode false), kept apart from the live feed', async (h) => {
      const accountId = await h.account();
      await h.store.ledger.post({
        kind: 'credit',
        credit: {
          accountId,
          amountKobo: kobo(700),
          reference: h.unique('CR'),
          memo: 'test money',
          at: at(5),
          mode: 'test',
        },
      });
      const testEvents = await h.store.events.listFeed(accountId, 'test', 0, 10);
      assert.equal(
        testEvents.map((e) => [e.type, e.mode, JSON.parse(e.body).livemode, JSON.parse(e.body).data.amount]),
        [['wallet.credited', 'test', false, 7]],
      );
      assert.equal(await h.store.events.listFeed(accountId, 'live', 0, 10), []);
    });

    it('a credit replayed with its reference moves nothing and writes no second event', async (h) => {
      const accountId = await h.account();
      const credit = {
        accountId,
        amountKobo: kobo(700),
        reference: 'BANK-42',
        memo: 'transfer',
        at: at(5),
        mode: 'live' as const,
      };
      await h.store.ledger.post({ kind: 'credit', credit });
      await h.store.ledger.post({ kind: 'credit', credit });
      assert.equal(
        (await h.store.events.listFeed(accountId, 'live', 0, 10)).map((e) => [e.type, e.subject]),
        [['wallet.credited', 'BANK-42']],
      );
    });

    it('a ping is recorded and queued even without a money change', async (h) => {
      const accountId = await h.account();
      const ping = pingEvent(accountId, 'live', at(9));
      const recorded = await h.store.events.insertPing(ping);
      assert.equal([recorded.type, recorded.delivery, recorded.body], ['ping', 'pending', ping.body]);
      assert.equal(
        (await feed(h, accountId)).map((e) => e.eventId),
        [ping.eventId],
      );
    });
  });

  define('funding', (it) => {
    const feed = (h: Harness, accountId: string): Promise<EventRecord[]> =>
      h.store.events.listFeed(accountId, 'live', 0, 100);
    function inflow(h: Harness, overrides: Partial<NewInflow> = {}): NewInflow {
      return {
        inflowId: newInflowId(),
        provider: 'paystack',
        providerReference: h.unique('PSK'),
        accountNumber: '9930000737',
        accountId: null,
        mode: 'live',
        amountPaidKobo: kobo(500_000),
        payerName: 'RANDALL HORTON',
        status: 'verified',
        reason: '',
        raw: '{"status":"success"}',
        createdAt: at(20),
        ...overrides,
      };
    }

    function virtualAccount(accountId: string, overrides: Partial<VirtualAccountRecord> = {}): VirtualAccountRecord {
      return {
        provider: 'sandbox',
        accountNumber: '9900000001',
        accountId,
        mode: 'live',
        bankName: 'Sandbox Bank',
        bankCode: '999',
        accountName: 'PREPAID / ADA OBI',
        providerCustomerRef: `WALLET-${accountId}`,
        status: 'active',
        kycKind: 'bvn',
        kycLast4: '2222',
        kycHash: 'f'.repeat(64),
        createdAt: at(3),
        ...overrides,
      };
    }

    it('virtual accounts read back per wallet, are found by number, and close', async (h) => {
      const accountId = await h.account();
      const live = virtualAccount(accountId);
      const test = virtualAccount(accountId, { accountNumber: '9900000002', mode: 'test' });
      await h.store.funding.saveVirtualAccount(live);
      await h.store.funding.saveVirtualAccount(test);
      assert.equal(await h.store.funding.listVirtualAccounts(accountId, 'live'), [live]);
      assert.equal(await h.store.funding.listVirtualAccounts(accountId, 'test'), [test]);
      assert.equal(await h.store.funding.findVirtualAccount('sandbox', '9900000002'), test);
      assert.is(await h.store.funding.findVirtualAccount('paystack', '9900000002'), null);
      assert.ok((await h.store.funding.listActiveVirtualAccounts(1000)).some((a) => a.accountNumber === '9900000001'));
      assert.is((await h.store.funding.closeVirtualAccount('sandbox', '9900000001'))?.status, 'closed');
      assert.not.ok(
        (await h.store.funding.listActiveVirtualAccounts(1000)).some((a) => a.accountNumber === '9900000001'),
        'a closed one is not swept',
      );
      assert.is(await h.store.funding.closeVirtualAccount('sandbox', '0000000000'), null);
    });

    it('an inflow is recorded once per (provider, reference); a second record returns the first', async (h) => {
      const first = inflow(h);
      const recorded = await h.store.ledger.post({ kind: 'inflow_record', inflow: first, credit: null });
      assert.is(recorded.created, true);
      assert.equal(
        [recorded.inflow.status, recorded.inflow.creditedKobo, recorded.inflow.creditReference],
        ['verified', 0, ''],
      );
      const again = await h.store.ledger.post({
        kind: 'inflow_record',
        inflow: { ...first, inflowId: newInflowId(), amountPaidKobo: kobo(1) },
        credit: null,
      });
      assert.is(again.created, false);
      assert.equal([again.inflow.inflowId, again.inflow.amountPaidKobo], [first.inflowId, 500_000]);
      // The same reference at another provider is another transfer.
      assert.is(
        (
          await h.store.ledger.post({
            kind: 'inflow_record',
            inflow: { ...first, inflowId: newInflowId(), provider: 'monnify' },
            credit: null,
          })
        ).created,
        true,
      );
      assert.equal(
        await h.store.funding.findInflow('paystack', first.providerReference),
        await h.store.funding.getInflow(first.inflowId),
      );
    });

    it('crediting an inflow adds the amount less the fee, with one entry and one bank_transfer event', async (h) => {
      const accountId = await h.account(1_000);
      const { inflow: recorded } = await h.store.ledger.post({
        kind: 'inflow_record',
        inflow: inflow(h, { accountId }),
        credit: null,
      });
      const result = await h.store.ledger.post({
        kind: 'inflow_credit',
        inflowId: recorded.inflowId,
        credit: { accountId, mode: 'live', feeKobo: kobo(5_000), at: at(30) },
        from: 'verified',
      });
      assert.is(result.outcome, 'credited');
      if (result.outcome !== 'credited') return;
      assert.equal(
        [result.inflow.status, result.inflow.feeKobo, result.inflow.creditedKobo, result.balanceKobo],
        ['credited', 5_000, 495_000, 496_000],
      );
      assert.is(await h.balance(accountId), 496_000);
      const entries = await h.ledger(accountId);
      assert.equal(
        [entries[0]!.kind, entries[0]!.amountKobo, entries[0]!.reference],
        ['credit', 495_000, recorded.inflowId],
      );
      const credited = (await feed(h, accountId)).filter((e) => e.subject === recorded.inflowId);
      assert.is(credited.length, 1);
      const data = JSON.parse(credited[0]!.body).data;
      assert.equal([data.source, data.amount, data.balance], ['bank_transfer', 4950, 4960]);
      assert.equal(data.funding, {
        provider: 'paystack',
        provider_reference: recorded.providerReference,
        amount_paid: 5000,
        fee: 50,
        payer_name: 'RANDALL HORTON',
      });
      const again = await h.store.ledger.post({
        kind: 'inflow_credit',
        inflowId: recorded.inflowId,
        credit: { accountId, mode: 'live', feeKobo: kobo(0), at: at(31) },
        from: 'verified',
      });
      assert.is(again.outcome, 'already_credited');
      assert.is(await h.balance(accountId), 496_000);
      assert.is(
        await h.store.ledger
          .post({
            kind: 'inflow_credit',
            inflowId: 'inf_missing',
            credit: { accountId, mode: 'live', feeKobo: kobo(0), at: at(31) },
            from: 'verified',
          })
          .then((r) => r.outcome),
        'not_found',
      );
    });

    it("an operator's credit says so in its event", async (h) => {
      const accountId = await h.account(700);
      const data = JSON.parse((await feed(h, accountId))[0]!.body).data;
      assert.is(data.source, 'operator');
      assert.is(data.funding, undefined);
    });

    it('50 concurrent records and credits of the same transfer credit it once', async (h) => {
      const accountId = await h.account();
      const base = inflow(h, { accountId, mode: 'test' });
      const recorded = await Promise.all(
        Array.from({ length: 50 }, () =>
          h.store.ledger.post({ kind: 'inflow_record', inflow: { ...base, inflowId: newInflowId() }, credit: null }),
        ),
      );
      assert.is(recorded.filter((r) => r.created).length, 1);
      assert.is(new Set(recorded.map((r) => r.inflow.inflowId)).size, 1);
      const inflowId = recorded[0]!.inflow.inflowId;
      const results = await Promise.all(
        Array.from({ length: 50 }, () =>
          h.store.ledger.post({
            kind: 'inflow_credit',
            inflowId,
            credit: { accountId, mode: 'test', feeKobo: kobo(0), at: at(40) },
            from: 'verified',
          }),
        ),
      );
      assert.is(results.filter((r) => r.outcome === 'credited').length, 1);
      assert.is(results.filter((r) => r.outcome === 'already_credited').length, 49);
      assert.is(await h.balance(accountId, 'test'), 500_000);
      assert.is((await h.ledger(accountId, AUDIT_PAGE_LIMIT, 'test')).length, 1);
    });

    it('a new verified transfer is credited in the same call, once; a repeat or an unmatched one is not', async (h) => {
      const accountId = await h.account(1_000);
      const first = inflow(h, { accountId });
      const credit = { feeKobo: kobo(5_000), at: at(30) };
      const results = await Promise.all(
        Array.from({ length: 20 }, () =>
          h.store.ledger.post({ kind: 'inflow_record', inflow: { ...first, inflowId: newInflowId() }, credit }),
        ),
      );
      const created = results.filter((r) => r.created);
      assert.is(created.length, 1);
      assert.is(created[0]!.credit?.outcome, 'credited');
      assert.ok(results.filter((r) => !r.created).every((r) => r.credit === null));
      assert.is(await h.balance(accountId), 496_000);
      const inflowId = created[0]!.inflow.inflowId;
      assert.equal((await h.ledger(accountId)).filter((e) => e.reference === inflowId).length, 1);
      assert.is((await feed(h, accountId)).filter((e) => e.subject === inflowId).length, 1);
      const stored = await h.store.funding.getInflow(inflowId);
      assert.equal([stored!.status, stored!.feeKobo, stored!.creditedKobo], ['credited', 5_000, 495_000]);
      // Recorded unmatched, it waits for a person, whatever wallet it names.
      const lost = await h.store.ledger.post({
        kind: 'inflow_record',
        inflow: inflow(h, { status: 'unmatched', reason: 'no virtual account has this number' }),
        credit,
      });
      assert.equal([lost.created, lost.credit, lost.inflow.status], [true, null, 'unmatched']);
      assert.is(await h.balance(accountId), 496_000);
    });

    it("an unmatched inflow's reason is replaced while it waits, and only then", async (h) => {
      const accountId = await h.account();
      const lost = await h.store.ledger.post({
        kind: 'inflow_record',
        inflow: inflow(h, { status: 'unmatched', reason: 'no virtual account has this number' }),
        credit: null,
      });
      const found = await h.store.funding.reconsiderInflow(
        lost.inflow.inflowId,
        'the provider says another customer was paid',
        at(50),
      );
      assert.equal([found?.status, found?.reason], ['unmatched', 'the provider says another customer was paid']);
      assert.is(
        (await h.store.funding.getInflow(lost.inflow.inflowId))?.reason,
        'the provider says another customer was paid',
      );
      await h.store.ledger.post({
        kind: 'inflow_credit',
        inflowId: lost.inflow.inflowId,
        credit: { accountId, mode: 'live', feeKobo: kobo(0), at: at(51) },
        from: 'unmatched',
      });
      const late = await h.store.funding.reconsiderInflow(lost.inflow.inflowId, 'too late', at(52));
      assert.equal([late?.status, late?.reason], ['credited', '']);
      assert.is(await h.store.funding.reconsiderInflow('inf_missing', 'x', at(53)), null);
    });

    it('an unmatched inflow waits; assigning credits it once; a rejected one is never credited', async (h) => {
      const accountId = await h.account();
      const lost = await h.store.ledger.post({
        kind: 'inflow_record',
        inflow: inflow(h, { status: 'unmatched', reason: 'unknown account number' }),
        credit: null,
      });
      assert.equal(
        (await h.store.funding.listInflows('unmatched', 10)).map((i) => i.inflowId),
        [lost.inflow.inflowId],
      );
      // Not verified: the notification path's credit leaves it alone.
      const wrong = await h.store.ledger.post({
        kind: 'inflow_credit',
        inflowId: lost.inflow.inflowId,
        credit: { accountId, mode: 'live', feeKobo: kobo(0), at: at(50) },
        from: 'verified',
      });
      assert.is(wrong.outcome, 'wrong_status');
      assert.is(await h.balance(accountId), 0);
      const assigned = await Promise.all(
        [1, 2, 3].map(() =>
          h.store.ledger.post({
            kind: 'inflow_credit',
            inflowId: lost.inflow.inflowId,
            credit: { accountId, mode: 'live', feeKobo: kobo(0), at: at(51) },
            from: 'unmatched',
          }),
        ),
      );
      assert.equal(assigned.map((r) => r.outcome).sort(), ['already_credited', 'already_credited', 'credited']);
      assert.is(await h.balance(accountId), 500_000);
      assert.equal(await h.store.funding.listInflows('unmatched', 10), []);
      // A credited inflow cannot be rejected afterwards.
      assert.is(
        (
          await h.store.ledger.post({
            kind: 'inflow_reject',
            inflowId: lost.inflow.inflowId,
            reason: 'too late',
            at: at(52),
          })
        )?.status,
        'credited',
      );

      const other = await h.store.ledger.post({
        kind: 'inflow_record',
        inflow: inflow(h, { status: 'unmatched', reason: 'amount differs' }),
        credit: null,
      });
      const rejected = await h.store.ledger.post({
        kind: 'inflow_reject',
        inflowId: other.inflow.inflowId,
        reason: 'returned to the sender',
        at: at(53),
      });
      assert.equal([rejected?.status, rejected?.reason], ['rejected', 'returned to the sender']);
      const refused = await h.store.ledger.post({
        kind: 'inflow_credit',
        inflowId: other.inflow.inflowId,
        credit: { accountId, mode: 'live', feeKobo: kobo(0), at: at(54) },
        from: 'unmatched',
      });
      assert.is(refused.outcome, 'wrong_status');
      assert.is(await h.balance(accountId), 500_000);
      assert.is(
        await h.store.ledger.post({ kind: 'inflow_reject', inflowId: 'inf_missing', reason: 'x', at: at(55) }),
        null,
      );
      assert.equal(
        (await h.store.funding.listAccountInflows(accountId, 'live', 10)).map((i) => i.inflowId),
        [lost.inflow.inflowId],
      );
    });

    it('crediting an inflow to a missing account writes nothing', async (h) => {
      const { inflow: recorded } = await h.store.ledger.post({
        kind: 'inflow_record',
        inflow: inflow(h),
        credit: null,
      });
      const result = await h.store.ledger.post({
        kind: 'inflow_credit',
        inflowId: recorded.inflowId,
        credit: { accountId: 'nobody', mode: 'live', feeKobo: kobo(0), at: at(60) },
        from: 'verified',
      });
      assert.is(result.outcome, 'no_account');
      assert.is((await h.store.funding.getInflow(recorded.inflowId))?.status, 'verified');
    });

    it('a debit that crosses the low-balance threshold writes one wallet.low_balance event per crossing', async (h) => {
      const accountId = await h.account(30_000);
      assert.is(await h.store.funding.setLowBalanceThreshold(accountId, 'live', kobo(20_000)), true);
      assert.is(await h.store.funding.setLowBalanceThreshold('nobody', 'live', kobo(20_000)), false);
      assert.is(await h.store.funding.getLowBalanceThreshold(accountId, 'live'), 20_000);
      assert.is(await h.store.funding.getLowBalanceThreshold(accountId, 'test'), null);
      const lowEvents = async () =>
        (await feed(h, accountId)).filter((e) => e.type === 'wallet.low_balance').map((e) => JSON.parse(e.body).data);
      await h.reserved(h.purchase(accountId, { chargedKobo: kobo(9_800) })); // 30,000 -> 20,200: still at or above
      assert.equal(await lowEvents(), []);
      const crossing = await h.reserved(h.purchase(accountId, { chargedKobo: kobo(9_800) })); // -> 10,400: crosses
      await h.reserved(h.purchase(accountId, { chargedKobo: kobo(9_800) })); // -> 600: already below
      assert.equal(await lowEvents(), [{ balance: 104, threshold: 200 }]);
      assert.is((await feed(h, accountId)).find((e) => e.type === 'wallet.low_balance')?.subject, crossing.reference);
      await h.store.ledger.post({
        kind: 'credit',
        credit: {
          accountId,
          mode: 'live',
          amountKobo: kobo(30_000),
          reference: h.unique('top-up'),
          memo: '',
          at: at(70),
        },
      });
      await h.reserved(h.purchase(accountId, { chargedKobo: kobo(20_000) })); // 30,600 -> 10,600: crosses again
      assert.equal(await lowEvents(), [
        { balance: 104, threshold: 200 },
        { balance: 106, threshold: 200 },
      ]);
      // The test wallet has no threshold: its debits write none.
      await h.creditTest(accountId, 30_000);
      await h.reserved(h.purchase(accountId, { mode: 'test', chargedKobo: kobo(25_000) }));
      assert.is(
        (await h.store.events.listFeed(accountId, 'test', 0, 10)).filter((e) => e.type === 'wallet.low_balance').length,
        0,
      );
      assert.is(await h.store.funding.setLowBalanceThreshold(accountId, 'live', null), true);
      assert.is(await h.store.funding.getLowBalanceThreshold(accountId, 'live'), null);
    });

    it('an opening answered later keeps its identity, and one of many concurrent claims wins it', async (h) => {
      const accountId = await h.account();
      const customerRef = h.unique('CUS_');
      const opening = {
        provider: 'paystack' as const,
        customerRef,
        accountId,
        mode: 'live' as const,
        kycKind: 'bvn' as const,
        kycLast4: '2222',
        kycHash: 'a'.repeat(64),
        createdAt: at(5),
      };
      await h.store.funding.saveOpening(opening);
      assert.equal(await h.store.funding.getOpening('paystack', customerRef), {
        ...opening,
        status: 'pending',
        claimedAt: null,
        updatedAt: at(5),
      });
      assert.is(await h.store.funding.getOpening('monnify', customerRef), null);
      // The fallback of a claim never overwrites what the request kept.
      const fallback = { ...opening, kycLast4: '9999', kycHash: '', createdAt: at(6) };
      const claims = await Promise.all(
        Array.from({ length: 20 }, () => h.store.funding.claimOpening(fallback, at(6), at(1))),
      );
      const won = claims.filter((c) => c !== null);
      assert.is(won.length, 1);
      assert.equal(
        [won[0]!.status, won[0]!.claimedAt, won[0]!.kycHash, won[0]!.kycLast4],
        ['opening', at(6), 'a'.repeat(64), '2222'],
      );
      // A new request while it is being opened leaves the claim alone.
      await h.store.funding.saveOpening({ ...opening, kycLast4: '1111', createdAt: at(7) });
      assert.is((await h.store.funding.getOpening('paystack', customerRef))?.status, 'opening');
      assert.is((await h.store.funding.getOpening('paystack', customerRef))?.kycLast4, '2222');
      // A claim older than the lease may be taken over (its claimer died); a fresh one may not.
      assert.is(await h.store.funding.claimOpening(fallback, at(8), at(6)), null);
      assert.equal((await h.store.funding.claimOpening(fallback, at(9), at(7)))?.claimedAt, at(9));
      // Released after a failure, it can be claimed again; once opened, never.
      await h.store.funding.finishOpening('paystack', customerRef, 'pending', at(10));
      assert.equal((await h.store.funding.claimOpening(fallback, at(11), at(1)))?.status, 'opening');
      await h.store.funding.finishOpening('paystack', customerRef, 'opened', at(12));
      assert.equal(await h.store.funding.getOpening('paystack', customerRef), {
        ...opening,
        status: 'opened',
        claimedAt: null,
        updatedAt: at(12),
      });
      assert.is(await h.store.funding.claimOpening(fallback, at(13), at(13)), null);
      // A new request after it opened (the account was closed) makes it pending again.
      await h.store.funding.saveOpening({ ...opening, kycLast4: '3333', createdAt: at(14) });
      assert.equal(
        [
          (await h.store.funding.getOpening('paystack', customerRef))?.status,
          (await h.store.funding.getOpening('paystack', customerRef))?.kycLast4,
        ],
        ['pending', '3333'],
      );
    });

    it('a claim on an opening nobody kept inserts it from the fallback', async (h) => {
      const accountId = await h.account();
      const customerRef = h.unique('CUS_');
      const fallback = {
        provider: 'paystack' as const,
        customerRef,
        accountId,
        mode: 'test' as const,
        kycKind: 'bvn' as const,
        kycLast4: '4444',
        kycHash: '',
        createdAt: at(20),
      };
      const claims = await Promise.all(
        Array.from({ length: 10 }, () => h.store.funding.claimOpening(fallback, at(20), at(10))),
      );
      assert.is(claims.filter((c) => c !== null).length, 1);
      assert.equal(await h.store.funding.getOpening('paystack', customerRef), {
        ...fallback,
        status: 'opening',
        claimedAt: at(20),
        updatedAt: at(20),
      });
    });
  });

  define('password reset links and notices', (it) => {
    const reset = (tokenHash: string, userId: string, createdSeconds: number) => ({
      tokenHash,
      userId,
      createdAt: at(createdSeconds),
      expiresAt: at(createdSeconds + 3_600),
      usedAt: null,
    });

    it('a link is used once, within its hour, and using it ends the other open links of that person', async (h) => {
      const first = reset(h.unique('hash'), 'usr_reset_a', 10);
      const second = reset(h.unique('hash'), 'usr_reset_a', 20);
      const other = reset(h.unique('hash'), 'usr_reset_b', 20);
      for (const one of [first, second, other]) await h.store.passwordResets.insert(one);
      assert.equal(await h.store.passwordResets.find(first.tokenHash), first);
      assert.is(await h.store.passwordResets.find('no-such-hash'), null);
      // Past its hour, a link is refused and stays as it was.
      assert.is(await h.store.passwordResets.claim(first.tokenHash, at(10 + 3_600)), null);
      assert.is((await h.store.passwordResets.find(first.tokenHash))?.usedAt, null);
      assert.equal(await h.store.passwordResets.claim(first.tokenHash, at(100)), first);
      assert.equal((await h.store.passwordResets.find(first.tokenHash))?.usedAt, at(100));
      assert.is(await h.store.passwordResets.claim(first.tokenHash, at(101)), null, 'used once only');
      assert.is(
        await h.store.passwordResets.claim(second.tokenHash, at(102)),
        null,
        'the other link of that person ended',
      );
      assert.equal(
        await h.store.passwordResets.claim(other.tokenHash, at(103)),
        other,
        "another person's link still works",
      );
    });

    it('two claims of one link at once: exactly one wins', async (h) => {
      const one = reset(h.unique('hash'), 'usr_reset_c', 10);
      await h.store.passwordResets.insert(one);
      const results = await Promise.all([
        h.store.passwordResets.claim(one.tokenHash, at(20)),
        h.store.passwordResets.claim(one.tokenHash, at(20)),
      ]);
      assert.is(results.filter((r) => r !== null).length, 1);
    });

    it('a notice key is claimed once', async (h) => {
      const key = h.unique('low_balance:evt');
      assert.is(await h.store.notices.claimOnce(key, at(1)), true);
      assert.is(await h.store.notices.claimOnce(key, at(2)), false);
      assert.is(await h.store.notices.claimOnce(h.unique('low_balance:evt'), at(3)), true);
    });

    it("lists the live wallet's credits and manual debits since a time, and no test wallet's", async (h) => {
      const accountId = await h.account(30_000);
      await h.creditTest(accountId, 30_000);
      const ours = (await h.store.notices.walletMoneySince(new Date(0), 1_000)).filter(
        (e) => e.accountId === accountId,
      );
      assert.ok(ours.length > 0, "the account's live credit");
      assert.ok(
        ours.every((e) => e.mode === 'live' && (e.type === 'wallet.credited' || e.type === 'wallet.debited')),
        ours.map((e) => `${e.type} ${e.mode}`).join(', '),
      );
      const after = new Date(ours.at(-1)!.createdAt.getTime() + 1);
      const later = (await h.store.notices.walletMoneySince(after, 1_000)).filter((e) => e.accountId === accountId);
      assert.is(later.length, 0);
    });

    it('lists live low-balance events since a time, oldest first, and no other event', async (h) => {
      const accountId = await h.account(30_000);
      await h.store.funding.setLowBalanceThreshold(accountId, 'live', kobo(20_000));
      await h.store.funding.setLowBalanceThreshold(accountId, 'test', kobo(20_000));
      await h.creditTest(accountId, 30_000);
      const crossing = await h.reserved(h.purchase(accountId, { chargedKobo: kobo(15_000) }));
      await h.reserved(h.purchase(accountId, { mode: 'test', chargedKobo: kobo(15_000) }));
      const ours = (await h.store.notices.lowBalanceSince(new Date(0), 1_000)).filter((e) => e.accountId === accountId);
      assert.equal(
        ours.map((e) => [e.type, e.mode, e.subject]),
        [['wallet.low_balance', 'live', crossing.reference]],
      );
      const after = new Date(ours[0]!.createdAt.getTime() + 1);
      assert.is(
        (await h.store.notices.lowBalanceSince(after, 1_000)).filter((e) => e.accountId === accountId).length,
        0,
      );
    });
  });

  define('supply', (it) => {
    it("an upstream's answers are kept with the write they led to, in order, once each, bounded", async (h) => {
      const accountId = await h.account(50_000);
      const tx = await h.reserved(h.purchase(accountId));
      await h.store.supply.beginAttempt({ reference: tx.reference, seq: 1, upstream: 'ck', at: at(11) });
      const said = (source: 'purchase' | 'requery' | 'callback', body: string) => ({ source, upstream: 'ck', body });
      await h.store.wallet.recordAttempt(
        tx.reference,
        { attempts: 1, nextAttemptAt: at(60), needsAttention: false, at: at(12) },
        { seq: 1, outcome: 'pending', evidence: 'http 200', costKobo: null },
        [said('purchase', '{"status":"pending"}')],
      );
      const requery = { attempts: 2, nextAttemptAt: at(90), needsAttention: false, at: at(61) };
      await h.store.wallet.recordAttempt(tx.reference, requery, undefined, [said('requery', '{"status":"pending"}')]);
      await h.store.wallet.recordAttempt(tx.reference, { ...requery, attempts: 3, at: at(62) }, undefined, [
        said('requery', '{"status":"pending"}'),
      ]);
      await h.store.ledger.post({
        kind: 'settle',
        reference: tx.reference,
        result: { token: '1234' },
        at: at(70),
        answers: [
          said('callback', '{"type":"transaction-update"}'),
          said('requery', '{"status":"delivered","token":"1234"}'),
        ],
      });
      assert.equal(
        (await h.store.supply.answersOf(tx.reference)).map((a) => [a.n, a.upstream, a.source, a.body, a.at]),
        [
          [1, 'ck', 'purchase', '{"status":"pending"}', at(12)],
          [2, 'ck', 'requery', '{"status":"pending"}', at(61)],
          [3, 'ck', 'callback', '{"type":"transaction-update"}', at(70)],
          [4, 'ck', 'requery', '{"status":"delivered","token":"1234"}', at(70)],
        ],
        'the same answer again is not kept twice',
      );
      const refused = await h.reserved(h.purchase(accountId));
      await h.store.supply.beginAttempt({ reference: refused.reference, seq: 1, upstream: 'ck', at: at(11) });
      await h.store.supply.endAttempt(refused.reference, 1, {
        outcome: 'not_delivered',
        evidence: 'http 200, code 401',
        costKobo: null,
        at: at(12),
        answers: [said('purchase', 'HTTP 200 {"statuscode":"401"}')],
      });
      await h.store.ledger.post({
        kind: 'refund',
        reference: refused.reference,
        reason: 'refused',
        at: at(13),
        answers: [said('purchase', 'second')],
      });
      assert.equal(
        (await h.store.supply.answersOf(refused.reference)).map((a) => a.body),
        ['HTTP 200 {"statuscode":"401"}', 'second'],
      );
      assert.equal(await h.store.supply.answersOf('TX-none'), []);
    });

    it('a purchase keeps at most RAW_ANSWERS_PER_PURCHASE answers: the first ones and the newest', async (h) => {
      const accountId = await h.account(50_000);
      const tx = await h.reserved(h.purchase(accountId));
      for (let i = 1; i <= RAW_ANSWERS_PER_PURCHASE + 3; i += 1) {
        await h.store.wallet.recordAttempt(
          tx.reference,
          { attempts: i, nextAttemptAt: at(1000 + i), needsAttention: false, at: at(100 + i) },
          undefined,
          [{ source: 'requery', upstream: 'vtpass', body: `answer ${i}` }],
        );
      }
      const kept = await h.store.supply.answersOf(tx.reference);
      assert.is(kept.length, RAW_ANSWERS_PER_PURCHASE);
      assert.equal(kept[0]?.body, 'answer 1');
      assert.equal(kept[RAW_ANSWERS_PER_PURCHASE - 2]?.body, `answer ${RAW_ANSWERS_PER_PURCHASE - 1}`);
      assert.equal(
        kept[RAW_ANSWERS_PER_PURCHASE - 1]?.body,
        `answer ${RAW_ANSWERS_PER_PURCHASE + 3}`,
        'the newest last',
      );
    });

    it("an attempt keeps the upstream's own id from the write that ends it, for re-queries by it", async (h) => {
      const accountId = await h.account(50_000);
      const pending = await h.reserved(h.purchase(accountId));
      await h.store.supply.beginAttempt({ reference: pending.reference, seq: 1, upstream: 'site', at: at(11) });
      await h.store.wallet.recordAttempt(
        pending.reference,
        { attempts: 1, nextAttemptAt: at(60), needsAttention: false, at: at(12) },
        { seq: 1, outcome: 'pending', evidence: 'http 201, processing', costKobo: null, upstreamReference: '108602' },
      );
      await h.store.wallet.recordAttempt(pending.reference, {
        attempts: 2,
        nextAttemptAt: at(90),
        needsAttention: false,
        at: at(61),
      });
      const delivered = await h.reserved(h.purchase(accountId));
      await h.store.supply.beginAttempt({ reference: delivered.reference, seq: 1, upstream: 'site', at: at(11) });
      await h.store.ledger.post({
        kind: 'settle',
        reference: delivered.reference,
        result: {},
        at: at(13),
        attempt: {
          seq: 1,
          outcome: 'delivered',
          evidence: null,
          costKobo: null,
          upstreamReference: '108603',
        },
      });
      const none = await h.reserved(h.purchase(accountId));
      await h.store.supply.beginAttempt({ reference: none.reference, seq: 1, upstream: 'site', at: at(11) });
      await h.store.wallet.recordAttempt(
        none.reference,
        { attempts: 1, nextAttemptAt: at(60), needsAttention: false, at: at(12) },
        { seq: 1, outcome: 'pending', evidence: 'timeout', costKobo: null },
      );
      const ids = async (reference: string) =>
        (await h.store.supply.attemptsOf(reference)).map((a) => [a.outcome, a.upstreamReference]);
      assert.equal(await ids(pending.reference), [['pending', '108602']], 'kept through later re-queries');
      assert.equal(await ids(delivered.reference), [['delivered', '108603']]);
      assert.equal(await ids(none.reference), [['pending', null]], 'none given: null');
    });

    it('a pending attempt found delivered later gets the outcome and the cost, once', async (h) => {
      const accountId = await h.account(50_000);
      const tx = await h.reserved(h.purchase(accountId));
      await h.store.supply.beginAttempt({ reference: tx.reference, seq: 1, upstream: 'ck', at: at(11) });
      await h.store.supply.endAttempt(tx.reference, 1, {
        outcome: 'pending',
        evidence: 'timeout',
        costKobo: null,
        at: at(12),
      });
      assert.is(
        await h.store.ledger.post({
          kind: 'cost_learnt',
          reference: tx.reference,
          seq: 1,
          costKobo: kobo(9_650),
          at: at(40),
        }),
        true,
      );
      assert.is(
        await h.store.ledger.post({
          kind: 'cost_learnt',
          reference: tx.reference,
          seq: 1,
          costKobo: kobo(9_999),
          at: at(41),
        }),
        false,
        'a second answer changes nothing',
      );
      const crashed = await h.reserved(h.purchase(accountId));
      await h.store.supply.beginAttempt({ reference: crashed.reference, seq: 1, upstream: 'vtpass', at: at(13) });
      assert.is(
        await h.store.ledger.post({
          kind: 'cost_learnt',
          reference: crashed.reference,
          seq: 1,
          costKobo: null,
          at: at(42),
        }),
        true,
        'one never ended',
      );
      assert.is(
        await h.store.ledger.post({
          kind: 'cost_learnt',
          reference: crashed.reference,
          seq: 2,
          costKobo: null,
          at: at(42),
        }),
        false,
        'no such attempt',
      );
      assert.equal(
        [
          ...(await h.store.supply.attemptsOf(tx.reference)),
          ...(await h.store.supply.attemptsOf(crashed.reference)),
        ].map((a) => [a.upstream, a.outcome, a.evidence, a.costKobo, a.endedAt]),
        [
          ['ck', 'delivered', 'timeout', kobo(9_650), at(12)],
          ['vtpass', 'delivered', null, null, at(42)],
        ],
      );
    });

    it('an upstream attempt is recorded once before its call and ended once, in order per purchase', async (h) => {
      const accountId = await h.account(50_000);
      const tx = await h.reserved(h.purchase(accountId));
      assert.equal(await h.store.supply.attemptsOf(tx.reference), [], 'none before the first call');
      assert.is(
        await h.store.supply.beginAttempt({ reference: tx.reference, seq: 1, upstream: 'ck', at: at(11) }),
        true,
      );
      assert.is(
        await h.store.supply.beginAttempt({ reference: tx.reference, seq: 1, upstream: 'vtpass', at: at(12) }),
        false,
        'the same attempt twice writes nothing',
      );
      await h.store.supply.endAttempt(tx.reference, 1, {
        outcome: 'not_delivered',
        evidence: 'refused',
        costKobo: null,
        at: at(12),
      });
      await h.store.supply.endAttempt(tx.reference, 1, {
        outcome: 'delivered',
        evidence: null,
        costKobo: kobo(9_700),
        at: at(13),
      });
      assert.is(
        await h.store.supply.beginAttempt({ reference: tx.reference, seq: 2, upstream: 'vtpass', at: at(13) }),
        true,
      );
      await h.store.supply.endAttempt(tx.reference, 2, {
        outcome: 'delivered',
        evidence: 'http 200, code 000, delivered',
        costKobo: kobo(9_800),
        at: at(14),
      });
      assert.equal(await h.store.supply.attemptsOf(tx.reference), [
        {
          reference: tx.reference,
          seq: 1,
          upstream: 'ck',
          startedAt: at(11),
          outcome: 'not_delivered',
          evidence: 'refused',
          costKobo: null,
          upstreamReference: null,
          endedAt: at(12),
        },
        {
          reference: tx.reference,
          seq: 2,
          upstream: 'vtpass',
          startedAt: at(13),
          outcome: 'delivered',
          evidence: 'http 200, code 000, delivered',
          costKobo: kobo(9_800),
          upstreamReference: null,
          endedAt: at(14),
        },
      ]);
      assert.is(
        await h.store.ledger.post({
          kind: 'cost_learnt',
          reference: tx.reference,
          seq: 1,
          costKobo: kobo(9_600),
          at: at(20),
        }),
        false,
        'an attempt that did not deliver stays as it is',
      );
      assert.is(
        await h.store.ledger.post({
          kind: 'cost_learnt',
          reference: tx.reference,
          seq: 2,
          costKobo: kobo(9_600),
          at: at(20),
        }),
        false,
        'nor does one delivered already',
      );
      assert.equal((await h.store.supply.attemptsOf(tx.reference))[1]?.costKobo, kobo(9_800));
      const other = await h.reserved(h.purchase(accountId));
      await h.store.supply.beginAttempt({ reference: other.reference, seq: 1, upstream: 'sandbox', at: at(30) });
      assert.equal(
        (await h.store.supply.attemptsBetween(at(11), at(30), 10)).map((a) => [a.upstream, a.seq]),
        [
          ['ck', 1],
          ['vtpass', 2],
        ],
        'a window is [from, to)',
      );
      assert.is((await h.store.supply.attemptsBetween(at(0), at(31), 2)).length, 2, 'bounded by the limit');
    });

    it('a reserve writes the first attempt with the purchase, and a refused reserve writes none', async (h) => {
      const accountId = await h.account(50_000);
      const tx = h.purchase(accountId);
      const reserved = await h.store.ledger.post({ kind: 'reserve', tx, first: { upstream: 'ck' } });
      assert.is(reserved.outcome, 'reserved');
      assert.equal(await h.store.supply.attemptsOf(tx.reference), [
        {
          reference: tx.reference,
          seq: 1,
          upstream: 'ck',
          startedAt: tx.createdAt,
          outcome: null,
          evidence: null,
          costKobo: null,
          upstreamReference: null,
          endedAt: null,
        },
      ]);
      assert.is(
        await h.store.supply.beginAttempt({ reference: tx.reference, seq: 1, upstream: 'vtpass', at: at(12) }),
        false,
        'seq 1 exists already',
      );
      const short = h.purchase(accountId, { chargedKobo: kobo(1_000_000) });
      assert.is(
        (await h.store.ledger.post({ kind: 'reserve', tx: short, first: { upstream: 'ck' } })).outcome,
        'insufficient',
      );
      assert.equal(await h.store.supply.attemptsOf(short.reference), [], 'no purchase, no attempt');
      const keyed = h.purchase(accountId, { requestId: 'first-attempt' });
      await h.reserved(keyed);
      const again = h.purchase(accountId, { requestId: 'first-attempt' });
      assert.is(
        (await h.store.ledger.post({ kind: 'reserve', tx: again, first: { upstream: 'vtpass' } })).outcome,
        'duplicate',
      );
      assert.equal(await h.store.supply.attemptsOf(again.reference), [], 'a duplicate writes no attempt');
    });

    it('a settle, refund or pending write ends the attempt it names, once, moved or not', async (h) => {
      const accountId = await h.account(50_000);
      const ended = (seq: number, outcome: 'delivered' | 'failed' | 'pending', costKobo: number | null = null) => ({
        seq,
        outcome,
        evidence: outcome === 'delivered' ? null : `http 200, ${outcome}`,
        costKobo: costKobo === null ? null : kobo(costKobo),
      });
      const settled = h.purchase(accountId);
      await h.store.ledger.post({ kind: 'reserve', tx: settled, first: { upstream: 'ck' } });
      const moved = await h.store.ledger.post({
        kind: 'settle',
        reference: settled.reference,
        result: { providerReference: 'P-1' },
        at: at(20),
        attempt: ended(1, 'delivered', 9_700),
      });
      assert.is(moved?.changed, true);
      const [first] = await h.store.supply.attemptsOf(settled.reference);
      assert.equal([first?.outcome, first?.costKobo, first?.endedAt], ['delivered', kobo(9_700), at(20)]);
      // Already final and already ended: neither changes.
      const again = await h.store.ledger.post({
        kind: 'settle',
        reference: settled.reference,
        result: { providerReference: 'P-2' },
        at: at(21),
        attempt: ended(1, 'failed'),
      });
      assert.is(again?.changed, false);
      assert.is((await h.store.supply.attemptsOf(settled.reference))[0]?.outcome, 'delivered');

      const refunded = h.purchase(accountId);
      await h.store.ledger.post({ kind: 'reserve', tx: refunded, first: { upstream: 'ck' } });
      await h.store.supply.endAttempt(refunded.reference, 1, {
        outcome: 'not_delivered',
        evidence: 'refused',
        costKobo: null,
        at: at(15),
      });
      await h.store.supply.beginAttempt({ reference: refunded.reference, seq: 2, upstream: 'vtpass', at: at(15) });
      assert.is(
        (
          await h.store.ledger.post({
            kind: 'refund',
            reference: refunded.reference,
            reason: 'bad number',
            at: at(22),
            attempt: ended(2, 'failed'),
          })
        )?.changed,
        true,
      );
      assert.equal(
        (await h.store.supply.attemptsOf(refunded.reference)).map((a) => [a.seq, a.upstream, a.outcome, a.endedAt]),
        [
          [1, 'ck', 'not_delivered', at(15)],
          [2, 'vtpass', 'failed', at(22)],
        ],
      );

      const pending = h.purchase(accountId);
      await h.store.ledger.post({ kind: 'reserve', tx: pending, first: { upstream: 'vtpass' } });
      const next = { attempts: 1, nextAttemptAt: at(600), needsAttention: false, at: at(23) };
      await h.store.wallet.recordAttempt(pending.reference, next, ended(1, 'pending'));
      const [open] = await h.store.supply.attemptsOf(pending.reference);
      assert.equal([open?.outcome, open?.endedAt], ['pending', at(23)]);
      assert.is((await h.store.transactions.get(pending.reference))?.attempts, 1, 'the pending write itself');
    });

    it('routes are set, replaced and cleared by their key, each change returning the row before', async (h) => {
      const key = { product: 'data' as const, network: 'mtn', planType: 'sme', disco: '' };
      assert.equal(await h.store.supply.listRoutes(), []);
      assert.is(await h.store.supply.setRoute({ ...key, upstreams: ['datahub', 'vtpass'], updatedAt: at(1) }), null);
      await h.store.supply.setRoute({
        product: 'airtime',
        network: '',
        planType: '',
        disco: '',
        upstreams: ['ck'],
        updatedAt: at(2),
      });
      const before = await h.store.supply.setRoute({ ...key, upstreams: ['vtpass'], updatedAt: at(3) });
      assert.equal(before, { ...key, upstreams: ['datahub', 'vtpass'], updatedAt: at(1) });
      assert.equal(await h.store.supply.listRoutes(), [
        { product: 'airtime', network: '', planType: '', disco: '', upstreams: ['ck'], updatedAt: at(2) },
        { ...key, upstreams: ['vtpass'], updatedAt: at(3) },
      ]);
      assert.equal(await h.store.supply.clearRoute(key), { ...key, upstreams: ['vtpass'], updatedAt: at(3) });
      assert.is(await h.store.supply.clearRoute(key), null, 'cleared once');
      assert.is((await h.store.supply.listRoutes()).length, 1);
    });

    it("an upstream's settings are replaced whole, the row before returned", async (h) => {
      assert.equal(await h.store.supply.listUpstreamSettings(), []);
      assert.is(
        await h.store.supply.setUpstreamSettings({ upstream: 'ck', floatAlertKobo: kobo(5_000_000), updatedAt: at(1) }),
        null,
      );
      const before = await h.store.supply.setUpstreamSettings({
        upstream: 'ck',
        floatAlertKobo: null,
        updatedAt: at(2),
      });
      assert.equal(before, { upstream: 'ck', floatAlertKobo: kobo(5_000_000), updatedAt: at(1) });
      assert.equal(await h.store.supply.listUpstreamSettings(), [
        { upstream: 'ck', floatAlertKobo: null, updatedAt: at(2) },
      ]);
    });

    it('upstream plan codes are set, replaced, cleared by (plan, upstream), listed by upstream, plan', async (h) => {
      const plan = (label: string): PlanRecord => ({
        planId: 0,
        network: 'mtn',
        label,
        validity: '30 days',
        type: 'sme',
        sizeMb: 1024,
        validityDays: 30,
        faceValueKobo: kobo(300_00),
        tierPricesKobo: {},
        costsKobo: {},
        active: true,
        providerCode: '',
      });
      const one = (await h.store.catalog.upsertPlan(plan('1GB'))).planId;
      const two = (await h.store.catalog.upsertPlan(plan('2GB'))).planId;
      assert.equal(await h.store.planCodes.list({}), []);
      assert.is(await h.store.planCodes.set({ planId: two, upstream: 'ck', code: '1000.01', updatedAt: at(1) }), null);
      await h.store.planCodes.set({ planId: one, upstream: 'ck', code: '500.01', updatedAt: at(2) });
      await h.store.planCodes.set({ planId: one, upstream: 'datahub', code: '353', updatedAt: at(3) });
      const before = await h.store.planCodes.set({ planId: two, upstream: 'ck', code: '1000.02', updatedAt: at(4) });
      assert.equal(before, { planId: two, upstream: 'ck', code: '1000.01', updatedAt: at(1) });
      assert.equal(await h.store.planCodes.list({}), [
        { planId: one, upstream: 'ck', code: '500.01', updatedAt: at(2) },
        { planId: two, upstream: 'ck', code: '1000.02', updatedAt: at(4) },
        { planId: one, upstream: 'datahub', code: '353', updatedAt: at(3) },
      ]);
      assert.equal(await h.store.planCodes.list({ upstream: 'datahub' }), [
        { planId: one, upstream: 'datahub', code: '353', updatedAt: at(3) },
      ]);
      assert.equal(await h.store.planCodes.list({ upstream: 'nobody' }), []);
      assert.equal(await h.store.planCodes.clear(one, 'ck'), {
        planId: one,
        upstream: 'ck',
        code: '500.01',
        updatedAt: at(2),
      });
      assert.is(await h.store.planCodes.clear(one, 'ck'), null, 'cleared once');
      assert.equal(
        (await h.store.planCodes.list({})).map((c) => [c.upstream, c.planId]),
        [
          ['ck', two],
          ['datahub', one],
        ],
        'the other upstream keeps its code for the same plan',
      );
    });
  });

  define('reports', (it) => {
    /** Reports are read in Lagos days: an instant is moved by one hour before it is cut into days. */
    const LAGOS = 3_600_000;
    /** A month far from the suite's other times, so no other case's rows fall inside. */
    const utc = (day: number, hour: number, minute = 0) => new Date(Date.UTC(2031, 2, day, hour, minute));
    const dayOf = (day: number) => Date.UTC(2031, 2, day) / 86_400_000;
    const window = { from: new Date(Date.UTC(2031, 2, 1) - LAGOS), until: new Date(Date.UTC(2031, 2, 3) - LAGOS) };

    /** A live purchase made at `createdAt`, its attempts (upstream, outcome, cost) and its end. */
    async function sale(
      h: Harness,
      accountId: string,
      createdAt: Date,
      attempts: ReadonlyArray<readonly [string, 'delivered' | 'not_delivered' | 'failed' | 'pending', number | null]>,
      end: 'settle' | 'refund' | 'reverse' | 'pending',
      overrides: Partial<NewTransaction> = {},
    ): Promise<void> {
      const tx = await h.reserved(h.purchase(accountId, { createdAt, ...overrides }));
      for (const [i, [upstream, outcome, cost]] of attempts.entries()) {
        await h.store.supply.beginAttempt({ reference: tx.reference, seq: i + 1, upstream, at: createdAt });
        await h.store.supply.endAttempt(tx.reference, i + 1, {
          outcome,
          evidence: null,
          costKobo: cost === null ? null : kobo(cost),
          at: createdAt,
        });
      }
      if (end === 'settle' || end === 'reverse')
        await h.store.ledger.post({
          kind: 'settle',
          reference: tx.reference,
          result: { providerReference: 'P' },
          at: createdAt,
        });
      if (end === 'reverse')
        await h.store.ledger.post({
          kind: 'reverse',
          reference: tx.reference,
          reason: 'reversed upstream',
          at: createdAt,
        });
      if (end === 'refund')
        await h.store.ledger.post({
          kind: 'refund',
          reference: tx.reference,
          reason: 'failed upstream',
          at: createdAt,
        });
    }

    /** Figures with every field named, zero unless given. */
    function figures(f: Partial<SalesDayRow> & Pick<SalesDayRow, 'day' | 'key'>): SalesDayRow {
      return {
        salesCount: 0,
        chargedKobo: kobo(0),
        refundCount: 0,
        refundedKobo: kobo(0),
        pendingCount: 0,
        pendingKobo: kobo(0),
        costedCount: 0,
        costKobo: kobo(0),
        costUnknownCount: 0,
        costUnknownChargedKobo: kobo(0),
        ...f,
      };
    }

    async function seedSales(h: Harness): Promise<void> {
      const standard = await h.account(1_000_000);
      const api = await h.account(1_000_000, 'api');
      await h.creditTest(standard, 100_000);
      // Lagos 1 March: a delivery of known cost; a failover delivered by the second upstream at
      // a known cost, made at 23:30 UTC, which is 2 March in Lagos; data delivered at an unknown
      // cost; a failed purchase (refunded); a pending one; a delivery reversed later (refunded,
      // its cost not counted); a delivery recorded before upstreams were (no attempt at all).
      await sale(h, standard, utc(1, 10), [['ck', 'delivered', 9_600]], 'settle');
      await sale(
        h,
        standard,
        utc(1, 23, 30),
        [
          ['ck', 'not_delivered', null],
          ['vtpass', 'delivered', 9_700],
        ],
        'settle',
      );
      await sale(h, api, utc(1, 12), [['vtpass', 'delivered', null]], 'settle', {
        product: 'data',
        chargedKobo: kobo(50_000),
      });
      await sale(h, standard, utc(1, 13), [['ck', 'failed', null]], 'refund');
      await sale(h, api, utc(1, 14), [['ck', 'pending', null]], 'pending');
      await sale(h, standard, utc(1, 15), [['ck', 'delivered', 9_600]], 'reverse');
      await sale(h, api, utc(1, 16), [], 'settle', { chargedKobo: kobo(20_000) });
      // Outside: a test purchase, the last Lagos minute before the period, the first after it.
      await sale(h, standard, utc(1, 11), [['sandbox', 'delivered', 9_000]], 'settle', { mode: 'test' });
      await sale(h, standard, new Date(Date.UTC(2031, 1, 28, 22, 59)), [['ck', 'delivered', 1]], 'settle');
      await sale(h, standard, utc(2, 23), [['ck', 'delivered', 1]], 'settle');
    }

    it('report: live sales by product per Lagos day: charged, refunds, pending, known and unknown cost', async (h) => {
      await seedSales(h);
      assert.equal(await h.store.reports.salesByDay({ ...window, offsetMs: LAGOS }, 'product'), [
        figures({
          day: dayOf(1),
          key: 'airtime',
          salesCount: 5,
          chargedKobo: kobo(9_800 * 4 + 20_000),
          refundCount: 2,
          refundedKobo: kobo(9_800 * 2),
          pendingCount: 1,
          pendingKobo: kobo(9_800),
          costedCount: 1,
          costKobo: kobo(9_600),
          costUnknownCount: 1,
          costUnknownChargedKobo: kobo(20_000),
        }),
        figures({
          day: dayOf(1),
          key: 'data',
          salesCount: 1,
          chargedKobo: kobo(50_000),
          costUnknownCount: 1,
          costUnknownChargedKobo: kobo(50_000),
        }),
        figures({
          day: dayOf(2),
          key: 'airtime',
          salesCount: 1,
          chargedKobo: kobo(9_800),
          costedCount: 1,
          costKobo: kobo(9_700),
        }),
      ]);
    });

    it('report: sales by upstream go to the last one called ("" for none); by tier to the account tier', async (h) => {
      await seedSales(h);
      const read = (group: 'upstream' | 'tier') => h.store.reports.salesByDay({ ...window, offsetMs: LAGOS }, group);
      assert.equal(await read('upstream'), [
        figures({
          day: dayOf(1),
          key: '',
          salesCount: 1,
          chargedKobo: kobo(20_000),
          costUnknownCount: 1,
          costUnknownChargedKobo: kobo(20_000),
        }),
        figures({
          day: dayOf(1),
          key: 'ck',
          salesCount: 4,
          chargedKobo: kobo(9_800 * 4),
          refundCount: 2,
          refundedKobo: kobo(9_800 * 2),
          pendingCount: 1,
          pendingKobo: kobo(9_800),
          costedCount: 1,
          costKobo: kobo(9_600),
        }),
        figures({
          day: dayOf(1),
          key: 'vtpass',
          salesCount: 1,
          chargedKobo: kobo(50_000),
          costUnknownCount: 1,
          costUnknownChargedKobo: kobo(50_000),
        }),
        figures({
          day: dayOf(2),
          key: 'vtpass',
          salesCount: 1,
          chargedKobo: kobo(9_800),
          costedCount: 1,
          costKobo: kobo(9_700),
        }),
      ]);
      const tiers = await read('tier');
      assert.equal(
        tiers.map((r) => [r.day - dayOf(1), r.key, r.salesCount, r.chargedKobo, r.costKobo, r.costUnknownCount]),
        [
          [0, 'api', 3, 50_000 + 9_800 + 20_000, 0, 2],
          [0, 'standard', 3, 9_800 * 3, 9_600, 0],
          [1, 'standard', 1, 9_800, 9_700, 0],
        ],
      );
    });

    it('report: funding sums live inflows by Lagos day and provider: paid, credited, fees, unmatched', async (h) => {
      const accountId = await h.account();
      const record = async (provider: 'paystack' | 'monnify', amount: number, createdAt: Date, mode: Mode = 'live') =>
        (
          await h.store.ledger.post({
            kind: 'inflow_record',
            inflow: {
              inflowId: newInflowId(),
              provider,
              providerReference: h.unique('REF'),
              accountNumber: '9930000737',
              accountId: null,
              mode,
              amountPaidKobo: kobo(amount),
              payerName: 'ADA OBI',
              status: 'verified',
              reason: '',
              raw: '{}',
              createdAt,
            },
            credit: null,
          })
        ).inflow.inflowId;
      const credited = await record('paystack', 500_000, utc(1, 9));
      await h.store.ledger.post({
        kind: 'inflow_credit',
        inflowId: credited,
        credit: { accountId, mode: 'live', feeKobo: kobo(5_000), at: utc(1, 9) },
        from: 'verified',
      });
      await record('paystack', 200_000, utc(1, 10));
      const unmatched = await h.store.ledger.post({
        kind: 'inflow_record',
        inflow: {
          inflowId: newInflowId(),
          provider: 'monnify',
          providerReference: h.unique('REF'),
          accountNumber: '',
          accountId: null,
          mode: 'live',
          amountPaidKobo: kobo(70_000),
          payerName: 'NOBODY',
          status: 'unmatched',
          reason: 'unknown account',
          raw: '{}',
          createdAt: utc(1, 23, 30),
        },
        credit: null,
      });
      assert.is(unmatched.inflow.status, 'unmatched');
      await record('paystack', 900_000, utc(1, 11), 'test');
      await record('paystack', 900_000, utc(2, 23));
      assert.equal(await h.store.reports.fundingByDay({ ...window, offsetMs: LAGOS }), [
        {
          day: dayOf(1),
          provider: 'paystack',
          count: 2,
          amountPaidKobo: kobo(700_000),
          creditedCount: 1,
          feeKobo: kobo(5_000),
          creditedKobo: kobo(495_000),
          unmatchedCount: 0,
          unmatchedKobo: kobo(0),
        },
        {
          day: dayOf(2),
          provider: 'monnify',
          count: 1,
          amountPaidKobo: kobo(70_000),
          creditedCount: 0,
          feeKobo: kobo(0),
          creditedKobo: kobo(0),
          unmatchedCount: 1,
          unmatchedKobo: kobo(70_000),
        },
      ]);
    });

    it("report: the operator's manual credits and debits of live wallets per Lagos day, test money left out", async (h) => {
      const accountId = await h.account();
      const credit = (amountKobo: number, at: Date, mode: 'live' | 'test' = 'live') =>
        h.store.ledger.post({
          kind: 'credit',
          credit: { accountId, mode, amountKobo: kobo(amountKobo), reference: h.unique('CR'), memo: 'by hand', at },
        });
      await credit(3_650_050, utc(10, 9));
      await credit(100_000, utc(10, 23, 30)); // 00:30 on the 11th in Lagos
      await credit(500_000, utc(10, 10), 'test');
      const debited = await h.store.ledger.post({
        kind: 'debit',
        debit: {
          accountId,
          mode: 'live',
          amountKobo: kobo(50_000),
          reference: h.unique('DR'),
          reason: 'fix',
          at: utc(10, 12),
        },
      });
      assert.ok(debited, 'the debit is covered');
      const manual = { from: utc(9, 23), until: utc(11, 23), offsetMs: LAGOS };
      assert.equal(await h.store.reports.manualByDay(manual), [
        { day: dayOf(10), creditCount: 1, creditedKobo: kobo(3_650_050), debitCount: 1, debitedKobo: kobo(50_000) },
        { day: dayOf(11), creditCount: 1, creditedKobo: kobo(100_000), debitCount: 0, debitedKobo: kobo(0) },
      ]);
    });

    it('report: a period with nothing in it has no rows', async (h) => {
      const empty = { from: utc(20, 0), until: utc(21, 0), offsetMs: LAGOS };
      assert.equal(await h.store.reports.salesByDay(empty, 'product'), []);
      assert.equal(await h.store.reports.fundingByDay(empty), []);
      assert.equal(await h.store.reports.manualByDay(empty), []);
    });
  });

  define('the books', (it) => {
    /** One reference's entries as kind and postings, the way docs/money.md lists them. */
    async function booked(h: Harness, reference: string): Promise<{ kind: string; postings: Posting[] }[]> {
      return (await h.store.books.entriesOf(reference)).map((e) => ({ kind: e.kind, postings: e.postings }));
    }
    async function trial(h: Harness): Promise<Map<string, number>> {
      const sums = new Map<string, number>();
      for (const row of await h.store.books.sums()) if (row.mode === 'live') sums.set(row.account, row.sumKobo);
      assert.is(
        [...sums.values()].reduce((a, b) => a + b, 0),
        0,
        'the trial balance is zero',
      );
      return sums;
    }

    it('a delivered purchase holds its charge, then books revenue and its cost against the float', async (h) => {
      const accountId = await h.account(20_000);
      const tx = h.purchase(accountId);
      const reserved = await h.store.ledger.post({ kind: 'reserve', tx, first: { upstream: 'vtpass' } });
      assert.is(reserved.outcome, 'reserved');
      const end = { seq: 1, outcome: 'delivered' as const, evidence: null, costKobo: kobo(9_500) };
      await h.store.ledger.post({
        kind: 'settle',
        reference: tx.reference,
        result: { providerReference: 'VT-1' },
        at: at(30),
        attempt: end,
      });
      assert.equal(await booked(h, tx.reference), [
        {
          kind: 'reserve',
          postings: [
            { account: `wallet:${accountId}`, amountKobo: 9_800 },
            { account: 'held:purchases', amountKobo: -9_800 },
          ],
        },
        {
          kind: 'settle',
          postings: [
            { account: 'held:purchases', amountKobo: 9_800 },
            { account: 'revenue:sales', amountKobo: -9_800 },
            { account: 'upstream:vtpass:cost', amountKobo: 9_500 },
            { account: 'upstream:vtpass:float', amountKobo: -9_500 },
          ],
        },
      ]);
      const sums = await trial(h);
      assert.is(sums.get(`wallet:${accountId}`), -10_200, 'the wallet is minus its balance');
      assert.is(sums.get('upstream:vtpass:float'), -9_500);
      // Reversed: what the settle booked comes back, the cost into the float.
      await h.store.ledger.post({ kind: 'reverse', reference: tx.reference, reason: 'upstream reversed', at: at(40) });
      const [, , reversal] = await booked(h, tx.reference);
      assert.equal(reversal, {
        kind: 'reverse',
        postings: [
          { account: 'revenue:sales', amountKobo: 9_800 },
          { account: `wallet:${accountId}`, amountKobo: -9_800 },
          { account: 'upstream:vtpass:cost', amountKobo: -9_500 },
          { account: 'upstream:vtpass:float', amountKobo: 9_500 },
        ],
      });
      assert.is((await trial(h)).get('upstream:vtpass:float'), 0);
    });

    it('a failed purchase gives back what was held; a pending one stays held', async (h) => {
      const accountId = await h.account(20_000);
      const failed = await h.reserved(h.purchase(accountId));
      const pending = await h.reserved(h.purchase(accountId));
      await h.store.ledger.post({
        kind: 'refund',
        reference: failed.reference,
        reason: 'upstream refused',
        at: at(30),
      });
      assert.equal(
        (await booked(h, failed.reference)).map((e) => e.kind),
        ['reserve', 'refund'],
      );
      assert.equal(
        (await booked(h, pending.reference)).map((e) => e.kind),
        ['reserve'],
      );
      assert.is((await trial(h)).get('held:purchases'), -9_800, "only the pending purchase's charge is held");
    });

    it('a cost learnt after the settle moves revenue of unknown cost to revenue, once', async (h) => {
      const accountId = await h.account(20_000);
      const tx = h.purchase(accountId);
      await h.store.ledger.post({ kind: 'reserve', tx, first: { upstream: 'clubkonnect' } });
      await h.store.ledger.post({ kind: 'settle', reference: tx.reference, result: {}, at: at(30) });
      assert.is((await trial(h)).get('revenue:sales_cost_unknown'), -9_800, 'no cost was known: no margin claimed');
      assert.is(
        await h.store.ledger.post({
          kind: 'cost_learnt',
          reference: tx.reference,
          seq: 1,
          costKobo: kobo(9_650),
          at: at(31),
        }),
        true,
      );
      assert.is(
        await h.store.ledger.post({
          kind: 'cost_learnt',
          reference: tx.reference,
          seq: 1,
          costKobo: kobo(9_650),
          at: at(32),
        }),
        false,
      );
      const sums = await trial(h);
      assert.is(sums.get('revenue:sales_cost_unknown'), 0);
      assert.is(sums.get('revenue:sales'), -9_800);
      assert.is(sums.get('upstream:clubkonnect:float'), -9_650);
    });

    it('an inflow is received at the clearing, held, then credited less the fee, or returned', async (h) => {
      const accountId = await h.account();
      const ours = {
        inflowId: newInflowId(),
        provider: 'paystack' as const,
        providerReference: h.unique('PSK'),
        accountNumber: '9930000737',
        accountId,
        mode: 'live' as const,
        amountPaidKobo: kobo(500_000),
        payerName: 'ADA OBI',
        status: 'verified' as const,
        reason: '',
        raw: '{}',
        createdAt: at(20),
      };
      await h.store.ledger.post({ kind: 'inflow_record', inflow: ours, credit: null });
      await h.store.ledger.post({
        kind: 'inflow_credit',
        inflowId: ours.inflowId,
        credit: { accountId, mode: 'live', feeKobo: kobo(5_000), at: at(21) },
        from: 'verified',
      });
      const strange = {
        ...ours,
        inflowId: newInflowId(),
        providerReference: h.unique('PSK'),
        accountId: null,
        status: 'unmatched' as const,
        reason: 'no wallet',
      };
      await h.store.ledger.post({ kind: 'inflow_record', inflow: strange, credit: null });
      assert.is((await trial(h)).get('held:inflows'), -500_000, 'the unmatched transfer is held for a person');
      await h.store.ledger.post({ kind: 'inflow_reject', inflowId: strange.inflowId, reason: 'not ours', at: at(22) });
      const sums = await trial(h);
      assert.is(sums.get('held:inflows'), 0);
      assert.is(sums.get('funding:paystack:clearing'), 500_000, 'only our transfer waits at the provider');
      assert.is(sums.get('revenue:funding_fees'), -5_000);
      assert.is(sums.get(`wallet:${accountId}`), -495_000);
    });

    it("the operator's own entries are booked once with their audit row", async (h) => {
      const entry = {
        kind: 'upstream_funded' as const,
        mode: 'live' as const,
        reference: h.unique('TOPUP'),
        at: at(5),
        postings: upstreamFundedPostings('vtpass', kobo(1_000_000)),
      };
      const audit = {
        at: at(5),
        actor: 'cli',
        action: 'upstreams.fund',
        target: 'vtpass',
        before: null,
        after: null,
        address: null,
        note: '',
      };
      const first = await h.store.ledger.post({ kind: 'own_entry', entry, audit });
      assert.is(first.replayed, false);
      const again = await h.store.ledger.post({
        kind: 'own_entry',
        entry: { ...entry, postings: upstreamFundedPostings('vtpass', kobo(5)) },
        audit,
      });
      assert.is(again.replayed, true, 'the same reference books nothing twice');
      assert.equal(again.entry.postings, first.entry.postings);
      assert.is((await trial(h)).get('upstream:vtpass:float'), 1_000_000);
      assert.is((await h.store.auditLog.list({ action: 'upstreams.fund', limit: 10 })).length, 1);
    });

    it('sums until a time leave out the entries after it', async (h) => {
      const accountId = await h.account(20_000);
      await h.reserved(h.purchase(accountId, { createdAt: at(100) }));
      const before = new Map((await h.store.books.sums(at(50))).map((r) => [r.account, r.sumKobo]));
      assert.is(before.get(`wallet:${accountId}`), -20_000);
      assert.is(before.get('held:purchases') ?? 0, 0);
    });

    it("one account's sum until a time, and one kind's entries in a window", async (h) => {
      const upstream = h.unique('up');
      const audit = { at: at(5), actor: 'cli', action: 'upstreams.fund', target: upstream, before: null, after: null };
      const fund = (reference: string, when: Date, amount: number) =>
        h.store.ledger.post({
          kind: 'own_entry',
          entry: {
            kind: 'upstream_funded',
            mode: 'live',
            reference,
            at: when,
            postings: upstreamFundedPostings(upstream, kobo(amount)),
          },
          audit: { ...audit, address: null, note: '' },
        });
      const first = h.unique('TOPUP');
      await fund(first, at(10), 50_000);
      await fund(h.unique('TOPUP'), at(40), 20_000);
      const float = `upstream:${upstream}:float`;
      assert.is(await h.store.books.sumOf(float, 'live'), 70_000);
      assert.is(await h.store.books.sumOf(float, 'live', at(40)), 50_000, 'an entry at `until` is left out');
      assert.is(await h.store.books.sumOf(float, 'live', at(10)), 0);
      assert.is(await h.store.books.sumOf(float, 'test'), 0, 'the other mode has books of its own');
      assert.is(await h.store.books.sumOf('upstream:nobody:float', 'live'), 0);
      const window = await h.store.books.entriesBetween('upstream_funded', 'live', at(0), at(40), 10);
      assert.equal(
        window.filter((e) => e.postings.some((p) => p.account === float)).map((e) => e.reference),
        [first],
        'from inclusive, until exclusive',
      );
      assert.is((await h.store.books.entriesBetween('upstream_funded', 'live', at(0), at(99), 1)).length, 1, 'bounded');
      assert.is((await h.store.books.entriesBetween('reserve', 'live', at(0), at(99), 10)).length, 0);
    });

    // The reports' books (docs/money.md, The books): a reversal, and a cost learnt around one.
    it('a reversal takes back a cost learnt after the settle; a cost learnt after a reversal books nothing', async (h) => {
      const accountId = await h.account(30_000);
      const learntFirst = h.purchase(accountId);
      const reversedFirst = h.purchase(accountId);
      for (const tx of [learntFirst, reversedFirst]) {
        await h.store.ledger.post({ kind: 'reserve', tx, first: { upstream: 'clubkonnect' } });
        await h.store.ledger.post({ kind: 'settle', reference: tx.reference, result: {}, at: at(30) });
      }
      const learn = (reference: string) =>
        h.store.ledger.post({ kind: 'cost_learnt', reference, seq: 1, costKobo: kobo(9_650), at: at(31) });
      const reverse = (reference: string) =>
        h.store.ledger.post({ kind: 'reverse', reference, reason: 'upstream reversed', at: at(32) });
      await learn(learntFirst.reference);
      await reverse(learntFirst.reference);
      const [, , , reversal] = await booked(h, learntFirst.reference);
      assert.equal(reversal, {
        kind: 'reverse',
        postings: [
          { account: 'revenue:sales', amountKobo: 9_800 },
          { account: `wallet:${accountId}`, amountKobo: -9_800 },
          { account: 'upstream:clubkonnect:cost', amountKobo: -9_650 },
          { account: 'upstream:clubkonnect:float', amountKobo: 9_650 },
        ],
      });
      await reverse(reversedFirst.reference);
      assert.is(await learn(reversedFirst.reference), true, 'the attempt is marked delivered');
      assert.equal(
        (await booked(h, reversedFirst.reference)).map((e) => e.kind),
        ['reserve', 'settle', 'reverse'],
        'no cost for a delivery already undone',
      );
      const sums = await trial(h);
      for (const account of ['revenue:sales', 'revenue:sales_cost_unknown', 'upstream:clubkonnect:cost'])
        assert.is(sums.get(account) ?? 0, 0, `${account} holds nothing of two reversed purchases`);
    });

    it('random sequences of every money move keep the trial balance zero and each wallet its postings', async (h) => {
      await randomMoves({ store: h.store, account: () => h.account(), unique: (kind) => h.unique(kind) });
    });
  });

  define('reconciliation findings', (it) => {
    const finding = (reference: string, overrides: Partial<ReconcileFindingRecord> = {}): ReconcileFindingRecord => ({
      day: '2025-06-01',
      upstream: 'site',
      reference,
      class: 'failed_here_delivered_there',
      atStakeKobo: kobo(-9_700),
      ourCostKobo: null,
      theirChargedKobo: kobo(9_700),
      outcome: 'failed',
      theirStatus: 'delivered',
      theirCharges: null,
      reason: null,
      evidence: '{"Status": "successful"}',
      foundAt: at(10),
      ...overrides,
    });

    it('a finding is kept once per day, upstream, reference and class, whatever a rerun says', async (h) => {
      const reference = h.unique('TX');
      const other = h.unique('TX');
      assert.is(await h.store.findings.record([finding(reference), finding(other, { class: 'cost_differs' })]), 2);
      assert.is(
        await h.store.findings.record([finding(reference, { atStakeKobo: kobo(-1), foundAt: at(20) })]),
        0,
        'a rerun adds nothing',
      );
      assert.is(await h.store.findings.record([finding(reference, { class: 'charged_twice_there' })]), 1);
      assert.is(await h.store.findings.record([finding(reference, { day: '2025-06-02' })]), 1, 'another day');
      assert.is(await h.store.findings.record([]), 0);
      const mine = (list: ReconcileFindingRecord[]) => list.filter((f) => f.reference === reference);
      const day = mine(await h.store.findings.listDay('2025-06-01', 'site'));
      assert.equal(
        day.map((f) => [f.class, f.atStakeKobo, f.foundAt.getTime()]),
        [
          ['charged_twice_there', -9_700, at(10).getTime()],
          ['failed_here_delivered_there', -9_700, at(10).getTime()],
        ],
        'the first write is kept',
      );
      assert.equal(day[1], finding(reference));
      assert.is(mine(await h.store.findings.listDay('2025-06-01', 'elsewhere')).length, 0);
      const open = await h.store.findings.listOpen(100);
      assert.is(mine(open).length, 3);
      assert.is(open[0]!.day, '2025-06-01', 'oldest day first');
      assert.is((await h.store.findings.listOpen(1)).length, 1, 'bounded');
    });
  });

  define('the books under four eyes: own-money proposals, findings resolved, the daily run kept', (it) => {
    const topUpProposal = (upstream: string, reference: string): ProposalRecord => ({
      proposalId: `prp_${reference}`,
      kind: 'upstream_topup',
      accountId: '',
      target: upstream,
      amountKobo: kobo(300_000),
      feeKobo: kobo(0),
      note: 'float top-up',
      reference,
      memo: '',
      proposedBy: 'staff:ada@example.ng',
      proposedAt: at(1),
      expiresAt: at(100),
      status: 'pending',
      decidedBy: null,
      decidedAt: null,
      appliedAt: null,
    });
    const approval = (proposalId: string, upstream: string, reference: string) => ({
      kind: 'approve' as const,
      proposalId,
      by: 'staff:bola@example.ng',
      at: at(10),
      move: {
        kind: 'own_entry' as const,
        entry: {
          kind: 'upstream_funded' as const,
          mode: 'live' as const,
          reference,
          at: at(10),
          postings: upstreamFundedPostings(upstream, kobo(300_000)),
        },
      },
      audit: { actor: 'staff:bola@example.ng', address: null, note: '', before: null, afterExtra: {} },
    });

    it('an approved top-up books its entry, marks the proposal applied and audits it in one move, once', async (h) => {
      const upstream = h.unique('up');
      const reference = h.unique('GTB');
      const proposal = await h.store.proposals.insert(topUpProposal(upstream, reference));
      assert.is(proposal.feeKobo, 0);
      const approved = await h.store.ledger.post(approval(proposal.proposalId, upstream, reference));
      assert.is(approved.outcome, 'applied');
      if (approved.outcome !== 'applied') return;
      assert.ok(approved.proposal.appliedAt !== null);
      assert.is(await h.store.books.sumOf(`upstream:${upstream}:float`, 'live'), 300_000);
      const rows = await h.store.auditLog.list({ target: proposal.proposalId, limit: 5 });
      assert.equal(
        rows.map((r) => r.action),
        ['proposal.approve'],
      );
      const again = await h.store.ledger.post(approval(proposal.proposalId, upstream, reference));
      assert.is(again.outcome, 'not_pending', 'approved twice: nothing written');
      assert.is(await h.store.books.sumOf(`upstream:${upstream}:float`, 'live'), 300_000);
    });

    it('a top-up whose reference was booked by hand meanwhile is not applied, and stays pending', async (h) => {
      const upstream = h.unique('up');
      const reference = h.unique('GTB');
      const proposal = await h.store.proposals.insert(topUpProposal(upstream, reference));
      const direct = approval(proposal.proposalId, upstream, reference).move.entry;
      const audit = {
        at: at(5),
        actor: 'cli',
        action: 'books.fund_upstream',
        target: reference,
        before: null,
        after: null,
      };
      await h.store.ledger.post({ kind: 'own_entry', entry: direct, audit: { ...audit, address: null, note: '' } });
      const approved = await h.store.ledger.post(approval(proposal.proposalId, upstream, reference));
      assert.is(approved.outcome, 'not_applied');
      assert.is((await h.store.proposals.get(proposal.proposalId))!.status, 'pending', 'the decision rolled back');
      assert.is(await h.store.books.sumOf(`upstream:${upstream}:float`, 'live'), 300_000, 'booked once, by hand');
      const settled: ProposalRecord = {
        ...topUpProposal('paystack', h.unique('STL')),
        kind: 'provider_settlement',
        feeKobo: kobo(1_500),
      };
      assert.is((await h.store.proposals.insert(settled)).feeKobo, 1_500, "a settlement's fee is kept");
      const retried = await h.store.proposals.insert({ ...settled, proposalId: 'prp_other' });
      assert.is(retried.proposalId, settled.proposalId, 'once per kind and reference');
    });

    it('a finding is resolved once, keeps who and why, and leaves the open list', async (h) => {
      const reference = h.unique('TX');
      const f = {
        day: '2025-07-01',
        upstream: 'site',
        reference,
        class: 'cost_differs' as const,
        atStakeKobo: kobo(-300),
        ourCostKobo: kobo(9_700),
        theirChargedKobo: kobo(10_000),
        outcome: 'success' as const,
        theirStatus: 'delivered' as const,
        theirCharges: 1,
        reason: null,
        evidence: null,
        foundAt: at(10),
      };
      await h.store.findings.record([f, { ...f, day: '2025-07-02' }]);
      const key = { day: '2025-07-01', upstream: 'site', class: 'cost_differs', reference };
      const resolution = {
        at: at(20),
        by: 'staff:ada@example.ng',
        note: 'their commission changed',
        correctedBy: null,
      };
      const first = await h.store.findings.resolve(key, resolution);
      assert.equal(first, { finding: { ...f, resolution }, changed: true });
      const second = await h.store.findings.resolve(key, { ...resolution, by: 'cli', note: 'again' });
      assert.equal(second, { finding: { ...f, resolution }, changed: false }, 'the first resolution is kept');
      assert.is(await h.store.findings.resolve({ ...key, reference: h.unique('TX') }, resolution), null);
      const mine = (list: { reference: string; day: string }[]) =>
        list.filter((x) => x.reference === reference).map((x) => x.day);
      assert.equal(mine(await h.store.findings.listOpen(1_000)), ['2025-07-02']);
      assert.equal(mine(await h.store.findings.list(true, 1_000)), ['2025-07-02']);
      assert.equal(mine(await h.store.findings.list(false, 1_000)), ['2025-07-02', '2025-07-01'], 'newest day first');
    });

    it("an upstream's last day run moves only forward, and its float readings are kept once, in time order", async (h) => {
      const upstream = h.unique('up');
      assert.is(await h.store.findings.lastDay(upstream), null);
      await h.store.findings.markDay(upstream, '2025-07-02', at(1));
      await h.store.findings.markDay(upstream, '2025-07-01', at(2));
      assert.is(await h.store.findings.lastDay(upstream), '2025-07-02', 'an earlier day changes nothing');
      await h.store.findings.markDay(upstream, '2025-07-03', at(3));
      assert.is(await h.store.findings.lastDay(upstream), '2025-07-03');
      await h.store.findings.keepReading(upstream, { at: at(30), balanceKobo: kobo(50_000) });
      await h.store.findings.keepReading(upstream, { at: at(20), balanceKobo: kobo(60_000) });
      await h.store.findings.keepReading(upstream, { at: at(20), balanceKobo: kobo(1) });
      await h.store.findings.keepReading(h.unique('up'), { at: at(25), balanceKobo: kobo(7) });
      assert.equal(await h.store.findings.readingsBetween(upstream, at(0), at(99), 10), [
        { at: at(20), balanceKobo: 60_000 },
        { at: at(30), balanceKobo: 50_000 },
      ]);
      assert.equal(await h.store.findings.readingsBetween(upstream, at(21), at(30), 10), [], 'until is exclusive');
      assert.is((await h.store.findings.readingsBetween(upstream, at(0), at(99), 1)).length, 1, 'bounded');
    });
  });

  define('wallet manual debit', (it) => {
    const debitOf = (accountId: string, amount: number, reference: string, overrides: Partial<DebitInput> = {}) => ({
      accountId,
      mode: 'live' as const,
      amountKobo: kobo(amount),
      reference,
      reason: 'Chargeback from the bank',
      at: at(30),
      ...overrides,
    });

    it('a manual debit takes money out with its reason and writes wallet.debited in the same move', async (h) => {
      const accountId = await h.account(50_000);
      const debited = await h.store.ledger.post({ kind: 'debit', debit: debitOf(accountId, 12_500, 'prp_1') });
      assert.equal(debited, {
        outcome: 'debited',
        balanceKobo: kobo(37_500),
        replayed: false,
        entry: {
          entryId: debited.outcome === 'debited' ? debited.entry.entryId : 0,
          accountId,
          mode: 'live',
          amountKobo: kobo(-12_500),
          balanceAfterKobo: kobo(37_500),
          kind: 'manual_debit',
          reference: 'prp_1',
          memo: 'Chargeback from the bank',
          createdAt: at(30),
        },
      });
      assert.is(await h.balance(accountId), 37_500);
      const events = await h.store.events.listFeed(accountId, 'live', 0, 10);
      assert.equal(
        events.map((e) => [e.type, e.subject]),
        [
          ['wallet.credited', events[0]!.subject],
          ['wallet.debited', 'prp_1'],
        ],
      );
      assert.equal(JSON.parse(events[1]!.body).data, {
        reference: 'prp_1',
        amount: 125,
        balance: 375,
        reason: 'Chargeback from the bank',
        source: 'operator',
      });
    });

    it('a debit retried with its reference takes the money once, even at the same moment', async (h) => {
      const accountId = await h.account(10_000);
      const results = await Promise.all(
        [1, 2, 3].map(() => h.store.ledger.post({ kind: 'debit', debit: debitOf(accountId, 4_000, 'R-9') })),
      );
      assert.equal(
        results.map((r) => (r.outcome === 'debited' ? r.replayed : r.outcome)).sort(),
        [false, true, true],
        'one writes, the others answer it',
      );
      const later = await h.store.ledger.post({
        kind: 'debit',
        debit: debitOf(accountId, 9_999, 'R-9', { at: at(50) }),
      });
      assert.ok(later.outcome === 'debited' && later.replayed && later.entry.amountKobo === -4_000, 'the first debit');
      assert.is(await h.balance(accountId), 6_000);
      const debits = (await h.ledger(accountId)).filter((e) => e.kind === 'manual_debit');
      assert.is(debits.length, 1);
      const events = await h.store.events.listFeed(accountId, 'live', 0, 10);
      assert.is(events.filter((e) => e.type === 'wallet.debited').length, 1, 'one event for the one debit');
    });

    it('a debit the wallet does not cover is refused with the balance and writes nothing', async (h) => {
      const accountId = await h.account(3_000);
      assert.equal(await h.store.ledger.post({ kind: 'debit', debit: debitOf(accountId, 3_001, 'R-1') }), {
        outcome: 'insufficient',
        balanceKobo: kobo(3_000),
      });
      assert.is(await h.balance(accountId), 3_000);
      assert.is((await h.ledger(accountId)).length, 1, 'only the opening credit');
      const events = await h.store.events.listFeed(accountId, 'live', 0, 10);
      assert.equal(
        events.map((e) => e.type),
        ['wallet.credited'],
      );
      // The whole balance may go, to zero and no further.
      const all = await h.store.ledger.post({ kind: 'debit', debit: debitOf(accountId, 3_000, 'R-2') });
      assert.is(all.outcome === 'debited' ? all.balanceKobo : -1, 0);
    });

    it('an unknown account is no_account; the test wallet is debited apart from the live one', async (h) => {
      assert.equal(await h.store.ledger.post({ kind: 'debit', debit: debitOf('nobody', 100, 'R-1') }), {
        outcome: 'no_account',
      });
      const accountId = await h.account(5_000);
      await h.creditTest(accountId, 2_000);
      assert.equal(
        await h.store.ledger.post({ kind: 'debit', debit: debitOf(accountId, 2_500, 'R-T', { mode: 'test' }) }),
        {
          outcome: 'insufficient',
          balanceKobo: kobo(2_000),
        },
      );
      const test = await h.store.ledger.post({
        kind: 'debit',
        debit: debitOf(accountId, 1_500, 'R-T', { mode: 'test' }),
      });
      assert.ok(test.outcome === 'debited' && test.entry.mode === 'test');
      assert.is(await h.balance(accountId, 'test'), 500);
      assert.is(await h.balance(accountId), 5_000, 'the live wallet is untouched');
      assert.equal(
        (await h.store.events.listFeed(accountId, 'test', 0, 10))
          .map((e) => e.type)
          .filter((t) => t !== 'wallet.credited'),
        ['wallet.debited'],
      );
    });

    it('a debit that takes the wallet under its threshold writes wallet.low_balance too', async (h) => {
      const accountId = await h.account(10_000);
      assert.ok(await h.store.funding.setLowBalanceThreshold(accountId, 'live', kobo(5_000)));
      await h.store.ledger.post({ kind: 'debit', debit: debitOf(accountId, 6_000, 'R-1') });
      const types = (await h.store.events.listFeed(accountId, 'live', 0, 10)).map((e) => e.type);
      assert.equal(types, ['wallet.credited', 'wallet.debited', 'wallet.low_balance']);
    });

    it('a zero, negative or fractional debit is refused and writes nothing', async (h) => {
      const accountId = await h.account(10_000);
      for (const amount of [0, -5, 1.5]) {
        await h.store.ledger
          .post({ kind: 'debit', debit: { ...debitOf(accountId, 1, `R-${amount}`), amountKobo: unchecked(amount) } })
          .then(
            () => assert.unreachable(`a debit of ${amount} kobo was accepted`),
            (error: unknown) => assert.ok(error instanceof RangeError, 'refused before any write'),
          );
      }
      assert.is(await h.balance(accountId), 10_000);
    });
  });

  define('compatible tokens and plan aliases', (it) => {
    const keyOf = (publicKey: string, accountId: string, mode: Mode = 'live') => ({
      publicKey,
      accountId,
      secretHash: 'b'.repeat(64),
      allowedIps: [],
      revoked: false,
      mode,
      createdAt: at(1),
    });
    const tokenOf = (tokenId: string, hashChar: string, publicKey: string, accountId: string, seconds: number) => ({
      tokenId,
      tokenHash: hashChar.repeat(64),
      lastFour: hashChar.repeat(4),
      dialect: 'msorg' as const,
      inFlight: 'processing' as const,
      publicKey,
      accountId,
      mode: 'live' as const,
      createdAt: at(seconds),
    });
    const planOf = async (h: Harness) =>
      h.store.catalog.upsertPlan({
        planId: 0,
        network: 'mtn',
        label: '500MB',
        validity: '30 days',
        type: 'sme',
        sizeMb: 500,
        validityDays: 30,
        faceValueKobo: kobo(300_00),
        tierPricesKobo: {},
        costsKobo: {},
        active: true,
        providerCode: '',
      });

    it('a token is found by its hash and by its id, listed newest first, and revoked once', async (h) => {
      const accountId = await h.account();
      const other = await h.account();
      await h.store.keys.insert(keyOf(`pk_${h.unique('c')}`, accountId));
      const publicKey = `pk_${h.unique('c')}`;
      await h.store.keys.insert(keyOf(publicKey, accountId));
      const older = tokenOf(h.unique('ct'), 'a', publicKey, accountId, 5);
      const newer = tokenOf(h.unique('ct'), 'c', publicKey, accountId, 9);
      await h.store.compat.insertToken(older);
      await h.store.compat.insertToken(newer);
      assert.equal(await h.store.compat.findToken('a'.repeat(64)), older);
      assert.equal(await h.store.compat.getToken(newer.tokenId), newer);
      assert.is(await h.store.compat.findToken('f'.repeat(64)), null);
      assert.is(await h.store.compat.getToken('ct_nothing'), null);
      assert.equal(
        (await h.store.compat.listTokens(accountId)).map((t) => t.tokenId),
        [newer.tokenId, older.tokenId],
      );
      assert.equal(await h.store.compat.listTokens(other), []);
      const revoked = await h.store.compat.revokeToken(older.tokenId, at(20));
      assert.equal(revoked, { ...older, revokedAt: at(20) });
      assert.is(await h.store.compat.revokeToken(older.tokenId, at(30)), null, 'revoked once');
      assert.equal((await h.store.compat.findToken('a'.repeat(64)))?.revokedAt, at(20));
    });

    it('a second token with the same hash is refused and changes nothing', async (h) => {
      const accountId = await h.account();
      const publicKey = `pk_${h.unique('c')}`;
      await h.store.keys.insert(keyOf(publicKey, accountId));
      const first = tokenOf(h.unique('ct'), 'd', publicKey, accountId, 5);
      await h.store.compat.insertToken(first);
      await h.store.compat.insertToken({ ...first, tokenId: h.unique('ct') }).then(
        () => assert.unreachable('a duplicate hash was kept'),
        () => undefined,
      );
      assert.equal(await h.store.compat.listTokens(accountId), [first]);
    });

    it('plan aliases are set, replaced, listed by dialect and alias, and cleared one or all', async (h) => {
      const accountId = await h.account();
      const other = await h.account();
      const plan = await planOf(h);
      const second = await planOf(h);
      const alias = { accountId, dialect: 'msorg' as const, aliasId: '99', planId: plan.planId, updatedAt: at(4) };
      assert.is(await h.store.compat.setAlias(alias), null);
      const replaced = await h.store.compat.setAlias({ ...alias, planId: second.planId, updatedAt: at(6) });
      assert.equal(replaced, alias);
      await h.store.compat.setAlias({ ...alias, aliasId: '100', updatedAt: at(7) });
      await h.store.compat.setAlias({ ...alias, dialect: 'adex', aliasId: '42', updatedAt: at(8) });
      await h.store.compat.setAlias({ ...alias, accountId: other, updatedAt: at(9) });
      assert.equal(
        (await h.store.compat.listAliases(accountId)).map((a) => `${a.dialect} ${a.aliasId} ${a.planId}`),
        [`adex 42 ${plan.planId}`, `msorg 100 ${plan.planId}`, `msorg 99 ${second.planId}`],
      );
      assert.equal(
        (await h.store.compat.listAliases(accountId, 'msorg')).map((a) => a.aliasId),
        ['100', '99'],
      );
      assert.is(await h.store.compat.clearAliases(accountId, 'msorg', '99'), 1);
      assert.is(await h.store.compat.clearAliases(accountId, 'msorg', '99'), 0);
      assert.is(await h.store.compat.clearAliases(accountId, 'msorg'), 1);
      assert.equal(
        (await h.store.compat.listAliases(accountId)).map((a) => a.aliasId),
        ['42'],
      );
      assert.is((await h.store.compat.listAliases(other)).length, 1, "another account's aliases stay");
    });

    it("an account's callback per dialect is set, replaced, read and cleared, alone", async (h) => {
      const accountId = await h.account();
      const other = await h.account();
      const callback = {
        accountId,
        dialect: 'adex' as const,
        url: 'https://shop.example.com/webhook/a.php',
        updatedAt: at(3),
      };
      assert.is(await h.store.compat.getCallback(accountId, 'adex'), null);
      assert.is(await h.store.compat.setCallback(callback), null);
      const moved = { ...callback, url: 'https://shop.example.com/webhook/b.php', updatedAt: at(5) };
      assert.equal(await h.store.compat.setCallback(moved), callback);
      await h.store.compat.setCallback({ ...callback, accountId: other });
      assert.equal(await h.store.compat.getCallback(accountId, 'adex'), moved);
      assert.is(await h.store.compat.getCallback(accountId, 'msorg'), null, 'another dialect has none');
      assert.equal(await h.store.compat.clearCallback(accountId, 'adex'), moved);
      assert.is(await h.store.compat.clearCallback(accountId, 'adex'), null);
      assert.is(await h.store.compat.getCallback(accountId, 'adex'), null);
      assert.equal((await h.store.compat.getCallback(other, 'adex'))?.url, callback.url, "another account's stays");
    });
  });
}
