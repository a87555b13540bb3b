/** The reconciliation's messages: a day's run (AdminService.Reconcile) and a finding (also the console's queue). */
import type { MessageInitShape } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type {
  ReconciledUpstreamSchema,
  ReconcileFindingSchema,
  ReconcileRequest,
  ReconcileResponseSchema,
} from '../../gen/prepaid/v1/admin_pb.js';
import type { Reconciliation, UpstreamDay } from '../books/daily.js';
import { findingId } from '../domain/reconcile.js';
import type { ReconcileFindingRecord } from '../domain/records.js';

export function findingMessage(f: ReconcileFindingRecord): MessageInitShape<typeof ReconcileFindingSchema> {
  return {
    date: f.day,
    upstream: f.upstream,
    reference: f.reference,
    class: f.class,
    atStakeKobo: BigInt(f.atStakeKobo),
    ...(f.ourCostKobo === null ? {} : { ourCostKobo: BigInt(f.ourCostKobo) }),
    ...(f.theirChargedKobo === null ? {} : { theirChargedKobo: BigInt(f.theirChargedKobo) }),
    outcome: f.outcome,
    theirStatus: f.theirStatus,
    theirCharges: f.theirCharges ?? 0,
    reason: f.reason ?? '',
    evidence: f.evidence ?? '',
    foundAt: timestampFromDate(f.foundAt),
    findingId: findingId(f),
    ...(f.resolution === undefined
      ? {}
      : {
          resolvedAt: timestampFromDate(f.resolution.at),
          resolvedBy: f.resolution.by,
          resolution: f.resolution.note,
          correctedBy: f.resolution.correctedBy ?? '',
        }),
  };
}

function upstreamDayMessage(day: UpstreamDay): MessageInitShape<typeof ReconciledUpstreamSchema> {
  const current = day.current;
  return {
    upstream: day.upstream,
    date: day.day,
    purchases: day.purchases,
    findings: day.findings.map(findingMessage),
    added: day.added,
    ...(day.driftKobo === undefined ? {} : { driftKobo: BigInt(day.driftKobo) }),
    between: [...day.between],
    ...(current !== undefined && 'reportedKobo' in current
      ? { currentReportedKobo: BigInt(current.reportedKobo), currentExpectedKobo: BigInt(current.expectedKobo) }
      : {}),
    currentError: current !== undefined && 'error' in current ? current.error : '',
  };
}

/** Reconcile: one Lagos day, of one upstream or every one. */
export async function reconcileDay(
  reconciliation: Reconciliation,
  req: ReconcileRequest,
): Promise<MessageInitShape<typeof ReconcileResponseSchema>> {
  const days = await reconciliation.run(req.date, req.upstream === '' ? undefined : req.upstream);
  return { upstreams: days.map(upstreamDayMessage) };
}
