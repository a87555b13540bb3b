/**
 * prepaid.v1.HolderService (the dashboard's calls, each for one session) and
 * prepaid.v1.UserAdminService (the operator's invitations and users). Every holder handler
 * starts with `people.authenticate(session_token)`; owner-only ones then call
 * `people.requireOwner`. The handlers only translate: the rules live in core/people/.
 */
import type { MessageInitShape } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import {
  type GetOverviewResponseSchema,
  type GetPricesResponseSchema,
  type HolderApiKeySchema,
  type HolderService as HolderServiceDesc,
  type HolderSessionSchema,
  type InvitationSchema,
  SignInOutcome,
  type TransactionFilter,
  type UserAdminService as UserAdminServiceDesc,
  UserRole,
  type UserSchema,
} from '../../gen/prepaid/v1/holder_pb.js';
import type { TransactionStatus } from '../../gen/prepaid/v1/types_pb.js';
import { DomainError } from '../domain/errors.js';
import { NO_KEY_CONTROLS } from '../domain/key-controls.js';
import type { Mode } from '../domain/mode.js';
import { sessionEndsAt } from '../domain/people.js';
import type { TransactionStatus as Status } from '../domain/products.js';
import type { ApiKeyRecord, MemberRecord, UserRole as Role } from '../domain/records.js';
import type { HolderDesk, HolderFilter, Overview, Prices } from '../holders/desk.js';
import type { HolderRecipients } from '../holders/recipients.js';
import type { Onboarding } from '../people/onboarding.js';
import type { HolderContext, NewInvitation, PeopleService, SignInAnswer } from '../people/service.js';
import type { CompatHolderMethods } from './compat.js';
import {
  keyLimitsMessage,
  koboCapIn,
  koboIn,
  ledgerEntryMessage,
  MODE_TO_PROTO,
  modeIn,
  PRODUCT_TO_PROTO,
  pricedPackageMessage,
  pricedPlanMessage,
  productFromProto,
  STATUS_TO_PROTO,
  transactionMessage,
} from './convert.js';
import type { Handlers } from './grpc.js';
import { blockMessage } from './recipients.js';
import { signUpHandlers } from './sign-up.js';
import { ownTurn } from './turns.js';
import { deliveryMessage, webhookMessage } from './webhooks.js';

const ROLE_TO_PROTO: Readonly<Record<Role, UserRole>> = { owner: UserRole.OWNER, viewer: UserRole.VIEWER };

function roleFromProto(role: UserRole): Role | null {
  if (role === UserRole.OWNER) return 'owner';
  if (role === UserRole.VIEWER) return 'viewer';
  return null;
}

function statusFromProto(status: TransactionStatus): Status | null {
  const entry = Object.entries(STATUS_TO_PROTO).find(([, value]) => value === status);
  return entry ? (entry[0] as Status) : null;
}

/** A person as one account sees them: `created_at` is when they joined that account. */
export function userMessage({ user, membership }: MemberRecord): MessageInitShape<typeof UserSchema> {
  return {
    userId: user.userId,
    accountId: membership.accountId,
    email: user.email,
    role: ROLE_TO_PROTO[membership.role],
    disabled: membership.disabled,
    totpEnabled: user.totpSecret !== null,
    createdAt: timestampFromDate(membership.createdAt),
  };
}

function invitationMessage(made: NewInvitation): MessageInitShape<typeof InvitationSchema> {
  return {
    invitationToken: made.token,
    inviteUrl: made.url,
    email: made.invitation.email,
    role: ROLE_TO_PROTO[made.invitation.role],
    accountId: made.invitation.accountId,
    expiresAt: timestampFromDate(made.invitation.expiresAt),
  };
}

function sessionMessage(context: HolderContext): MessageInitShape<typeof HolderSessionSchema> {
  return {
    user: userMessage(context),
    accountName: context.account.name,
    tierId: context.tier.tierId,
    tierName: context.tier.name,
    apiAccess: context.tier.apiAccess,
    idleExpiresAt: timestampFromDate(sessionEndsAt(context.session)),
    absoluteExpiresAt: timestampFromDate(context.session.absoluteExpiresAt),
    accountSuspended: context.account.suspension !== undefined,
  };
}

/** A key as the holder sees it; `lastUsedAt` only where the key was listed with it. */
function keyMessage(
  key: ApiKeyRecord & { lastUsedAt?: Date | null; spentTodayKobo?: number },
): MessageInitShape<typeof HolderApiKeySchema> {
  return {
    publicKey: key.publicKey,
    allowedIps: key.allowedIps,
    revoked: key.revoked,
    createdAt: timestampFromDate(key.createdAt),
    ...(key.lastUsedAt ? { lastUsedAt: timestampFromDate(key.lastUsedAt) } : {}),
    mode: MODE_TO_PROTO[key.mode],
    limits: keyLimitsMessage(key.controls ?? NO_KEY_CONTROLS),
    spentTodayKobo: BigInt(key.spentTodayKobo ?? 0),
    ...(key.expiresAt ? { expiresAt: timestampFromDate(key.expiresAt) } : {}),
    ...(key.frozen ? { frozenAt: timestampFromDate(key.frozen.at), frozenReason: key.frozen.reason } : {}),
  };
}

function signInMessage(answer: SignInAnswer) {
  switch (answer.outcome) {
    case 'signed_in':
      return { outcome: SignInOutcome.SIGNED_IN, sessionToken: answer.token, session: sessionMessage(answer.context) };
    case 'totp_required':
      return { outcome: SignInOutcome.TOTP_REQUIRED, challengeToken: answer.challenge };
    case 'invalid_credentials':
      return { outcome: SignInOutcome.INVALID_CREDENTIALS };
    case 'throttled':
      return { outcome: SignInOutcome.THROTTLED, retryAfterSeconds: answer.retryAfterSeconds };
  }
}

/** The form's filter; unset fields (zero enums, empty strings) filter nothing. */
function holderFilter(filter: TransactionFilter | undefined): HolderFilter {
  return {
    product: filter ? productFromProto(filter.product) : null,
    status: filter ? statusFromProto(filter.status) : null,
    fromDate: filter?.fromDate ?? '',
    toDate: filter?.toDate ?? '',
    recipient: filter?.recipient ?? '',
    reference: filter?.reference ?? '',
    requestId: filter?.requestId ?? '',
  };
}

function pricesMessage(context: HolderContext, prices: Prices): MessageInitShape<typeof GetPricesResponseSchema> {
  const rate = (r: (typeof prices.airtime)[number]) => ({
    service: r.service,
    discountBasisPoints: r.basisPoints,
    exampleFaceValueKobo: BigInt(r.exampleFaceValueKobo),
    examplePriceKobo: BigInt(r.examplePriceKobo),
  });
  return {
    tierId: context.tier.tierId,
    tierName: context.tier.name,
    airtime: prices.airtime.map(rate),
    dataPlans: prices.plans.map(pricedPlanMessage),
    electricity: prices.electricity.map(rate),
    cablePackages: prices.cablePackages.map(pricedPackageMessage),
    smsPageFaceValueKobo: BigInt(prices.smsRateKobo),
    smsDiscountBasisPoints: prices.smsBasisPoints,
    smsPagePriceKobo: BigInt(prices.smsPagePriceKobo),
  };
}

function overviewMessage(
  context: HolderContext,
  mode: Mode,
  overview: Overview,
): MessageInitShape<typeof GetOverviewResponseSchema> {
  return {
    mode: MODE_TO_PROTO[mode],
    balanceKobo: BigInt(overview.balanceKobo),
    tierId: context.tier.tierId,
    tierName: context.tier.name,
    todaySpentKobo: BigInt(overview.todaySpentKobo),
    monthSpentKobo: BigInt(overview.monthSpentKobo),
    pendingCount: BigInt(overview.pendingCount),
    daily: overview.daily.map((day) => ({
      date: day.date,
      totalKobo: BigInt(day.totalKobo),
      products: day.products.map((p) => ({ product: PRODUCT_TO_PROTO[p.product], spentKobo: BigInt(p.spentKobo) })),
    })),
  };
}

type HolderMethods = (typeof HolderServiceDesc)['method'];

/** Invitations, sign-in and the session: the calls made before (or about) a signed-in page. */
function sessionHandlers(
  people: PeopleService,
): Pick<
  Handlers<HolderMethods>,
  | 'getInvitation'
  | 'acceptInvitation'
  | 'signIn'
  | 'completeSignIn'
  | 'signOut'
  | 'getSession'
  | 'switchAccount'
  | 'requestPasswordReset'
  | 'getPasswordReset'
  | 'resetPassword'
> {
  return {
    async requestPasswordReset(req) {
      return people.requestPasswordReset(req.email, req.clientIp);
    },
    async getPasswordReset(req) {
      const { email, expiresAt } = await people.describePasswordReset(req.resetToken);
      return { email, expiresAt: timestampFromDate(expiresAt) };
    },
    async resetPassword(req) {
      return { user: userMessage(await people.resetPassword(req.resetToken, req.password)) };
    },
    async getInvitation(req) {
      const { invitation, accountName, hasPassword } = await people.describeInvitation(req.invitationToken);
      return {
        email: invitation.email,
        role: ROLE_TO_PROTO[invitation.role],
        accountName,
        expiresAt: timestampFromDate(invitation.expiresAt),
        hasPassword,
      };
    },
    async acceptInvitation(req) {
      return { user: userMessage(await people.acceptInvitation(req.invitationToken, req.password, req.clientIp)) };
    },
    async signIn(req) {
      return signInMessage(await people.signIn(req.email, req.password, req.totpCode, req.clientIp, req.userAgent));
    },
    async completeSignIn(req) {
      return signInMessage(await people.completeSignIn(req.challengeToken, req.totpCode, req.clientIp, req.userAgent));
    },
    async signOut(req) {
      await people.signOut(req.sessionToken);
      return {};
    },
    async getSession(req) {
      const context = await people.authenticate(req.sessionToken);
      const accounts = (await people.accountChoices(context)).map((choice) => ({
        accountId: choice.accountId,
        name: choice.name,
        role: ROLE_TO_PROTO[choice.role],
      }));
      return { session: sessionMessage(context), accounts };
    },
    async switchAccount(req) {
      const context = await people.authenticate(req.sessionToken);
      return { session: sessionMessage(await people.switchAccount(context, req.accountId)) };
    },
  };
}

/** The account's waiting invitations (the Users page). */
function invitationHandlers(
  people: PeopleService,
): Pick<Handlers<HolderMethods>, 'listInvitations' | 'revokeInvitation'> {
  return {
    async listInvitations(req) {
      const context = await people.authenticate(req.sessionToken);
      const open = await people.listInvitations(context);
      return {
        invitations: open.map(({ invitation, invitedBy }) => ({
          email: invitation.email,
          role: ROLE_TO_PROTO[invitation.role],
          invitedBy,
          createdAt: timestampFromDate(invitation.createdAt),
          expiresAt: timestampFromDate(invitation.expiresAt),
        })),
      };
    },
    async revokeInvitation(req) {
      // revokeInvitation refuses a viewer itself.
      const context = await people.authenticate(req.sessionToken);
      people.requireFormAccount(context, req.formAccountId);
      await people.revokeInvitation(context, req.email);
      return {};
    },
  };
}

/**
 * The session's context, and for the RPCs that change something the form's account (the one the page was made
 * for) and the owner check.
 */
export function gates(people: PeopleService) {
  return {
    signedIn: (token: string) => people.authenticate(token),
    owner: async (token: string, formAccountId: string) => {
      const context = await people.authenticate(token);
      people.requireFormAccount(context, formAccountId);
      people.requireOwner(context);
      return context;
    },
  };
}

/** The account's people: invitations from the account, its users, and one's own sign-in settings. */
function userHandlers(
  people: PeopleService,
): Pick<
  Handlers<HolderMethods>,
  'inviteUser' | 'listUsers' | 'disableUser' | 'beginTotpSetup' | 'confirmTotp' | 'changePassword' | 'disableTotp'
> {
  const { signedIn, owner } = gates(people);
  return {
    async inviteUser(req) {
      const context = await owner(req.sessionToken, req.formAccountId);
      return {
        invitation: invitationMessage(
          await people.inviteFromAccount(context, req.email, roleFromProto(req.role), req.totpCode),
        ),
      };
    },
    async listUsers(req) {
      const context = await signedIn(req.sessionToken);
      return { users: (await people.listUsers(context.account.accountId)).map(userMessage) };
    },
    async disableUser(req) {
      const context = await owner(req.sessionToken, req.formAccountId);
      if (req.userId === context.user.userId) {
        throw new DomainError('FAILED_PRECONDITION', 'You cannot disable yourself; ask another owner.');
      }
      return { user: userMessage(await people.disableUser(req.userId, context.account.accountId)) };
    },
    async beginTotpSetup(req) {
      const context = await signedIn(req.sessionToken);
      const setup = await people.beginTotpSetup(context, req.keepPending);
      return { secret: setup.secret, otpauthUri: setup.uri, qrSvg: setup.qrSvg };
    },
    async confirmTotp(req) {
      const context = await signedIn(req.sessionToken);
      const { user, recoveryCodes } = await people.confirmTotp(context, req.totpCode);
      return { user: userMessage({ user, membership: context.membership }), recoveryCodes };
    },
    async changePassword(req) {
      const context = await signedIn(req.sessionToken);
      const { token } = await people.changePassword(context, req.currentPassword, req.newPassword, req.totpCode);
      return { sessionToken: token };
    },
    async disableTotp(req) {
      const context = await signedIn(req.sessionToken);
      const user = await people.disableTotp(context, req.totpCode);
      return { user: userMessage({ user, membership: context.membership }) };
    },
  };
}

/** The account's own webhook of each mode, its deliveries and resends. */
function webhookHandlers(
  people: PeopleService,
  desk: HolderDesk,
  clock: () => Date,
): Pick<
  Handlers<HolderMethods>,
  | 'getWebhook'
  | 'setWebhook'
  | 'rotateWebhookSecret'
  | 'disableWebhook'
  | 'listDeliveries'
  | 'resendEvent'
  | 'sendTestEvent'
> {
  const { signedIn, owner } = gates(people);
  return {
    async getWebhook(req) {
      const context = await signedIn(req.sessionToken);
      const endpoint = await desk.webhook(context, modeIn(req.mode));
      return endpoint === null ? {} : { webhook: webhookMessage(endpoint, clock()) };
    },
    async setWebhook(req) {
      const context = await owner(req.sessionToken, req.formAccountId);
      const { endpoint, secret } = await desk.setWebhook(context, modeIn(req.mode), req.url);
      return { webhook: webhookMessage(endpoint, clock()), secret: secret ?? '' };
    },
    async rotateWebhookSecret(req) {
      const context = await owner(req.sessionToken, req.formAccountId);
      const { endpoint, secret } = await desk.rotateWebhookSecret(context, modeIn(req.mode));
      return { webhook: webhookMessage(endpoint, clock()), secret: secret ?? '' };
    },
    async disableWebhook(req) {
      const context = await owner(req.sessionToken, req.formAccountId);
      return { webhook: webhookMessage(await desk.disableWebhook(context, modeIn(req.mode)), clock()) };
    },
    async listDeliveries(req) {
      const context = await signedIn(req.sessionToken);
      const page = await desk.deliveries(context, modeIn(req.mode), req.failedOnly, req.pageSize, req.pageToken);
      return { deliveries: page.items.map(deliveryMessage), nextPageToken: page.next ?? '' };
    },
    async resendEvent(req) {
      const context = await owner(req.sessionToken, req.formAccountId);
      return { delivery: deliveryMessage(await desk.resendEvent(context, modeIn(req.mode), req.eventId)) };
    },
    async sendTestEvent(req) {
      const context = await owner(req.sessionToken, req.formAccountId);
      return { delivery: deliveryMessage(await desk.sendTestEvent(context, modeIn(req.mode))) };
    },
  };
}

/**
 * The account's own blocklist and per-recipient limits. Blocking only narrows what the account
 * sells, so an owner does it as a revocation is done; lifting a block or changing the limits
 * loosens a control, so it asks for a current code when two-step sign-in is on, as a key's
 * limits do.
 */
function recipientHandlers(
  people: PeopleService,
  recipients: HolderRecipients,
): Pick<
  Handlers<HolderMethods>,
  'getRecipientControls' | 'blockRecipient' | 'unblockRecipient' | 'setRecipientLimits'
> {
  const { signedIn, owner } = gates(people);
  return {
    async getRecipientControls(req) {
      const { blocks, controls, duplicateWindowS } = await recipients.controls(await signedIn(req.sessionToken));
      return {
        blocks: blocks.map(blockMessage),
        perDayCount: controls.perDayCount,
        perDayKobo: BigInt(controls.perDayKobo),
        duplicateGuard: controls.duplicateGuard,
        duplicateWindowSeconds: duplicateWindowS,
      };
    },
    async blockRecipient(req) {
      const context = await owner(req.sessionToken, req.formAccountId);
      return { block: blockMessage(await recipients.block(context, req.value, req.reason)) };
    },
    async unblockRecipient(req) {
      const context = await owner(req.sessionToken, req.formAccountId);
      await people.requireFreshCode(context, req.totpCode);
      return { removed: await recipients.unblock(context, req.value) };
    },
    async setRecipientLimits(req) {
      const context = await owner(req.sessionToken, req.formAccountId);
      await people.requireFreshCode(context, req.totpCode);
      const set = await recipients.setLimits(context, {
        perDayCount: req.perDayCount,
        perDayKobo: koboCapIn(req.perDayKobo),
        duplicateGuard: req.duplicateGuard,
      });
      return { perDayCount: set.perDayCount, perDayKobo: BigInt(set.perDayKobo), duplicateGuard: set.duplicateGuard };
    },
  };
}

export function holderHandlers(
  people: PeopleService,
  desk: HolderDesk,
  recipients: HolderRecipients,
  onboarding: Onboarding,
  clock: () => Date = () => new Date(),
): Omit<Handlers<HolderMethods>, CompatHolderMethods> {
  const { signedIn, owner } = gates(people);

  return {
    ...sessionHandlers(people),
    ...signUpHandlers(people, onboarding),
    ...invitationHandlers(people),
    async getOverview(req) {
      const context = await signedIn(req.sessionToken);
      const mode = modeIn(req.mode);
      return overviewMessage(context, mode, await desk.overview(context, mode));
    },
    async listApiKeys(req) {
      const context = await signedIn(req.sessionToken);
      return { keys: (await desk.listKeys(context, modeIn(req.mode))).map(keyMessage) };
    },
    async createApiKey(req) {
      const context = await owner(req.sessionToken, req.formAccountId);
      await people.requireFreshCode(context, req.totpCode);
      const { issued, key } = await desk.createKey(context, modeIn(req.mode));
      return { issuedKey: { publicKey: issued.publicKey, secretKey: issued.secretKey }, key: keyMessage(key) };
    },
    async revokeApiKey(req) {
      const context = await owner(req.sessionToken, req.formAccountId);
      return { key: keyMessage(await desk.revokeKey(context, req.publicKey)) };
    },
    async setApiKeyIpLock(req) {
      const context = await owner(req.sessionToken, req.formAccountId);
      return { key: keyMessage(await desk.setKeyIpLock(context, req.publicKey, req.allowedIps)) };
    },
    async setApiKeyLimits(req) {
      const context = await owner(req.sessionToken, req.formAccountId);
      await people.requireFreshCode(context, req.totpCode);
      const change = {
        ...(req.scopes === undefined ? {} : { scopes: req.scopes }),
        ...(req.capPerPurchaseKobo === undefined ? {} : { capPerPurchaseKobo: koboCapIn(req.capPerPurchaseKobo) }),
        ...(req.capPerDayKobo === undefined ? {} : { capPerDayKobo: koboCapIn(req.capPerDayKobo) }),
      };
      return { key: keyMessage(await desk.setKeyLimits(context, req.publicKey, change)) };
    },
    async rollApiKey(req) {
      const context = await owner(req.sessionToken, req.formAccountId);
      await people.requireFreshCode(context, req.totpCode);
      const { issued, old } = await desk.rollKey(context, req.publicKey, req.graceHours);
      return { issuedKey: { publicKey: issued.publicKey, secretKey: issued.secretKey }, oldKey: keyMessage(old) };
    },
    async unfreezeApiKey(req) {
      const context = await owner(req.sessionToken, req.formAccountId);
      await people.requireFreshCode(context, req.totpCode);
      return { key: keyMessage(await desk.unfreezeKey(context, req.publicKey)) };
    },
    async getPrices(req) {
      const context = await signedIn(req.sessionToken);
      return pricesMessage(context, await desk.prices(context));
    },
    async listTransactions(req) {
      await ownTurn();
      const context = await signedIn(req.sessionToken);
      const page = await desk.transactions(
        context,
        modeIn(req.mode),
        holderFilter(req.filter),
        req.pageSize,
        req.pageToken,
      );
      return { transactions: page.items.map(transactionMessage), nextPageToken: page.next ?? '' };
    },
    async getMailSettings(req) {
      return { off: await desk.mailOptOuts(await signedIn(req.sessionToken)) };
    },
    async setMailSettings(req) {
      await desk.setMailOptOuts(await signedIn(req.sessionToken), req.off.slice(0, 10));
      return {};
    },
    async getTransaction(req) {
      const context = await signedIn(req.sessionToken);
      const record = await desk.transaction(context, modeIn(req.mode), req.reference);
      return { transaction: transactionMessage(record), customerName: record.details.customerName ?? '' };
    },
    async listStatement(req) {
      await ownTurn();
      const context = await signedIn(req.sessionToken);
      const page = await desk.statement(context, modeIn(req.mode), req.pageSize, req.pageToken);
      return { entries: page.items.map(ledgerEntryMessage), nextPageToken: page.next ?? '' };
    },
    async addTestFunds(req) {
      const context = await owner(req.sessionToken, req.formAccountId);
      const { balanceKobo, entry, replayed } = await desk.addTestFunds(
        context,
        koboIn(req.amountKobo, 'amount_kobo'),
        req.reference,
      );
      return { balanceKobo: BigInt(balanceKobo), entry: ledgerEntryMessage(entry), replayed };
    },
    ...userHandlers(people),
    ...webhookHandlers(people, desk, clock),
    ...recipientHandlers(people, recipients),
  };
}

export function userAdminHandlers(people: PeopleService): Handlers<(typeof UserAdminServiceDesc)['method']> {
  return {
    async inviteUser(req) {
      const role = req.role === UserRole.UNSPECIFIED ? 'owner' : roleFromProto(req.role);
      return { invitation: invitationMessage(await people.invite(req.accountId, req.email, role, 'operator')) };
    },
    async listUsers(req) {
      return { users: (await people.listUsers(req.accountId)).map(userMessage) };
    },
    async disableUser(req) {
      return { user: userMessage(await people.disableUser(req.userId, null)) };
    },
    async resetTwoStep(req) {
      return { user: userMessage(await people.resetTwoStep(req.userId)) };
    },
    async issuePasswordReset(req) {
      const { user, url, expiresAt, mailed } = await people.issuePasswordReset(req.userId);
      return { user: userMessage(user), resetUrl: url, expiresAt: timestampFromDate(expiresAt), mailed };
    },
  };
}
