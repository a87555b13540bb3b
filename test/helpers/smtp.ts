/**
 * A real SMTP receiver for tests (the smtp-server package) on 127.0.0.1 port 0, plaintext
 * with AUTH required, as a small mail relay would be; each message is parsed with mailparser
 * and kept. `next` waits for the next mail to an address, bounded so a test fails instead of
 * hanging when none comes.
 */
import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

interface ReceivedMail {
  to: string;
  from: string;
  subject: string;
  text: string;
}

export interface SmtpReceiver {
  port: number;
  /** smtp://user:password@127.0.0.1:port with the receiver's credentials. */
  url: string;
  user: string;
  password: string;
  mails: ReceivedMail[];
  /**
   * The next mail to `to` (whose subject has `subject`, if given) not yet taken by an earlier call; waits up to
   * `boundMs`.
   */
  next(to: string, subject?: string, boundMs?: number): Promise<ReceivedMail>;
  /** Sign-in attempts refused (wrong credentials). */
  refusedLogins: number;
  close(): Promise<void>;
}

export async function startSmtpReceiver(
  options: { user?: string; password?: string; refuseAll?: boolean } = {},
): Promise<SmtpReceiver> {
  const user = options.user ?? 'relay-user';
  const password = options.password ?? 'relay pass/with:odd@chars';
  const mails: ReceivedMail[] = [];
  const taken = new Set<ReceivedMail>();
  let waiters: Array<() => void> = [];
  const state = { refusedLogins: 0 };
  const server = new SMTPServer({
    secure: false,
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authMethods: ['PLAIN', 'LOGIN'],
    logger: false,
    onAuth(auth, _session, callback) {
      if (!options.refuseAll && auth.username === user && auth.password === password)
        return callback(null, { user: auth.username });
      state.refusedLogins += 1;
      return callback(new Error('Invalid username or password'));
    },
    onData(stream, _session, callback) {
      simpleParser(stream)
        .then((parsed) => {
          const to = Array.isArray(parsed.to) ? parsed.to[0] : parsed.to;
          mails.push({
            to: to?.value[0]?.address ?? '',
            from: parsed.from?.value[0]?.address ?? '',
            subject: parsed.subject ?? '',
            text: parsed.text ?? '',
          });
          const ready = waiters;
          waiters = [];
          for (const wake of ready) wake();
          callback();
        })
        .catch((error: Error) => callback(error));
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;

  function take(to: string, subject: string): ReceivedMail | undefined {
    const found = mails.find((mail) => mail.to === to && mail.subject.includes(subject) && !taken.has(mail));
    if (found) taken.add(found);
    return found;
  }

  return {
    port,
    url: `smtp://${encodeURIComponent(user)}:${encodeURIComponent(password)}@127.0.0.1:${port}`,
    user,
    password,
    mails,
    get refusedLogins() {
      return state.refusedLogins;
    },
    async next(to, subject = '', boundMs = 15_000) {
      const deadline = Date.now() + boundMs;
      for (;;) {
        const found = take(to, subject);
        if (found) return found;
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`no mail to ${to} within ${boundMs} ms`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
