/**
 * Bulk SMS through VTpass's messaging API (a separate host with its own `X-Token` and
 * `X-Secret`). A batch answered `TG00` was processed: each recipient is then sent
 * (`0000`), delivered (`1111`), rejected (`2222`) or rejected for DND (`3333`). `TG17`
 * (our messaging units ran out) refuses the whole batch before sending anything.
 *
 * VTpass's documentation does not give the answer's field names; this reads `responseCode` (or
 * `code`) and a `messages` list of `{ statusCode }`, and anything else is unknown. The
 * messaging API has no re-query, so a batch without a clear answer stays pending for a
 * person (flagged after a day); it is never sent again, as that could send it twice.
 */
import type { NotificationSms, ProviderOutcome, ProviderRequest, SmsProvider } from '../port.js';
import { exchange, type Fetch, type HttpAnswer, pause, upstreamClient } from '../upstream-http.js';
import { asObject } from './codes.js';
import { VTPASS_NAME } from './index.js';

/** An answer lists every recipient; 10,000 recipients at ~200 bytes each fit in 4 MiB. */
const MAX_ANSWER_BYTES = 4 * 1024 * 1024;
/** Sent at most twice, the second time only when the first provably never arrived. */
const SEND_ATTEMPTS = 2;
const RETRY_PAUSE_MS = 250;

const PROCESSED = 'TG00';
const NO_UNITS = 'TG17';
/** Per recipient: sent and delivered count as sent; rejected and DND-rejected do not. */
const REJECTED = new Set(['2222', '3333']);

/** Where VTpass's messaging API is, its keys, and the sender of receipts. */
export interface VtpassSmsOptions {
  /** https://messaging.vtpass.com/v2/api/sms/sendsms */
  url: string;
  token: string;
  secret: string;
  /** Sender ID of the platform's own messages (receipts); it must be registered with the networks. */
  receiptSender: string;
  fetch?: Fetch;
  log?: (event: string, fields: Record<string, unknown>) => void;
}

/** The outcome of one batch, and whether the answer says our messaging account needs a person. */
interface BatchOutcome {
  outcome: ProviderOutcome;
  code: string | null;
  alert: boolean;
}

/** The bulk SMS provider (and receipt sender) through VTpass's messaging API. */
export function createVtpassSmsProvider(options: VtpassSmsOptions): SmsProvider {
  const url = new URL(options.url);
  const log = options.log ?? (() => {});
  const client = upstreamClient(options.fetch);

  async function send(
    sender: string,
    recipients: readonly string[],
    message: string,
    batchId: string,
    signal: AbortSignal,
  ): Promise<HttpAnswer> {
    const body = { sender, recipient: recipients.join(','), message, responsetype: 'json', clientbatchid: batchId };
    const once = () =>
      exchange(
        {
          url,
          method: 'POST',
          headers: { 'X-Token': options.token, 'X-Secret': options.secret },
          body,
          signal,
          maxBytes: MAX_ANSWER_BYTES,
        },
        client,
      );
    let answer = await once();
    for (let attempt = 2; attempt <= SEND_ATTEMPTS && answer.kind === 'no_answer' && !answer.delivered; attempt += 1) {
      if (!(await pause(RETRY_PAUSE_MS, signal))) break;
      answer = await once();
    }
    return answer;
  }

  return {
    name: VTPASS_NAME,
    async purchase(request: ProviderRequest, signal: AbortSignal): Promise<ProviderOutcome> {
      const recipients = request.details.recipients ?? [];
      if (recipients.length === 0 || !request.details.sender || !request.details.message) {
        return { kind: 'failed', reason: 'The SMS batch has no sender, message or recipients; nothing was sent.' };
      }
      const started = Date.now();
      const answer = await send(request.details.sender, recipients, request.details.message, request.reference, signal);
      const { outcome, code, alert } = batchOutcome(answer, recipients.length);
      log(alert ? 'vtpass.account_error' : 'provider.vtpass', {
        reference: request.reference,
        product: 'bulksms',
        call: 'sendsms',
        http_status: answer.kind === 'answer' ? answer.status : null,
        code,
        outcome: outcome.kind,
        ms: Date.now() - started,
      });
      return outcome;
    },
    async query(request: ProviderRequest): Promise<ProviderOutcome> {
      return {
        kind: 'unknown',
        reason:
          'the messaging API cannot be re-queried; ' +
          `check batch ${request.reference} in the VTpass messaging dashboard`,
      };
    },
    async notify(message: NotificationSms, signal: AbortSignal): Promise<boolean> {
      const answer = await send(options.receiptSender, [message.to], message.text, `${message.reference}R`, signal);
      const { outcome, code, alert } = batchOutcome(answer, 1);
      if (alert) log('vtpass.account_error', { reference: message.reference, call: 'sendsms', code });
      return outcome.kind === 'delivered' && (outcome.result.sent ?? 0) > 0;
    },
  };
}

/** Reads a sendsms exchange for a batch of `count` recipients. Never throws. */
function batchOutcome(answer: HttpAnswer, count: number): BatchOutcome {
  const unknown = (reason: string, code: string | null = null, alert = false): BatchOutcome => ({
    outcome: { kind: 'unknown', reason },
    code,
    alert,
  });
  if (answer.kind === 'no_answer') return unknown(answer.reason);
  if (answer.status >= 500 || answer.status < 200 || (answer.status >= 300 && answer.status < 400))
    return unknown(`the provider answered HTTP ${answer.status}`);
  const body = asObject(answer.json);
  if (body === undefined)
    return unknown(
      `malformed answer from the provider: ${answer.problem ?? 'not a JSON object'}`,
      null,
      answer.status >= 400,
    );
  const rawCode = body['responseCode'] ?? body['code'];
  const code = typeof rawCode === 'string' ? rawCode.trim().toUpperCase().slice(0, 8) : null;
  if (code === NO_UNITS) {
    return {
      outcome: {
        kind: 'failed',
        reason: 'The SMS provider cannot send messages right now (code TG17); nothing was sent.',
      },
      code,
      alert: true,
    };
  }
  // Any other code might have sent some messages; an operator has to look at unfamiliar ones.
  if (code !== PROCESSED)
    return unknown(`the SMS provider answered ${code === null ? 'without a code' : `code ${code}`}`, code, true);
  const messages = body['messages'];
  if (messages === undefined) {
    // Processed, without a per-recipient list: the batch was taken as a whole.
    return { outcome: { kind: 'delivered', result: { sent: count } }, code, alert: false };
  }
  if (!Array.isArray(messages)) return unknown('malformed answer from the SMS provider: messages is not a list', code);
  let rejected = 0;
  for (const item of messages) {
    const status = asObject(item)?.['statusCode'];
    if (typeof status === 'string' && REJECTED.has(status.trim())) rejected += 1;
  }
  // A recipient the list does not mention was still part of the processed batch.
  const sent = Math.max(count - rejected, 0);
  if (sent === 0) {
    return {
      outcome: {
        kind: 'failed',
        reason: 'The SMS provider rejected every recipient (blocked or on DND); nothing was sent.',
      },
      code,
      alert: false,
    };
  }
  const batch =
    typeof body['batchId'] === 'string' && /^[A-Za-z0-9_-]{1,64}$/.test(body['batchId'])
      ? { providerReference: body['batchId'] }
      : {};
  return { outcome: { kind: 'delivered', result: { sent, ...batch } }, code, alert: false };
}
