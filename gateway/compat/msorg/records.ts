/**
 * Purchase records as the MSORG family answers them (docs/compat.md): capital-S `Status`
 * (`successful`, `failed`, or the token's in-flight word), the site's `id` (our reference,
 * stable), the echoed `ident`, amounts and balances as naira strings where the family sends
 * strings, ids as the family's integers. There is never a lower-case `status` key: one client
 * of the family reports an error for any value of it but ClubKonnect's.
 */
import { timestampMs } from '@bufbuild/protobuf/wkt';
import type { InFlightWord } from '../../../core/domain/compat.js';
import { Product, type Transaction, TransactionStatus } from '../../../gen/prepaid/v1/types_pb.js';
import { int64, naira } from '../../actions/views.js';
import { byOurs, CABLE_IDS, DISCO_IDS, NETWORK_IDS } from './ids.js';

/** What a record echoes of the request, or knows of the caller. */
export interface RecordContext {
  inFlight: InFlightWord;
  /** The client's own key (`ident`), or "" to echo our reference there. */
  ident: string;
  ported: boolean;
  /** The plan id as the client knows it (its alias), or undefined for ours. */
  planAlias?: string | undefined;
  /** The account's aliases, to show a record's plan by the id its client uses. */
  aliases?: ReadonlyMap<string, number>;
}

/** The family's status word of a transaction. */
function statusWord(tx: Transaction, inFlight: InFlightWord): string {
  switch (tx.status) {
    case TransactionStatus.SUCCESS:
      return 'successful';
    case TransactionStatus.FAILED:
      return 'failed';
    default:
      return inFlight;
  }
}

/** Naira as the family writes it, Python's float text: "100.0", "2459.6". */
export function nairaText(valueKobo: bigint): string {
  const value = naira(valueKobo);
  return Number.isInteger(value) ? value.toFixed(1) : String(value);
}

/** Lagos time in Python's isoformat, as the family's create_date is written. */
function lagosIso(tx: Transaction): string {
  const ms = tx.createdAt === undefined ? 0 : timestampMs(tx.createdAt);
  return `${new Date(ms + 3_600_000).toISOString().slice(0, 23)}000`;
}

/** A plan id for a client: its alias when it has one for the plan, else our plan_id; an integer when it is one. */
function planIdOf(tx: Transaction, context: RecordContext): number | string {
  let id: string | undefined = context.planAlias;
  if (id === undefined && context.aliases !== undefined) {
    for (const [alias, planId] of context.aliases) if (planId === int64(tx.planId)) id = alias;
  }
  if (id === undefined) return int64(tx.planId);
  return /^\d{1,15}$/.test(id) ? Number(id) : id;
}

/** The record of one purchase, whatever its product. */
export function purchaseRecord(tx: Transaction, context: RecordContext): Record<string, unknown> {
  const failed = tx.status === TransactionStatus.FAILED;
  // A failed purchase was refunded: the wallet is back where it was.
  const beforeKobo = tx.balanceAfterKobo + tx.chargedKobo;
  const common = {
    id: tx.reference,
    ident: context.ident === '' ? tx.reference : context.ident,
    Status: statusWord(tx, context.inFlight),
    balance_before: nairaText(beforeKobo),
    balance_after: nairaText(failed ? beforeKobo : tx.balanceAfterKobo),
    create_date: lagosIso(tx),
    api_response: tx.failureReason !== '' ? tx.failureReason : apiResponse(tx),
  };
  switch (tx.product) {
    case Product.AIRTIME:
      return { ...common, ...airtimeFields(tx, context) };
    case Product.DATA:
      return { ...common, ...dataFields(tx, context) };
    case Product.ELECTRICITY:
      return { ...common, ...electricityFields(tx, failed) };
    case Product.CABLE:
      return { ...common, ...cableFields(tx) };
    default:
      return { ...common, recipient: tx.recipient };
  }
}

function apiResponse(tx: Transaction): string {
  if (tx.status === TransactionStatus.SUCCESS) return 'TRANSACTION SUCCESSFUL';
  if (tx.status === TransactionStatus.FAILED) return 'TRANSACTION FAILED';
  return 'TRANSACTION IN PROGRESS';
}

function airtimeFields(tx: Transaction, context: RecordContext) {
  const network = byOurs(NETWORK_IDS, tx.service);
  return {
    airtime_type: 'VTU',
    network: network?.id ?? null,
    paid_amount: nairaText(tx.chargedKobo),
    mobile_number: tx.recipient,
    amount: String(naira(tx.faceValueKobo)),
    plan_amount: `₦${naira(tx.faceValueKobo)}`,
    plan_network: network?.name ?? tx.service.toUpperCase(),
    Ported_number: context.ported,
  };
}

function dataFields(tx: Transaction, context: RecordContext) {
  const network = byOurs(NETWORK_IDS, tx.service);
  return {
    network: network?.id ?? null,
    mobile_number: tx.recipient,
    plan: planIdOf(tx, context),
    plan_network: network?.name ?? tx.service.toUpperCase(),
    plan_name: tx.planLabel,
    plan_amount: nairaText(tx.chargedKobo),
    Ported_number: context.ported,
  };
}

function electricityFields(tx: Transaction, failed: boolean) {
  const disco = byOurs(DISCO_IDS, tx.service);
  return {
    disco_name: disco?.id ?? null,
    company: disco?.name ?? tx.service,
    meter_number: tx.recipient,
    meter_no: tx.recipient,
    meter_type: tx.meterType,
    MeterType: tx.meterType === 'postpaid' ? 2 : 1,
    token: tx.token,
    units: tx.units,
    amount: naira(tx.faceValueKobo),
    paid_amount: nairaText(tx.chargedKobo),
    pay_amount: nairaText(tx.chargedKobo),
    refund: failed,
  };
}

function cableFields(tx: Transaction) {
  const cable = byOurs(CABLE_IDS, tx.service);
  return {
    cablename: cable?.id ?? null,
    cable_name: cable?.name ?? tx.service.toUpperCase(),
    cableplan: tx.packageCode,
    package: tx.planLabel,
    smart_card_number: tx.recipient,
    plan_amount: nairaText(tx.faceValueKobo),
    paid_amount: naira(tx.chargedKobo),
  };
}
