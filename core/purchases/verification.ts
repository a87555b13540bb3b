/**
 * Customer verification before a purchase: who owns a meter or a smart card, and what the
 * provider tells about it (address, minimum vend, current bouquet, due date, renewal
 * amount). It asks the provider of the product family, charges nothing and writes nothing.
 */

import { DomainError, invalid, notFound } from '../domain/errors.js';
import type { Mode } from '../domain/mode.js';
import { type CustomerQuery, customerQuery, type VerifyInput } from '../domain/verification.js';
import type { CustomerDetails, VerifyOutcome } from '../providers/port.js';
import type { Store } from '../store/port.js';
import type { PurchaseDeps } from './flow.js';

/** A customer the provider knows, and the query that found it. */
export interface VerifiedCustomer {
  query: CustomerQuery;
  customer: CustomerDetails;
}

/** The verification use case over the providers of electricity and cable. */
export function createVerificationService(
  deps: Pick<PurchaseDeps, 'providers' | 'providerTimeoutMs' | 'log'> & { store: Pick<Store, 'accounts'> },
) {
  return {
    /**
     * Looks the customer up. Unknown numbers are NOT_FOUND (404 at the gateway); a provider
     * that gives no usable answer in time is INTERNAL (500), which the caller may retry.
     */
    async verify(accountId: string, mode: Mode, input: VerifyInput): Promise<VerifiedCustomer> {
      if (accountId === '') throw invalid('account_id', 'account_id is required.');
      const query = customerQuery(input);
      if ((await deps.store.accounts.get(accountId)) === null) throw notFound(`Account ${accountId}`);
      // A test key's lookup is the sandbox's too: nothing in test mode reaches an upstream.
      const provider = deps.providers[mode][query.product];
      const started = Date.now();
      let outcome: VerifyOutcome;
      try {
        outcome = await provider.verify(query, AbortSignal.timeout(deps.providerTimeoutMs));
      } catch (error) {
        outcome = { kind: 'unavailable', reason: error instanceof Error ? error.message : String(error) };
      }
      deps.log('provider.verify', {
        product: query.product,
        service: query.service,
        provider: provider.name,
        outcome: outcome.kind,
        ms: Date.now() - started,
      });
      const what =
        query.product === 'electricity'
          ? `${query.meterType} meter ${query.number} at ${query.service}`
          : `${query.service} smart card ${query.number}`;
      switch (outcome.kind) {
        case 'found':
          return { query, customer: outcome.customer };
        case 'not_found':
          throw new DomainError('NOT_FOUND', `No customer was found for ${what}: ${outcome.reason}`);
        case 'unavailable':
          throw new DomainError('INTERNAL', `The provider could not verify ${what}: ${outcome.reason}`);
      }
    },
  };
}

/** The verification use case, as the RPC layer sees it. */
export type VerificationService = ReturnType<typeof createVerificationService>;
