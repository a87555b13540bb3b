/**
 * What both adapters write with a key's freeze or unfreeze, once: the event and the audit
 * row, each built from the key as it was and the change, so that SQLite and MongoDB record
 * the very same facts in the freeze's transaction.
 */
import { keyFreezeEvent, type NewEvent } from '../domain/events.js';
import type { ApiKeyRecord, AuditEntryRecord } from '../domain/records.js';
import type { KeyFreeze, KeyUnfreeze } from '../domain/velocity.js';
import type { KeyFreezeActor } from './port.js';

/** A freeze (with its reason) or an unfreeze, as the adapters apply it. */
export type FreezeChange = { kind: 'freeze'; freeze: KeyFreeze } | { kind: 'unfreeze'; unfreeze: KeyUnfreeze };

function frozenJson(key: Pick<ApiKeyRecord, 'frozen'>): string {
  const frozen = key.frozen;
  return JSON.stringify(
    frozen === undefined ? { frozen: false } : { frozen: true, at: frozen.at.toISOString(), reason: frozen.reason },
  );
}

/** The event and the audit row of a change that applies to `before` (the key as it was). */
export function freezeRecords(
  before: ApiKeyRecord,
  change: FreezeChange,
  who: KeyFreezeActor,
): { event: NewEvent; audit: Omit<AuditEntryRecord, 'id'>; after: ApiKeyRecord } {
  const after: ApiKeyRecord = { ...before };
  if (change.kind === 'freeze') after.frozen = change.freeze;
  else delete after.frozen;
  const at = change.kind === 'freeze' ? change.freeze.at : change.unfreeze.at;
  const event =
    change.kind === 'freeze'
      ? keyFreezeEvent(before, { type: 'key.frozen', at, reason: change.freeze.reason, by: change.freeze.by })
      : keyFreezeEvent(before, { type: 'key.unfrozen', at, by: change.unfreeze.by });
  const audit = {
    at,
    actor: who.actor,
    action: change.kind === 'freeze' ? 'key.freeze' : 'key.unfreeze',
    target: before.publicKey,
    before: frozenJson(before),
    after: frozenJson(after),
    address: who.address,
    note: who.note,
  };
  return { event, audit, after };
}

/** Whether the change would change the key: a freeze of a key not frozen, an unfreeze of a frozen one. */
export function freezeApplies(key: Pick<ApiKeyRecord, 'frozen'>, change: FreezeChange): boolean {
  return change.kind === 'freeze' ? key.frozen === undefined : key.frozen !== undefined;
}
