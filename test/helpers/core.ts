/**
 * Starts a real core for tests: the embedded store in a fresh temp directory, the sandbox
 * providers, the gRPC server on port 0, and real gRPC clients (Connect over the gRPC
 * transport, as the gateway uses). Nothing is mocked.
 */

import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { DescService } from '@bufbuild/protobuf';
import { type Client, createClient, type Interceptor } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { type BackupSettings, type Core, createCore, type FundingConfig, type WebhookDeps } from '../../core/app.js';
import { API_TIER_ID } from '../../core/catalog/defaults.js';
import { createPlanBook } from '../../core/catalog/plan-codes.js';
import type { VelocitySettings } from '../../core/domain/velocity.js';
import type { MailSettings } from '../../core/mail/smtp.js';
import type { CoreMetrics } from '../../core/metrics.js';
import type { SignUpSettings } from '../../core/people/onboarding.js';
import type { PlanCodes } from '../../core/providers/index.js';
import type { Providers } from '../../core/providers/port.js';
import { createSandbox, type Sandbox } from '../../core/providers/sandbox/index.js';
import type { Supply } from '../../core/providers/supply.js';
import type { Store } from '../../core/store/port.js';
import { openSqliteStore } from '../../core/store/sqlite/index.js';
import { AdminService } from '../../gen/prepaid/v1/admin_pb.js';
import { AuthService } from '../../gen/prepaid/v1/auth_pb.js';
import { PurchaseService } from '../../gen/prepaid/v1/purchase_pb.js';
import { ADMIN_TOKEN_FILE, loadOrCreateToken, SERVICE_TOKEN_FILE } from '../../runtime/tokens.js';

export interface TestCore {
  /** http://127.0.0.1:<port>, for createGrpcTransport. */
  url: string;
  port: number;
  serviceToken: string;
  adminToken: string;
  /** Temp dir holding the database and the token files. */
  dataDir: string;
  store: Store;
  core: Core;
  sandbox: Sandbox;
  admin: Client<typeof AdminService>;
  purchase: Client<typeof PurchaseService>;
  auth: Client<typeof AuthService>;
  /** Builds a client with any token, to test bearer checks. */
  clientWithToken<T extends DescService>(service: T, token: string): Client<T>;
  /** Creates an account on the API tier with a key pair and credits it. */
  createApiAccount(opts?: {
    balanceKobo?: number;
    name?: string;
  }): Promise<{ accountId: string; publicKey: string; secretKey: string }>;
  /** Runs one recovery pass as if every pending transaction were due. */
  recoverNow(): Promise<number>;
  close(): Promise<void>;
}

export function bearer(token: string): Interceptor {
  return (next) => (req) => {
    req.header.set('authorization', `Bearer ${token}`);
    return next(req);
  };
}

export async function startCore(
  options: {
    providerDelayMs?: number;
    providerTimeoutMs?: number;
    recoveryAttentionAfterMs?: number;
    /** Providers to use instead of the sandbox, built over the test's store (e.g. VTpass pointed at a fake). */
    providers?: (store: Store) => Providers;
    /** Routed upstreams instead (core/providers/index.ts createProviders), built over the test's store. */
    upstreams?: (store: Store, planCodes: PlanCodes) => { providers: Providers; supply: Supply };
    /** Receives everything the core logs (silent by default). */
    log?: (event: string, fields: Record<string, unknown>) => void;
    /** The core's clock (sessions, invitations, TOTP), so a test can move time instead of sleeping. */
    clock?: () => Date;
    /** DASHBOARD_PUBLIC_URL. */
    dashboardPublicUrl?: string;
    /** Webhook deliveries: when given, the delivery worker runs. */
    webhooks?: WebhookDeps;
    /** Money in: live providers, fee, KYC key (the sandbox and no fee by default). */
    funding?: FundingConfig;
    /** CLI_MONEY_MOVES. */
    cliMoneyMoves?: 'direct' | 'proposals';
    /** SMTP_URL and MAIL_FROM as the core reads them (nothing is mailed by default). */
    mail?: MailSettings;
    /** SIGNUP and SIGNUP_PER_ADDRESS_DAY (`invite` by default: no sign-up). */
    signUp?: SignUpSettings;
    /** The velocity brake's settings (off by default, so that no other test's burst freezes its key). */
    velocity?: VelocitySettings;
    /** The core's Prometheus series, to read them in the test. */
    metrics?: CoreMetrics;
    /** Another core's SQLite file, opened with a handle of this core's own: two cores sharing one store. */
    storeFile?: string;
    /** Backups (core/storage/backup.ts): by default of this core's file, with its two tokens, none scheduled. */
    backups?: Partial<BackupSettings>;
  } = {},
): Promise<TestCore> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'prepaid-core-'));
  const storeFile = options.storeFile ?? path.join(dataDir, 'prepaid.sqlite');
  const store = openSqliteStore({ filename: storeFile });
  const sandbox = createSandbox({ delayMs: options.providerDelayMs ?? 0 });
  const adminToken = loadOrCreateToken(dataDir, ADMIN_TOKEN_FILE, null);
  const serviceToken = loadOrCreateToken(dataDir, SERVICE_TOKEN_FILE, null);
  // The core's book of plan codes, which createProviders reads (as core/main.ts builds it).
  const planBook = createPlanBook({ store, clock: options.clock ?? (() => new Date()) });
  const upstreams = options.upstreams?.(store, planBook.codeOf);
  const core = createCore({
    store,
    planBook,
    providers: upstreams?.providers ?? (options.providers ? options.providers(store) : sandbox),
    ...(upstreams === undefined ? {} : { supply: upstreams.supply }),
    // Test purchases are the sandbox's whatever serves live ones, so tests can count them there.
    testProviders: sandbox,
    adminToken,
    serviceToken,
    providerTimeoutMs: options.providerTimeoutMs ?? 5_000,
    recoveryIntervalMs: 60_000,
    recoveryAttentionAfterMs: options.recoveryAttentionAfterMs ?? 86_400_000,
    log: options.log ?? (() => {}),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
    ...(options.dashboardPublicUrl === undefined ? {} : { dashboardPublicUrl: options.dashboardPublicUrl }),
    ...(options.webhooks === undefined ? {} : { webhooks: options.webhooks }),
    ...(options.funding === undefined ? {} : { funding: options.funding }),
    ...(options.cliMoneyMoves === undefined ? {} : { cliMoneyMoves: options.cliMoneyMoves }),
    ...(options.mail === undefined ? {} : { mail: options.mail }),
    ...(options.signUp === undefined ? {} : { signUp: options.signUp }),
    ...(options.velocity === undefined ? {} : { velocity: options.velocity }),
    ...(options.metrics === undefined ? {} : { metrics: options.metrics }),
    backups: {
      storeFile,
      secrets: { [ADMIN_TOKEN_FILE]: adminToken, [SERVICE_TOKEN_FILE]: serviceToken },
      dir: null,
      schedule: null,
      ...options.backups,
    },
  });
  await core.seed();
  if (options.webhooks !== undefined) core.deliveries.start();
  const port = await core.rpc.listen('127.0.0.1', 0);
  const url = `http://127.0.0.1:${port}`;
  const transports = new Map<string, ReturnType<typeof createGrpcTransport>>();
  const transportFor = (token: string) => {
    let transport = transports.get(token);
    if (!transport) {
      transport = createGrpcTransport({ baseUrl: url, interceptors: [bearer(token)] });
      transports.set(token, transport);
    }
    return transport;
  };
  const admin = createClient(AdminService, transportFor(adminToken));

  return {
    url,
    port,
    serviceToken,
    adminToken,
    dataDir,
    store,
    core,
    sandbox,
    admin,
    purchase: createClient(PurchaseService, transportFor(serviceToken)),
    auth: createClient(AuthService, transportFor(serviceToken)),
    clientWithToken: (service, token) => createClient(service, transportFor(token)),
    async createApiAccount(opts = {}) {
      const created = await admin.createAccount({
        name: opts.name ?? `Reseller ${randomBytes(3).toString('hex')}`,
        tierId: API_TIER_ID,
      });
      const accountId = created.account!.accountId;
      if ((opts.balanceKobo ?? 0) > 0)
        await admin.creditWallet({ accountId, amountKobo: BigInt(opts.balanceKobo!), memo: 'test funding' });
      return { accountId, publicKey: created.issuedKey!.publicKey, secretKey: created.issuedKey!.secretKey };
    },
    recoverNow: () => core.worker.runOnce(new Date(Date.now() + 366 * 86_400_000)),
    async close() {
      await core.shutdown();
      await store.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Every ledger entry of an account, oldest first, through the admin service. */
export async function ledgerOf(testCore: TestCore, accountId: string) {
  const entries = [];
  let pageToken = '';
  do {
    const page = await testCore.admin.listLedgerEntries({ accountId, pageSize: 500, pageToken });
    entries.push(...page.entries);
    pageToken = page.nextPageToken;
  } while (pageToken);
  return entries.reverse();
}

/**
 * The ledger invariant: the balance equals the sum of the account's entries, each entry's
 * balance_after is the running sum, and no balance is ever negative.
 */
export async function assertLedgerInvariant(testCore: TestCore, accountId: string): Promise<void> {
  const { account } = await testCore.admin.getAccount({ accountId });
  const entries = await ledgerOf(testCore, accountId);
  let running = 0n;
  for (const entry of entries) {
    running += entry.amountKobo;
    if (entry.balanceAfterKobo !== running)
      throw new Error(
        `ledger entry ${entry.entryId} says balance ${entry.balanceAfterKobo}, running sum is ${running}`,
      );
    if (running < 0n) throw new Error(`balance went negative at entry ${entry.entryId}`);
  }
  if (account!.balanceKobo !== running) throw new Error(`balance ${account!.balanceKobo} != sum of entries ${running}`);
}
