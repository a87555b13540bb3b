/**
 * An account made by the operator with one owner signed in to the developer area in a browser
 * page: the start of the browser tests that act as a holder (receipts, test funding).
 */
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { DEFAULT_TIER_ID } from '../../core/catalog/defaults.js';
import { UserAdminService, UserRole } from '../../gen/prepaid/v1/holder_pb.js';
import { acceptInvitation, signIn } from './browser.js';
import type { TestCore } from './core.js';
import type { TestDashboard } from './dashboard.js';

export async function ownerSignedIn(
  core: TestCore,
  dashboard: TestDashboard,
  browser: Browser,
  owner: { account: string; email: string; password: string; permissions?: string[] },
): Promise<{ accountId: string; page: Page }> {
  const created = await core.admin.createAccount({ name: owner.account, tierId: DEFAULT_TIER_ID });
  const accountId = created.account!.accountId;
  const userAdmin = core.clientWithToken(UserAdminService, core.adminToken);
  const { invitation } = await userAdmin.inviteUser({ accountId, email: owner.email, role: UserRole.OWNER });
  const options: BrowserContextOptions = { viewport: { width: 1280, height: 900 } };
  const context = await browser.newContext(options);
  if (owner.permissions) await context.grantPermissions(owner.permissions, { origin: dashboard.url });
  const page = await context.newPage();
  await acceptInvitation(page, dashboard.url, invitation!.inviteUrl, owner.password);
  await signIn(page, dashboard.url, owner.email, owner.password);
  await page.waitForURL(`${dashboard.url}/`);
  return { accountId, page };
}
