/** Every route of the console, in the order they are matched. */
import type { Route } from '../route.js';
import { accountRoutes } from './accounts.js';
import { auditRoutes } from './audit.js';
import { blocklistRoutes } from './blocklist.js';
import { booksRoutes } from './books.js';
import { catalogueRoutes } from './catalogue.js';
import { catalogueCostRoutes } from './catalogue-costs.js';
import { kycRoutes } from './kyc.js';
import { queueRoutes } from './queue.js';
import { reportRoutes } from './reports.js';
import { settingsRoutes } from './settings.js';
import { signInRoutes } from './sign-in.js';
import { staffRoutes } from './staff.js';
import { suspensionRoutes } from './suspension.js';
import { transactionRoutes } from './transactions.js';

export const routes: readonly Route[] = [
  ...signInRoutes,
  ...queueRoutes,
  ...accountRoutes,
  ...auditRoutes,
  ...catalogueRoutes,
  ...catalogueCostRoutes,
  ...settingsRoutes,
  ...staffRoutes,
  ...reportRoutes,
  ...booksRoutes,
  ...suspensionRoutes,
  ...blocklistRoutes,
  ...kycRoutes,
  ...transactionRoutes,
];
