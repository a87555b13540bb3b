/**
 * The MongoDB validators: the counterpart of the SQLite CHECK constraints on money (a
 * balance is a non-negative int64, a ledger amount's sign follows its kind, a
 * transaction's status is one of four). They apply to every writer, mongosh included.
 * Changing one on an existing collection takes a schema step that sends collMod
 * (`setValidator`), and CURRENT_VALIDATORS names what the latest such step set.
 */
import type { CreateCollectionOptions, Document } from 'mongodb';
import type { EntryKind } from '../../domain/books.js';
import { PRODUCTS, type TransactionStatus } from '../../domain/products.js';
import type { LedgerKind } from '../../domain/records.js';
import { COLLECTIONS, JOURNAL_COLLECTION } from './collections.js';

const int64 = (minimum: number) => ({ bsonType: 'long', minimum });

export const VALIDATORS: Partial<Record<string, Document>> = {
  [COLLECTIONS.accounts]: {
    $jsonSchema: {
      bsonType: 'object',
      required: ['_id', 'name', 'tier_id', 'balance_kobo', 'ledger_seq', 'created_at'],
      properties: {
        _id: { bsonType: 'string' },
        balance_kobo: int64(0),
        ledger_seq: int64(0),
        created_at: { bsonType: 'date' },
      },
    },
  },
  [COLLECTIONS.ledger]: {
    $and: [
      {
        $jsonSchema: {
          bsonType: 'object',
          required: [
            'account_id',
            'entry_id',
            'amount_kobo',
            'balance_after_kobo',
            'kind',
            'reference',
            'memo',
            'created_at',
          ],
          properties: {
            entry_id: int64(1),
            amount_kobo: { bsonType: 'long' },
            balance_after_kobo: int64(0),
            kind: { enum: ['credit', 'debit', 'refund'] },
            created_at: { bsonType: 'date' },
          },
        },
      },
      // The sign of an amount follows its kind, as the SQLite CHECK has it.
      {
        $or: [
          { kind: 'debit', amount_kobo: { $lt: 0 } },
          { kind: { $in: ['credit', 'refund'] }, amount_kobo: { $gt: 0 } },
        ],
      },
    ],
  },
  [COLLECTIONS.transactions]: {
    $jsonSchema: {
      bsonType: 'object',
      required: [
        '_id',
        'account_id',
        'product',
        'status',
        'face_value_kobo',
        'charged_kobo',
        'balance_after_kobo',
        'attempts',
        'next_attempt_at',
        'needs_attention',
        'created_at',
        'updated_at',
      ],
      properties: {
        product: { enum: [...PRODUCTS] },
        status: { enum: ['pending', 'success', 'failed', 'reversed'] },
        face_value_kobo: int64(0),
        charged_kobo: int64(1),
        balance_after_kobo: int64(0),
        request_id: { bsonType: ['string', 'null'] },
        attempts: { bsonType: ['int', 'long'], minimum: 0 },
        next_attempt_at: { bsonType: 'date' },
        needs_attention: { bsonType: 'bool' },
        created_at: { bsonType: 'date' },
        updated_at: { bsonType: 'date' },
      },
    },
  },
};

const MODE_PROPERTY = { enum: ['live', 'test'] };

/** A validator with more properties in its (first) $jsonSchema. */
function withProperties(validator: Document, properties: Document): Document {
  const extend = (schema: Document) => ({
    ...schema,
    $jsonSchema: { ...schema['$jsonSchema'], properties: { ...schema['$jsonSchema'].properties, ...properties } },
  });
  if (Array.isArray(validator['$and'])) {
    const [first, ...rest] = validator['$and'] as Document[];
    return { $and: [extend(first!), ...rest] };
  }
  return extend(validator);
}

/**
 * Step 4's validators: the test wallet's balance is a non-negative int64 like the live one,
 * and a ledger entry's or purchase's mode is live or test. The mode is not required, so that
 * a core of the previous build still writing during a rolling upgrade is not refused (its
 * rows are live, and every reader takes a missing mode as live).
 */
export const VALIDATORS_V4: Partial<Record<string, Document>> = {
  [COLLECTIONS.accounts]: withProperties(VALIDATORS[COLLECTIONS.accounts]!, { test_balance_kobo: int64(0) }),
  [COLLECTIONS.ledger]: withProperties(VALIDATORS[COLLECTIONS.ledger]!, { mode: MODE_PROPERTY }),
  [COLLECTIONS.transactions]: withProperties(VALIDATORS[COLLECTIONS.transactions]!, { mode: MODE_PROPERTY }),
};

/** A strict validator that refuses bad writes, as every collection with a validator has. */
export function validatorOptions(validator: Document): CreateCollectionOptions {
  return { validator, validationLevel: 'strict', validationAction: 'error' };
}

/** The collMod that replaces the validator of an existing collection (documents already there are not re-checked). */
export function setValidator(collection: string, validator: Document): Document {
  return { collMod: collection, ...validatorOptions(validator) };
}

/** Every transaction status, listed once for the validators; the type check keeps it whole. */
export const TRANSACTION_STATUSES = [
  'pending',
  'success',
  'failed',
  'reversed',
] as const satisfies readonly TransactionStatus[];
/** Every ledger entry kind, likewise. */
export const LEDGER_KINDS = ['credit', 'debit', 'refund', 'manual_debit'] as const satisfies readonly LedgerKind[];
/** Every kind of entry of the books (core/domain/books.ts), likewise. */
export const ENTRY_KINDS = [
  'reserve',
  'settle',
  'refund',
  'reverse',
  'cost_known',
  'credit',
  'debit',
  'inflow_received',
  'inflow_credited',
  'inflow_returned',
  'upstream_funded',
  'provider_settled',
] as const satisfies readonly EntryKind[];
// Compile-time checks that no status or kind of the domain is missing from the lists above.
type Missing<All, Listed> = Exclude<All, Listed> extends never ? true : never;
const statusesComplete: Missing<TransactionStatus, (typeof TRANSACTION_STATUSES)[number]> = true;
const kindsComplete: Missing<LedgerKind, (typeof LEDGER_KINDS)[number]> = true;
const entryKindsComplete: Missing<EntryKind, (typeof ENTRY_KINDS)[number]> = true;
void statusesComplete;
void kindsComplete;
void entryKindsComplete;

/**
 * Step 28's validator of the books' journal, the counterpart of SQLite's journal triggers
 * (sqlite/migrations-books.ts): one document is one entry, so the server checks the whole
 * entry at once. Its shape ($jsonSchema: a kind of the chart's list, a mode, two postings or
 * more, each an account and a whole int64 amount) and its balance ($expr: the postings sum to
 * zero, none is zero). `$sum` of the array path '$postings.amountKobo' adds the array's
 * elements (the $sum expression over one array operand); `$expr` may stand beside
 * `$jsonSchema` in a validator as any query operator but $near, $nearSphere, $text and
 * $where may. Unlike SQLite's triggers a validator cannot refuse an update that keeps an
 * entry balanced: the code only ever inserts journal documents.
 */
export const JOURNAL_VALIDATOR: Document = {
  $and: [
    {
      $jsonSchema: {
        bsonType: 'object',
        required: ['_id', 'entryId', 'kind', 'mode', 'reference', 'at', 'postings'],
        properties: {
          _id: { bsonType: 'string' },
          entryId: { bsonType: 'string', minLength: 1 },
          kind: { enum: [...ENTRY_KINDS] },
          mode: MODE_PROPERTY,
          reference: { bsonType: 'string' },
          at: { bsonType: 'date' },
          postings: {
            bsonType: 'array',
            minItems: 2,
            items: {
              bsonType: 'object',
              required: ['account', 'amountKobo'],
              additionalProperties: false,
              properties: {
                account: { bsonType: 'string', minLength: 3, maxLength: 200 },
                amountKobo: { bsonType: 'long' },
              },
            },
          },
        },
      },
    },
    {
      $expr: {
        $and: [
          { $eq: [{ $sum: '$postings.amountKobo' }, 0] },
          { $gte: [{ $size: '$postings' }, 2] },
          { $not: [{ $in: [0, '$postings.amountKobo'] }] },
        ],
      },
    },
  ],
};

/**
 * The lists a validator freezes into the database, as the latest validators step (see
 * schema.ts, `refreshValidators`) wrote them. A build that adds a product, status or kind
 * changes the domain's list, and a test (mongo-review.test.ts) then fails until a new step
 * that calls `refreshValidators` is appended and this record updated: without that step an
 * existing deployment would keep refusing the new value while a fresh test database passes.
 */
export const LISTS_AT_LAST_VALIDATORS_STEP = {
  products: ['airtime', 'data', 'electricity', 'cable', 'bulksms'],
  statuses: ['pending', 'success', 'failed', 'reversed'],
  kinds: ['credit', 'debit', 'refund', 'manual_debit'],
  /** The journal's kinds, as step 28 created its validator. */
  entryKinds: [
    'reserve',
    'settle',
    'refund',
    'reverse',
    'cost_known',
    'credit',
    'debit',
    'inflow_received',
    'inflow_credited',
    'inflow_returned',
    'upstream_funded',
    'provider_settled',
  ],
} as const;

/** The kinds whose amount is negative (money out); every other kind's is positive. */
const NEGATIVE_KINDS = ['debit', 'manual_debit'] as const satisfies readonly LedgerKind[];

/**
 * The sign of an amount follows its kind, as the SQLite CHECK has it, over every kind of this
 * build; and a manual debit says why (its memo is the operator's reason).
 */
function ledgerSignRule(): Document {
  return {
    $or: [
      { kind: { $in: [...NEGATIVE_KINDS] }, amount_kobo: { $lt: 0 } },
      {
        kind: { $in: LEDGER_KINDS.filter((k) => !(NEGATIVE_KINDS as readonly string[]).includes(k)) },
        amount_kobo: { $gt: 0 },
      },
    ],
  };
}
const MANUAL_DEBIT_HAS_REASON: Document = { $or: [{ kind: { $ne: 'manual_debit' } }, { memo: { $ne: '' } }] };

/** A validator's $jsonSchema (the first of an $and), changed by `change`. */
function withSchema(validator: Document, change: (schema: Document) => Document): Document {
  if (Array.isArray(validator['$and'])) {
    const [first, ...rest] = validator['$and'] as Document[];
    return { $and: [{ $jsonSchema: change(first!['$jsonSchema']) }, ...rest] };
  }
  return { $jsonSchema: change(validator['$jsonSchema']) };
}

/**
 * The validators as this build writes them: the lists from the domain as they are now, and
 * a mode required on every ledger entry and purchase (step 10 gave every older row one, so
 * "a document without a mode is live" no longer has to hold for any reader).
 */
export function currentValidators(): Record<string, Document> {
  const requireMode = (schema: Document): Document => ({ ...schema, required: [...schema['required'], 'mode'] });
  const lists = (schema: Document, enums: Document): Document => ({
    ...schema,
    properties: { ...schema['properties'], ...enums },
  });
  return {
    [COLLECTIONS.accounts]: VALIDATORS_V4[COLLECTIONS.accounts]!,
    [COLLECTIONS.ledger]: {
      $and: [
        ...(
          withSchema(VALIDATORS_V4[COLLECTIONS.ledger]!, (schema) =>
            requireMode(lists(schema, { kind: { enum: [...LEDGER_KINDS] } })),
          )['$and'] as Document[]
        ).slice(0, 1),
        ledgerSignRule(),
        MANUAL_DEBIT_HAS_REASON,
      ],
    },
    [COLLECTIONS.transactions]: withSchema(VALIDATORS_V4[COLLECTIONS.transactions]!, (schema) =>
      requireMode(lists(schema, { product: { enum: [...PRODUCTS] }, status: { enum: [...TRANSACTION_STATUSES] } })),
    ),
    [JOURNAL_COLLECTION]: withSchema(JOURNAL_VALIDATOR, (schema) =>
      lists(schema, { kind: { enum: [...ENTRY_KINDS] } }),
    ),
  };
}

/**
 * The validator every collection that has one must have now: what the latest validators
 * step set, so the start-up check below compares against it.
 */
export const CURRENT_VALIDATORS: Readonly<Partial<Record<string, Document>>> = currentValidators();

/** A collection as listCollections describes it; only the validation options are read. */
export interface CollectionInfo {
  name: string;
  options?: { validator?: Document; validationLevel?: string; validationAction?: string };
}

/**
 * What the validator check found: collections that run without the money guards, and ones whose guards differ from
 * ours.
 */
export interface ValidatorReport {
  missing: string[];
  different: string[];
}

/**
 * Compares the collections' validators with CURRENT_VALIDATORS. A collection restored from
 * a dump without its options, or created by hand, has no validator (or one that only
 * warns), and would take a negative balance silently: that is `missing`, and the store
 * refuses to start. A validator that is there but not ours (edited by hand, or a newer
 * build's) is `different`, and is reported loudly without stopping the core.
 */
export function checkValidators(
  found: readonly CollectionInfo[],
  expected: Readonly<Partial<Record<string, Document>>> = CURRENT_VALIDATORS,
): ValidatorReport {
  const report: ValidatorReport = { missing: [], different: [] };
  const byName = new Map(found.map((info) => [info.name, info.options ?? {}]));
  for (const [name, validator] of Object.entries(expected)) {
    const options = byName.get(name);
    if (options === undefined || validator === undefined) continue;
    const enforced =
      options.validator !== undefined &&
      (options.validationAction ?? 'error') === 'error' &&
      (options.validationLevel ?? 'strict') !== 'off';
    if (!enforced) report.missing.push(name);
    else if (
      JSON.stringify(options.validator) !== JSON.stringify(validator) ||
      (options.validationLevel ?? 'strict') !== 'strict'
    )
      report.different.push(name);
  }
  return report;
}

/** Collections without their validator; the message says how to put it back. */
export class MissingValidatorError extends Error {
  constructor(readonly collections: string[]) {
    super(
      `the MongoDB collection(s) ${collections.join(', ')} have no validator in force (restored from a dump without ` +
        'its options, or created by hand), so nothing in the database would refuse a negative balance. Restore them ' +
        'with `mongorestore` keeping collection options, or set the validators with ' +
        'collMod (see core/store/mongo/schema.ts, ' +
        'CURRENT_VALIDATORS), then start again.',
    );
    this.name = 'MissingValidatorError';
  }
}
