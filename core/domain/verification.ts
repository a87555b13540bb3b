/**
 * Who a customer verification asks about (`?action=verify`, the VerifyCustomer RPC): a meter
 * of a disco (`disco`, `meter_number`, `meter_type`) or a cable smart card (`provider`,
 * `smart_card`), never both. The field rules are the purchases' own (validation.ts), so a
 * number that verifies is a number that can be bought for.
 */
import { type FieldViolation, throwIfViolations } from './errors.js';
import { CABLE_PROVIDERS, DISCOS, METER_TYPES, type MeterType } from './products.js';
import { checkMeterNumber, checkOneOf, checkSmartCard } from './validation.js';

/** A meter or a smart card to look up, validated. */
export type CustomerQuery =
  | { product: 'electricity'; service: string; number: string; meterType: MeterType }
  | { product: 'cable'; service: string; number: string };

/** The verification request as sent; empty strings for fields not given. */
export interface VerifyInput {
  disco: string;
  meterNumber: string;
  meterType: string;
  provider: string;
  smartCard: string;
}

const WHICH =
  'Send disco, meter_number and meter_type to verify a meter, or provider and smart_card to verify a cable ' +
  'subscription.';

/** Validates a verification request into the query a provider answers; every violation at once. */
export function customerQuery(input: VerifyInput): CustomerQuery {
  const electricity = input.disco !== '' || input.meterNumber !== '' || input.meterType !== '';
  const cable = input.provider !== '' || input.smartCard !== '';
  const violations: FieldViolation[] = [];
  if (electricity && cable) {
    violations.push({
      field: 'provider',
      description: `A verification asks about a meter or a smart card, not both. ${WHICH}`,
    });
  } else if (!electricity && !cable) {
    violations.push({ field: 'disco', description: `Nothing to verify. ${WHICH}` });
  } else if (electricity) {
    checkOneOf('disco', input.disco, DISCOS, violations);
    checkMeterNumber('meter_number', input.meterNumber, violations);
    checkOneOf('meter_type', input.meterType, METER_TYPES, violations);
  } else {
    checkOneOf('provider', input.provider, CABLE_PROVIDERS, violations);
    checkSmartCard('smart_card', input.smartCard, violations);
  }
  throwIfViolations(violations);
  return electricity
    ? {
        product: 'electricity',
        service: input.disco,
        number: input.meterNumber,
        meterType: input.meterType as MeterType,
      }
    : { product: 'cable', service: input.provider, number: input.smartCard };
}
