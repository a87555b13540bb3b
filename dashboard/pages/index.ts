/** Every page's routes, in one list the server matches in order. */
import type { Route } from '../route.js';
import { accountRoutes } from './accounts.js';
import { buyRoutes } from './buy.js';
import { developerRoutes } from './developers.js';
import { fundRoutes } from './fund.js';
import { fundsRoutes } from './funds.js';
import { invitationRoutes } from './invitation.js';
import { keyFreezeRoutes } from './key-freeze.js';
import { keyLimitRoutes } from './key-limits.js';
import { keyRoutes } from './keys.js';
import { compatTokenRoutes } from './keys-compat.js';
import { mailSettingsRoutes } from './mail-settings.js';
import { overviewRoutes } from './overview.js';
import { passwordResetRoutes } from './password-reset.js';
import { priceRoutes } from './prices.js';
import { recipientRoutes } from './recipients.js';
import { referenceRoutes } from './reference.js';
import { securityRoutes } from './security.js';
import { signInRoutes } from './sign-in.js';
import { signUpRoutes } from './sign-up.js';
import { statementRoutes } from './statement.js';
import { transactionRoutes } from './transactions.js';
import { userRoutes } from './users.js';
import { verifyRoutes } from './verify.js';
import { webhookRoutes } from './webhooks.js';

export const routes: readonly Route[] = [
  ...signInRoutes,
  ...invitationRoutes,
  ...passwordResetRoutes,
  ...signUpRoutes,
  ...verifyRoutes,
  ...overviewRoutes,
  ...fundsRoutes,
  ...fundRoutes,
  ...buyRoutes,
  ...keyRoutes,
  ...compatTokenRoutes,
  ...keyLimitRoutes,
  ...keyFreezeRoutes,
  ...priceRoutes,
  ...transactionRoutes,
  ...statementRoutes,
  ...developerRoutes,
  ...referenceRoutes,
  ...webhookRoutes,
  ...recipientRoutes,
  ...userRoutes,
  ...accountRoutes,
  ...securityRoutes,
  ...mailSettingsRoutes,
];
