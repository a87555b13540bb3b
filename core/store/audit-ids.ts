/**
 * Ids of audit rows, the same in both adapters: the time in milliseconds, zero-padded so text
 * order is time order, then random hex so two rows of one millisecond never clash. Newest
 * first is then "by id, descending", and a page goes on "before this id", with no counter.
 */
import { randomBytes } from 'node:crypto';

export function auditEntryId(at: Date): string {
  return `${String(at.getTime()).padStart(15, '0')}-${randomBytes(6).toString('hex')}`;
}
