/**
 * What the console's attention queue says about the platform itself (core/staff/desk.ts): the
 * store cannot write (core/storage/write-watch.ts), or the last scheduled backup failed
 * (core/storage/backup.ts). Each stays until it is over: the store writes again, a backup succeeds.
 */
import type { StoreWriteHealth } from '../store/port.js';
import type { Backups } from './backup.js';

export interface OperationsAlert {
  kind: 'store_cannot_write' | 'backup_failed';
  detail: string;
  since: Date;
}

export function operationsAlerts(writes: StoreWriteHealth, backups: Backups | undefined): OperationsAlert[] {
  const alerts: OperationsAlert[] = [];
  const fault = writes.fault();
  if (fault !== null)
    alerts.push({
      kind: 'store_cannot_write',
      detail: `The store cannot write (${fault.reason}): purchases are refused, nothing is debited, until it can.`,
      since: fault.since,
    });
  const failure = backups?.scheduled?.lastFailure() ?? null;
  if (failure !== null)
    alerts.push({
      kind: 'backup_failed',
      detail: `The last scheduled backup failed: ${failure.reason}`,
      since: failure.at,
    });
  return alerts;
}
