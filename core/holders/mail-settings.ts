/**
 * The developer area's Mail settings: the holder mails (core/domain/holder-mail.ts) a person
 * turned off, for the signed-in person themselves, in whichever account the session acts for
 * (the choice is the person's, so it follows them into every account they belong to).
 */
import { invalid } from '../domain/errors.js';
import { type HolderMailKind, isHolderMailKind } from '../domain/holder-mail.js';
import type { HolderContext } from '../people/service.js';
import type { Store } from '../store/port.js';

export function mailSettings(store: Pick<Store, 'notices'>, clock: () => Date) {
  return {
    async mailOptOuts(context: HolderContext): Promise<HolderMailKind[]> {
      return (await store.notices.mailOptOuts([context.user.userId])).get(context.user.userId) ?? [];
    },
    async setMailOptOuts(context: HolderContext, off: readonly string[]): Promise<void> {
      const unknown = off.find((kind) => !isHolderMailKind(kind));
      if (unknown !== undefined)
        throw invalid('off', `${JSON.stringify(unknown.slice(0, 40))} is not a mail one can turn off.`);
      await store.notices.setMailOptOuts(context.user.userId, off as HolderMailKind[], clock());
    },
  };
}
