/**
 * The account switcher's answer: a person in several accounts chooses one in the header; the
 * core checks that they are an active member of it and moves the session there. An account
 * they do not belong to reads as any page that does not exist.
 */
import type { Route } from '../route.js';

export const accountRoutes: Route[] = [
  {
    method: 'POST',
    path: '/account',
    name: 'account_switch',
    signedIn: true,
    async handler(ctx) {
      await ctx.core.holder.switchAccount({ sessionToken: ctx.sessionToken, accountId: ctx.form.get('account') ?? '' });
      // The overview of the live world: the address says nothing of the account, so no page
      // of the account left behind stays on screen under the new one.
      return { kind: 'redirect', location: '/?switched=1' };
    },
  },
];
