/**
 * The core's mail: a bounded queue in memory and one sender behind it, so that a request
 * that has something to mail only queues it and answers; nothing waits on the SMTP server,
 * and nothing is mailed inside a store transaction. A send that fails is tried again twice
 * (after MAIL_RETRY_DELAYS_MS), then given up with a warning; every wait on the server is
 * bounded (SMTP_TIMEOUTS). The queue is memory only: a mail still queued when the core stops
 * is lost, which is why what must not be lost is re-derived from the store (the low-balance
 * notices, low-balance.ts) and what carries a secret link (a reset, an invitation) is never
 * written down in plain text at all: the person asks again.
 *
 * Log lines name the kind of mail, the server as scheme, host and port, and the recipient
 * masked (t***@example.ng); never the credentials of SMTP_URL, never the body (a reset mail
 * holds a link that signs someone in).
 */
import nodemailer from 'nodemailer';
import type { Logger } from '../../runtime/log.js';
import type { MailSettings } from './smtp.js';
import { withoutCredentials } from './smtp.js';

/** One mail: plain text, to one person. */
interface Mail {
  /** What it is, for the log (`password_reset`, `sign_in`, ...). */
  kind: string;
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  /** Queues a mail and returns at once. */
  send(mail: Mail): void;
  /** Resolves once the queue is empty and nothing is being sent (tests, shutdown). */
  idle(): Promise<void>;
  /** Waits for the queue (bounded by the timeouts of each send), then closes the connection. */
  close(): Promise<void>;
}

/** Mails waiting at most; past it a new one is dropped with a warning rather than growing the core's memory. */
const MAX_QUEUED = 1_000;
/** The waits before the second and third attempts. */
const MAIL_RETRY_DELAYS_MS = [5_000, 60_000] as const;
/** Every wait on the SMTP server is bounded: connecting, its greeting, and any silence after. */
const SMTP_TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 } as const;

/** The longest a stop waits for mails still queued; the rest are lost (mailer.ts says why that is acceptable). */
const CLOSE_WAIT_MS = 5_000;

/** `tunde@example.ng` -> `t***@example.ng`: enough to tell two recipients apart in a log, not to harvest. */
function maskAddress(address: string): string {
  const at = address.lastIndexOf('@');
  return at <= 0 ? '***' : `${address[0]}***${address.slice(at)}`;
}

export function createMailer(settings: MailSettings, log: Logger): Mailer {
  const { server } = settings;
  const transport = nodemailer.createTransport({
    host: server.host,
    port: server.port,
    secure: server.secure,
    ...(server.user === null ? {} : { auth: { user: server.user, pass: server.password ?? '' } }),
    ...SMTP_TIMEOUTS,
    logger: false,
    debug: false,
  });
  const queue: Array<{ mail: Mail; attempt: number }> = [];
  const retries = new Set<NodeJS.Timeout>();
  let sending = false;
  let closed = false;
  let waiters: Array<() => void> = [];

  const isIdle = () => queue.length === 0 && !sending && retries.size === 0;
  function settle(): void {
    if (!isIdle()) return;
    const ready = waiters;
    waiters = [];
    for (const resolve of ready) resolve();
  }

  async function pump(): Promise<void> {
    if (sending) return;
    sending = true;
    try {
      for (let next = queue.shift(); next !== undefined; next = queue.shift()) await attempt(next.mail, next.attempt);
    } finally {
      sending = false;
      settle();
    }
  }

  async function attempt(mail: Mail, attemptNo: number): Promise<void> {
    const fields = { kind: mail.kind, to: maskAddress(mail.to), server: server.describe, attempt: attemptNo };
    try {
      await transport.sendMail({ from: settings.from, to: mail.to, subject: mail.subject, text: mail.text });
      log('mail.sent', fields);
    } catch (error) {
      const reason = withoutCredentials(error instanceof Error ? error.message : String(error), server);
      const delay = MAIL_RETRY_DELAYS_MS[attemptNo - 1];
      log('mail.send_warning', { ...fields, reason, ...(delay === undefined || closed ? { gave_up: true } : {}) });
      if (delay === undefined || closed) return;
      const timer = setTimeout(() => {
        retries.delete(timer);
        enqueue(mail, attemptNo + 1);
      }, delay);
      timer.unref();
      retries.add(timer);
    }
  }

  function enqueue(mail: Mail, attemptNo: number): void {
    if (queue.length >= MAX_QUEUED) {
      log('mail.send_warning', { kind: mail.kind, to: maskAddress(mail.to), reason: 'queue full', gave_up: true });
      settle();
      return;
    }
    queue.push({ mail, attempt: attemptNo });
    void pump();
  }

  return {
    send(mail) {
      if (closed) return;
      enqueue(mail, 1);
    },
    idle: () => (isIdle() ? Promise.resolve() : new Promise<void>((resolve) => waiters.push(resolve))),
    async close() {
      closed = true;
      // Retries waiting for minutes are given up: a stop does not wait for them.
      for (const timer of retries) clearTimeout(timer);
      retries.clear();
      // A stop waits for the queue a little, not for a slow server's every time-out.
      await new Promise<void>((resolve) => {
        if (isIdle()) return resolve();
        waiters.push(resolve);
        setTimeout(resolve, CLOSE_WAIT_MS).unref();
      });
      transport.close();
    },
  };
}
