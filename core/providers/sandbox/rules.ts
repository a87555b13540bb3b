/**
 * The sandbox's rules. The outcome of a call depends on nothing but the request: the
 * recipient's last four digits choose a scenario, and every result is derived from the
 * reference. So the sandbox keeps no state, and a re-query after a restart answers exactly
 * as it would have before.
 */
import { createHash } from 'node:crypto';
import type { DeliveryResult } from '../../domain/products.js';
import type { ProviderOutcome, ProviderRequest } from '../port.js';
import { electricityDelivery } from './electricity.js';
import { SANDBOX_DECLINED } from './failover.js';

/** The code of the sandbox's "still processing" answer to a re-query of a 4444 purchase. */
const SANDBOX_PROCESSING = 'processing';

/** What the sandbox does with a request. */
type Scenario = 'deliver' | 'fail' | 'no-answer-then-deliver' | 'no-answer-then-fail' | 'no-answer-ever';

/**
 * Recipient endings that choose a scenario, strongest first. A bulk SMS batch takes the
 * first ending any of its recipients has, so a definitive failure outranks a late delivery,
 * which outranks a late failure, which outranks a purchase that stays pending: `4444` is the
 * upstream that never says, so a trial reaches the console's attention queue with the default
 * settings and a person resolves it there.
 */
const SCENARIO_ENDINGS: readonly { ending: string; scenario: Exclude<Scenario, 'deliver'> }[] = [
  { ending: '9999', scenario: 'fail' },
  { ending: '8888', scenario: 'no-answer-then-deliver' },
  { ending: '7777', scenario: 'no-answer-then-fail' },
  { ending: '4444', scenario: 'no-answer-ever' },
];

/** The scenario of a request and, unless it is a plain delivery, the recipient that chose it. */
type ScenarioChoice =
  | { scenario: 'deliver' }
  | { scenario: Exclude<Scenario, 'deliver'>; recipient: string; ending: string };

/**
 * The numbers a request is addressed to: the phone, meter or smart card, or every
 * recipient of a bulk SMS (whose own `recipient` field is empty).
 */
function recipientsOf(request: ProviderRequest): readonly string[] {
  if (request.product === 'bulksms') return request.details.recipients ?? [];
  return [request.recipient];
}

/** Chooses the scenario of a set of recipients by the strongest ending any of them has. */
function scenarioOf(recipients: readonly string[]): ScenarioChoice {
  for (const { ending, scenario } of SCENARIO_ENDINGS) {
    const recipient = recipients.find((r) => r.endsWith(ending));
    if (recipient !== undefined) return { scenario, recipient, ending };
  }
  return { scenario: 'deliver' };
}

/** Length of the sandbox's own reference after its "SBX-" prefix. */
const PROVIDER_REFERENCE_LENGTH = 12;

/** The sandbox's own reference for a purchase, "SBX-" and 12 hex digits from the reference. */
function sandboxProviderReference(reference: string): string {
  const digest = createHash('sha256').update(`sandbox-provider-reference:${reference}`).digest('hex');
  return `SBX-${digest.slice(0, PROVIDER_REFERENCE_LENGTH).toUpperCase()}`;
}

/** The answer to a call that the sandbox delivers: the full result of the product. */
function deliveredOutcome(request: ProviderRequest): ProviderOutcome {
  let result: DeliveryResult = {};
  if (request.product === 'electricity') {
    const delivery = electricityDelivery(
      request.service,
      request.details.meterType,
      request.faceValueKobo,
      request.reference,
      request.recipient,
    );
    if (!delivery.ok) return { kind: 'failed', reason: delivery.reason };
    result = delivery.result;
  } else if (request.product === 'bulksms') {
    result = { sent: request.details.recipients?.length ?? 0 };
  }
  return { kind: 'delivered', result: { ...result, providerReference: sandboxProviderReference(request.reference) } };
}

/** The definitive refusal of the 9999 scenario, the same on purchase and re-query. */
function declined(recipient: string): Extract<ProviderOutcome, { kind: 'failed' }> {
  return {
    kind: 'failed',
    reason: `The provider declined the purchase for ${recipient} (sandbox: numbers ending in 9999 always fail).`,
  };
}

/** The answer to a purchase. */
export function purchaseOutcome(request: ProviderRequest): ProviderOutcome {
  const choice = scenarioOf(recipientsOf(request));
  switch (choice.scenario) {
    case 'deliver':
      return deliveredOutcome(request);
    case 'fail':
      return {
        ...declined(choice.recipient),
        evidence: { kind: 'answer', httpStatus: 200, json: true, code: SANDBOX_DECLINED, status: 'failed' },
      };
    case 'no-answer-then-deliver':
    case 'no-answer-then-fail':
    case 'no-answer-ever':
      // The sandbox answers at once; a caller that wants a real wait sets delayMs.
      return {
        kind: 'unknown',
        evidence: { kind: 'no_answer', cause: 'timeout' },
        reason:
          `No answer from the provider in time for ${choice.recipient} ` +
          `(sandbox: numbers ending in ${choice.ending} answer only a re-query).`,
      };
  }
}

/**
 * The answer to a re-query. The sandbox keeps no record of purchases, so it answers for
 * any reference as if the purchase had been made with this request.
 */
export function queryOutcome(request: ProviderRequest): ProviderOutcome {
  const choice = scenarioOf(recipientsOf(request));
  switch (choice.scenario) {
    case 'deliver':
    case 'no-answer-then-deliver':
      return deliveredOutcome(request);
    case 'fail':
      return declined(choice.recipient);
    case 'no-answer-then-fail':
      return {
        kind: 'failed',
        reason:
          `The provider reports that the purchase for ${choice.recipient} failed ` +
          '(sandbox: numbers ending in 7777 fail on re-query).',
      };
    case 'no-answer-ever':
      return {
        kind: 'unknown',
        evidence: { kind: 'answer', httpStatus: 200, json: true, code: SANDBOX_PROCESSING, status: 'processing' },
        reason:
          `The provider still reports the purchase for ${choice.recipient} as processing ` +
          '(sandbox: numbers ending in 4444 stay pending until a person resolves them).',
      };
  }
}
