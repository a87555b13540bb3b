/**
 * The one way the core writes the audit log (store.auditLog): who (`staff:<email>`, `cli`
 * or `system`), what, to what, the state before and after as JSON, the address and the note.
 */
import type { AuditEntryRecord } from '../domain/records.js';
import type { Store } from '../store/port.js';

/** Who acts: the audit's actor and the client address the request came from. */
export interface Actor {
  actor: string;
  address: string | null;
}

export const CLI_ACTOR: Actor = { actor: 'cli', address: null };

export interface AuditFact {
  action: string;
  target: string;
  before?: unknown;
  after?: unknown;
  note?: string;
}

/** JSON with bigints as text: a before/after may hold kobo amounts from anywhere. */
function json(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
}

export function createAuditTrail(auditLog: Store['auditLog'], clock: () => Date) {
  return (who: Actor, fact: AuditFact): Promise<AuditEntryRecord> =>
    auditLog.append({
      at: clock(),
      actor: who.actor,
      action: fact.action,
      target: fact.target,
      before: json(fact.before),
      after: json(fact.after),
      address: who.address,
      note: fact.note ?? '',
    });
}

export type AuditTrail = ReturnType<typeof createAuditTrail>;
