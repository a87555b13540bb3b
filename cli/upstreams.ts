/**
 * `prepaid upstreams`: each upstream's health and its float alert. `list` shows what
 * this core sees (circuit, float as last polled, alert, last error) and the last hour's purchases
 * and failovers from the store; `set-float-alert` is audited (actor `cli`); `fund` records a
 * top-up of an upstream's float from our bank in the books.
 */
import { bookedOutput, referenceOption } from './books.js';
import { type CommandGroup, UsageError } from './command.js';
import { columns, kobo, nairaArgument, nairaText } from './format.js';

export const upstreamsGroup: CommandGroup = {
  name: 'upstreams',
  summary: 'Upstream health: circuit, float and its alert, last error, last hour’s purchases and failovers.',
  commands: [
    {
      name: 'list',
      summary: 'Each configured upstream with its kind, circuit, float, alert, last error, and last hour.',
      args: [],
      async run(_input, core) {
        const { upstreams } = await core().listUpstreamHealth({});
        const naira = (value: bigint | undefined) => (value === undefined ? '-' : nairaText(kobo(value)));
        return {
          json: {
            upstreams: upstreams.map((u) => ({
              name: u.name,
              kind: u.kind,
              circuit: u.circuit,
              float_kobo: u.floatKobo === undefined ? null : Number(u.floatKobo),
              float_alert_kobo: u.floatAlertKobo === undefined ? null : Number(u.floatAlertKobo),
              last_error: u.lastError || null,
              purchases_last_hour: u.purchasesLastHour,
              failovers_last_hour: u.failoversLastHour,
              skipped: u.skipped,
            })),
          },
          text: columns([
            ['UPSTREAM', 'KIND', 'CIRCUIT', 'FLOAT', 'ALERT', 'LAST ERROR', 'PURCHASES 1H', 'FAILOVERS 1H'],
            ...upstreams.map((u) => [
              u.name,
              u.kind,
              u.circuit,
              naira(u.floatKobo),
              naira(u.floatAlertKobo),
              u.lastError || '-',
              String(u.purchasesLastHour),
              String(u.failoversLastHour),
            ]),
          ]),
        };
      },
    },
    {
      name: 'set-float-alert',
      summary: 'Below this float (Naira) the upstream is skipped by routes that have another choice; 0 removes it.',
      args: ['NAME', 'AMOUNT_NAIRA'],
      async run({ args }, core) {
        const name = args[0] ?? '';
        if (name === '') throw new UsageError('NAME is the upstream’s name.');
        const amount = args[1] ?? '';
        const alertKobo = amount === '0' ? 0n : BigInt(nairaArgument('AMOUNT_NAIRA', amount));
        const set = await core().setUpstreamFloatAlert({ name, alertKobo });
        const text = (value: bigint | undefined) => (value === undefined ? 'none' : `${nairaText(kobo(value))} Naira`);
        return {
          json: {
            name,
            alert_kobo: set.alertKobo === undefined ? null : Number(set.alertKobo),
            before_kobo: set.beforeKobo === undefined ? null : Number(set.beforeKobo),
          },
          text: [`${name}: float alert ${text(set.alertKobo)} (was ${text(set.beforeKobo)}).`],
        };
      },
    },
    {
      name: 'fund',
      summary: 'Record a top-up of an upstream’s float (AMOUNT_NAIRA paid from our bank) in the books.',
      args: ['NAME', 'AMOUNT_NAIRA'],
      options: {
        reference: {
          placeholder: 'REF',
          required: true,
          summary: 'Your bank’s reference: a retry with it books once.',
        },
      },
      async run({ args, options }, core) {
        const upstream = args[0] ?? '';
        if (upstream === '') throw new UsageError('NAME is the upstream’s name.');
        const amountKobo = nairaArgument('AMOUNT_NAIRA', args[1] ?? '');
        const reference = referenceOption(options['reference']);
        const response = await core().fundUpstream({ upstream, amountKobo: BigInt(amountKobo), reference });
        return bookedOutput(`a top-up of ${nairaText(amountKobo)} to ${upstream}`, response);
      },
    },
  ],
};
