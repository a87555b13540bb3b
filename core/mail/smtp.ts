/**
 * SMTP_URL and MAIL_FROM: where the core's mail goes and whom it is from. The URL may carry
 * the server's user name and password (`smtps://user:pass@smtp.example.ng`); they are kept
 * apart from everything that is shown or logged: a problem with the URL never echoes it, and
 * `describe` names the server by scheme, host and port only.
 */

/** What the mailer needs of SMTP_URL, credentials split out. */
export interface SmtpServer {
  /** smtps: TLS from the first byte (port 465 by default); smtp: STARTTLS when the server offers it (587). */
  secure: boolean;
  host: string;
  port: number;
  user: string | null;
  password: string | null;
  /** `smtps://smtp.example.ng:465`: safe to log. */
  describe: string;
}

export interface MailSettings {
  server: SmtpServer;
  /** The From header: an address, or `Name <address>`. */
  from: string;
}

/** Parses SMTP_URL; the answer is a server, or a problem that never repeats the URL (it may hold a password). */
export function parseSmtpUrl(text: string): SmtpServer | { problem: string } {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { problem: 'must be a URL such as smtps://user:password@smtp.example.ng (the value is not shown).' };
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') return { problem: 'must start with smtp:// or smtps://.' };
  if (url.hostname === '') return { problem: 'must name the mail server (smtps://smtp.example.ng).' };
  if ((url.pathname !== '' && url.pathname !== '/') || url.search !== '' || url.hash !== '')
    return { problem: 'must be only scheme, credentials, host and port: no path or query.' };
  const secure = url.protocol === 'smtps:';
  const port = url.port === '' ? (secure ? 465 : 587) : Number(url.port);
  let user: string | null = null;
  let password: string | null = null;
  try {
    user = url.username === '' ? null : decodeURIComponent(url.username);
    password = url.password === '' ? null : decodeURIComponent(url.password);
  } catch {
    return { problem: 'has a user name or password that is not valid percent-encoding.' };
  }
  return {
    secure,
    host: url.hostname,
    port,
    user,
    password,
    describe: `${url.protocol}//${url.port === '' ? `${url.host}:${port}` : url.host}`,
  };
}

/** A From header of one address (optionally with a display name); no line breaks. */
const FROM_PATTERN = /^(?:[^<>\r\n"]{0,100} <[^\s<>@]+@[^\s<>@]+\.[^\s<>@]+>|[^\s<>@]+@[^\s<>@]+\.[^\s<>@]+)$/;

export function mailFromProblem(text: string): string | undefined {
  return FROM_PATTERN.test(text) && text.length <= 200
    ? undefined
    : 'must be an address (no-reply@example.ng) or a name and an address (Prepaid <no-reply@example.ng>).';
}

/** Text with the SMTP credentials (as given and as encoded in the URL) taken out, for a log line. */
export function withoutCredentials(text: string, server: SmtpServer): string {
  let clean = text;
  for (const secret of [server.password, server.user]) {
    if (secret === null || secret === '') continue;
    for (const form of new Set([secret, encodeURIComponent(secret)])) clean = clean.split(form).join('[redacted]');
  }
  return clean;
}
