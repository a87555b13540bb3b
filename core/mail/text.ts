/** What every notice's text is made of: Lagos time, outside text on one line, an account's owners. */
import { LAGOS_OFFSET_MS } from '../domain/people.js';
import type { UserRecord } from '../domain/records.js';
import type { PeopleStore } from '../store/port.js';

/** What a notice shows of a user agent or an address at most. */
const MAX_SHOWN_CHARS = 200;

/** `2026-11-26 08:15 WAT`: Lagos time, as the developer area shows it. */
export function lagosTime(at: Date): string {
  return `${new Date(at.getTime() + LAGOS_OFFSET_MS).toISOString().slice(0, 16).replace('T', ' ')} WAT`;
}

/** Text from outside, safe to put on one line of a mail. */
export function oneLine(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: taking control characters out is the point.
  const clean = text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').trim();
  if (clean === '') return 'unknown';
  return clean.length > MAX_SHOWN_CHARS ? `${clean.slice(0, MAX_SHOWN_CHARS)}…` : clean;
}

/** The active owners of an account, whom account-wide notices go to. */
export async function ownersOf(people: PeopleStore, accountId: string): Promise<UserRecord[]> {
  return (await people.listMembers(accountId))
    .filter(({ membership }) => membership.role === 'owner' && !membership.disabled)
    .map(({ user }) => user);
}
