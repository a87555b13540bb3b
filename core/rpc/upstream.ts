/**
 * Messages of the upstream-facing RPCs: customer verification, provider callbacks and the
 * plans sync. Records in, init shapes out; no rule lives here.
 */
import type { MessageInitShape } from '@bufbuild/protobuf';
import { PlanChangeAction, type SyncPlansResponseSchema } from '../../gen/prepaid/v1/admin_pb.js';
import {
  type ApplyProviderCallbackResponseSchema,
  CallbackDisposition,
  type VerifyCustomerResponseSchema,
} from '../../gen/prepaid/v1/purchase_pb.js';
import { TransactionStatus } from '../../gen/prepaid/v1/types_pb.js';
import type { PlanChange, PlanSyncReport } from '../catalog/sync.js';
import type { CallbackResult, CallbackDisposition as Disposition } from '../purchases/callbacks.js';
import type { VerifiedCustomer } from '../purchases/verification.js';
import { catalogPlanMessage, PRODUCT_TO_PROTO, STATUS_TO_PROTO } from './convert.js';

/** A verified customer as VerifyCustomerResponse; what the provider did not tell stays unset. */
export function verifiedCustomerMessage({
  query,
  customer,
}: VerifiedCustomer): MessageInitShape<typeof VerifyCustomerResponseSchema> {
  const optionalKobo = (kobo: number | undefined) => (kobo === undefined ? undefined : BigInt(kobo));
  return {
    product: PRODUCT_TO_PROTO[query.product],
    service: query.service,
    customerNumber: query.number,
    meterType: query.product === 'electricity' ? query.meterType : '',
    customerName: customer.customerName,
    address: customer.address,
    providerMeterType: customer.meterType,
    minimumAmountKobo: optionalKobo(customer.minimumAmountKobo),
    arrearsKobo: optionalKobo(customer.arrearsKobo),
    currentBouquet: customer.currentBouquet,
    dueDate: customer.dueDate,
    renewalAmountKobo: optionalKobo(customer.renewalAmountKobo),
  };
}

const DISPOSITIONS: Readonly<Record<Disposition, CallbackDisposition>> = {
  applied: CallbackDisposition.APPLIED,
  unchanged: CallbackDisposition.UNCHANGED,
  unknown_reference: CallbackDisposition.UNKNOWN_REFERENCE,
  ignored: CallbackDisposition.IGNORED,
  retry_later: CallbackDisposition.RETRY_LATER,
};

/** A callback's result as ApplyProviderCallbackResponse. */
export function callbackMessage(result: CallbackResult): MessageInitShape<typeof ApplyProviderCallbackResponseSchema> {
  return {
    disposition: DISPOSITIONS[result.disposition],
    reference: result.reference,
    status: result.status === null ? TransactionStatus.UNSPECIFIED : STATUS_TO_PROTO[result.status],
  };
}

const ACTIONS: Readonly<Record<PlanChange['action'], PlanChangeAction>> = {
  created: PlanChangeAction.CREATED,
  updated: PlanChangeAction.UPDATED,
  deactivated: PlanChangeAction.DEACTIVATED,
};

/** A sync report as SyncPlansResponse. */
export function planSyncMessage(report: PlanSyncReport): MessageInitShape<typeof SyncPlansResponseSchema> {
  return {
    provider: report.provider,
    supported: report.supported,
    dryRun: report.dryRun,
    changes: report.changes.map((change) => ({
      action: ACTIONS[change.action],
      plan: catalogPlanMessage({ ...change, tierPricesKobo: {} }),
      before:
        change.before === undefined
          ? undefined
          : catalogPlanMessage({ ...change, ...change.before, tierPricesKobo: {} }),
    })),
    unchanged: report.unchanged,
    uncodedPlanIds: report.uncodedPlanIds.map((id) => BigInt(id)),
    warnings: report.warnings,
  };
}
