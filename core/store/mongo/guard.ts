/**
 * The start-up guard. The money invariants (a debit, its ledger entry and its pending
 * transaction are written together or not at all) rest on multi-document transactions,
 * which a standalone mongod does not have, and the adapter uses server features of
 * MongoDB 6.0. So the core refuses to start anywhere else, with a message that says what
 * to do, instead of failing on the first purchase. The decision is a pure function of the
 * server's `hello` reply so that it can be tested without a server.
 */

/**
 * The oldest server the adapter runs on: MongoDB 6.0 (wire version 17). Transactions alone
 * would need 4.0, but the adapter also relies on `$in` in a partial unique index (the one
 * debit and one refund per purchase, 6.0), `$setWindowFields` for the running-balance
 * audit (5.0) and snapshot reads outside transactions for the audit (5.0).
 */
export const MIN_WIRE_VERSION = 17;

/** Server versions by the wire version they introduced, for messages people can act on. */
const SERVER_VERSION_BY_WIRE: ReadonlyArray<readonly [number, string]> = [
  [25, '8.0'],
  [21, '7.0'],
  [17, '6.0'],
  [13, '5.0'],
  [9, '4.4'],
  [8, '4.2'],
  [7, '4.0'],
  [6, '3.6'],
];

/** The fields of a `hello` reply the guard reads; everything else is ignored. */
export interface HelloReply {
  /** Present on a replica set member: the set's name. */
  setName?: unknown;
  /** "isdbgrid" on a mongos router of a sharded cluster. */
  msg?: unknown;
  maxWireVersion?: unknown;
  /** Absent or null when the server does not support sessions, hence transactions. */
  logicalSessionTimeoutMinutes?: unknown;
  isWritablePrimary?: unknown;
  secondary?: unknown;
  arbiterOnly?: unknown;
}

/** What the guard decided about a deployment. */
export type DeploymentCheck =
  | { ok: true; topology: 'replica_set' | 'sharded'; serverVersion: string }
  | { ok: false; reason: string };

/** Decides from a `hello` reply whether the store may run on this deployment. */
export function checkDeployment(hello: HelloReply): DeploymentCheck {
  const wire = typeof hello.maxWireVersion === 'number' ? hello.maxWireVersion : 0;
  const version = serverVersionOf(wire);
  const sharded = hello.msg === 'isdbgrid';
  const replicaSet = typeof hello.setName === 'string' && hello.setName !== '';

  if (!sharded && !replicaSet) {
    return {
      ok: false,
      reason:
        'MongoDB is a standalone server; the store needs multi-document transactions, which only a replica set ' +
        'or a sharded cluster has. For development, start mongod with --replSet rs0 and run rs.initiate() once ' +
        '(a one-node replica set); in production use a replica set of three.',
    };
  }
  if (wire < MIN_WIRE_VERSION) {
    return {
      ok: false,
      reason:
        `MongoDB ${version} (wire version ${wire}) is too old: the store needs MongoDB ` +
        `${serverVersionOf(MIN_WIRE_VERSION)} or newer.`,
    };
  }
  if (hello.logicalSessionTimeoutMinutes === undefined || hello.logicalSessionTimeoutMinutes === null) {
    return {
      ok: false,
      reason:
        'MongoDB reports no logical sessions (logicalSessionTimeoutMinutes), so it ' +
        'cannot run transactions; check that every member runs the same version and the ' +
        'set is initiated.',
    };
  }
  if (!sharded && hello.isWritablePrimary !== true) {
    // With a replica set connection string the driver always talks to the primary; this
    // only happens with directConnection=true to another member, where every write fails.
    const role =
      hello.arbiterOnly === true ? 'an arbiter' : hello.secondary === true ? 'a secondary' : 'not the primary';
    return {
      ok: false,
      reason:
        `the MongoDB server the store is connected to is ${role}; connect to the replica ` +
        `set (list its members, or drop directConnection=true) so that writes reach the ` +
        `primary.`,
    };
  }
  return { ok: true, topology: sharded ? 'sharded' : 'replica_set', serverVersion: version };
}

/** "7.0" for the wire version a release introduced, "7.x" for the rapid releases after it. */
function serverVersionOf(wire: number): string {
  for (const [minWire, version] of SERVER_VERSION_BY_WIRE) {
    if (wire >= minWire) return wire === minWire ? version : `${version.split('.')[0]}.x`;
  }
  return 'older than 3.6';
}

/** The core refused the deployment; core/main.ts prints the message and exits non-zero. */
export class UnsuitableDeploymentError extends Error {
  constructor(reason: string) {
    super(`Refusing to start on this MongoDB deployment: ${reason}`);
    this.name = 'UnsuitableDeploymentError';
  }
}

/** The oldest featureCompatibilityVersion the schema works with (partial indexes with `$in`). */
const MIN_FEATURE_COMPATIBILITY = '6.0';

/** What to do about a featureCompatibilityVersion below MIN_FEATURE_COMPATIBILITY. */
const FCV_ADVICE =
  `set it to ${MIN_FEATURE_COMPATIBILITY} or newer once every member runs MongoDB ${MIN_FEATURE_COMPATIBILITY}+ ` +
  `(as a cluster administrator: db.adminCommand({ setFeatureCompatibilityVersion: ` +
  `"${MIN_FEATURE_COMPATIBILITY}", confirm: true })), then start again.`;

/**
 * Decides from a `getParameter: { featureCompatibilityVersion: 1 }` reply whether the schema
 * can be created. A server upgraded from 5.0 keeps FCV 5.0 until an administrator raises it,
 * and then refuses the partial unique indexes with a raw error; this says what to do. A
 * reply without the field (an older server, or a user not allowed to ask) is let through,
 * and `explainSchemaFailure` words the index error instead.
 */
export function checkFeatureCompatibility(reply: unknown): { ok: true } | { ok: false; reason: string } {
  const fcv = (reply as { featureCompatibilityVersion?: { version?: unknown } } | null)?.featureCompatibilityVersion
    ?.version;
  if (typeof fcv !== 'string') return { ok: true };
  if (compareVersions(fcv, MIN_FEATURE_COMPATIBILITY) >= 0) return { ok: true };
  return {
    ok: false,
    reason:
      `the replica set's featureCompatibilityVersion is ${fcv}; the store needs ` +
      `${MIN_FEATURE_COMPATIBILITY} or newer: ${FCV_ADVICE}`,
  };
}

/** Server codes an index that the featureCompatibilityVersion does not allow fails with. */
const INDEX_REFUSED_CODES: ReadonlySet<number> = new Set([
  67, // CannotCreateIndex
  2, // BadValue: "unsupported expression in partial index"
]);

/**
 * An error from creating the schema, reworded when it is the one a low
 * featureCompatibilityVersion gives (an unsupported partial index expression), so the
 * operator reads what to do instead of a raw server message.
 */
export function explainSchemaFailure(error: unknown): unknown {
  const code =
    typeof error === 'object' && error !== null && 'code' in error ? (error as { code: unknown }).code : undefined;
  const message = error instanceof Error ? error.message : '';
  if (typeof code === 'number' && INDEX_REFUSED_CODES.has(code) && /partial|\$in|expression/i.test(message)) {
    return new UnsuitableDeploymentError(
      `MongoDB refused the store's indexes (${message}); this is what a ` +
        `featureCompatibilityVersion below ${MIN_FEATURE_COMPATIBILITY} does: ` +
        `${FCV_ADVICE}`,
    );
  }
  return error;
}

/** Compares "6.0" style versions numerically, part by part. */
function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}
