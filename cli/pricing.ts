/** `prepaid pricing ...`: the bulk SMS page rate. */

import { koboToNaira } from '../core/domain/money.js';
import type { CommandGroup, CommandResult } from './command.js';
import { kobo, nairaArgument, nairaText } from './format.js';

function rateResult(koboPerPage: bigint, verb: string): CommandResult {
  const rateKobo = kobo(koboPerPage);
  return {
    json: { naira_per_page: koboToNaira(rateKobo), kobo_per_page: rateKobo },
    text: [`SMS page rate ${verb} ${nairaText(rateKobo)} per page per recipient.`],
  };
}

/** The pricing command group. */
export const pricingGroup: CommandGroup = {
  name: 'pricing',
  summary: 'Prices that are not per tier: the bulk SMS page rate.',
  commands: [
    {
      name: 'set-sms-rate',
      summary: 'Set the price of one SMS page to one recipient, in Naira.',
      args: ['NAIRA_PER_PAGE'],
      async run({ args }, core) {
        const koboPerPage = nairaArgument('NAIRA_PER_PAGE', args[0] ?? '');
        return rateResult((await core().setSmsRate({ koboPerPage: BigInt(koboPerPage) })).koboPerPage, 'is now');
      },
    },
    {
      name: 'get-sms-rate',
      summary: 'Show the price of one SMS page to one recipient.',
      args: [],
      async run(_input, core) {
        return rateResult((await core().getSmsRate({})).koboPerPage, 'is');
      },
    },
  ],
};
