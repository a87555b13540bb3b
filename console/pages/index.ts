/** Every route of the console, in the order they are matched. */
import type { Route } from '../server.js';
import { accountRoutes } from './accounts.js';
import { auditRoutes } from './audit.js';
import { queueRoutes } from './queue.js';
import { signInRoutes } from './sign-in.js';
import { suspensionRoutes } from './suspension.js';

export const routes: readonly Route[] = [
  ...signInRoutes,
  ...queueRoutes,
  ...accountRoutes,
  ...auditRoutes,
  ...suspensionRoutes,
];
