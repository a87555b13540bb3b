/**
 * Where the core is, which admin token to present, the connection itself, and what a failed
 * call means to an operator. The token is read from ADMIN_TOKEN or from the file the core
 * writes on first start, and it is never printed: messages name where it came from instead.
 */
import path from 'node:path';
import { Code, ConnectError, createClient } from '@connectrpc/connect';
import type { FieldViolation } from '../core/domain/errors.js';
import { BadRequestSchema, ErrorInfoSchema } from '../gen/google/rpc/error_details_pb.js';
import { AdminService } from '../gen/prepaid/v1/admin_pb.js';
import { createCoreTransport } from '../runtime/core-transport.js';
import { ConfigError } from '../runtime/env-schema.js';
import { ALLOW_PLAINTEXT_VARIABLE, readPem } from '../runtime/tls.js';
import { ADMIN_TOKEN_FILE, readTokenFile, TokenFileError } from '../runtime/tokens.js';
import { baseUrlText, checkUrl } from '../runtime/url.js';
import { type AdminClient, CliError, type ServiceClients, UsageError } from './command.js';

type Env = Record<string, string | undefined>;

/**
 * Deadline of every call. Admin calls are single store operations that answer in
 * milliseconds; ten seconds only rules out hanging on a core that accepted the connection
 * and stopped answering.
 */
const CALL_TIMEOUT_MS = 10_000;

/** The core's port when neither CORE_URL nor CORE_PORT says otherwise (core/config.ts). */
const DEFAULT_CORE_PORT = 50051;

/** The core's data directory when DATA_DIR is unset (core/config.ts). */
const DEFAULT_DATA_DIR = './data';

/** Addresses a server binds to that mean "every interface" and cannot be dialled. */
const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '[::]']);

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

function checkedUrl(text: string, origin: string): string {
  const checked = checkUrl(text, { schemes: ['http:', 'https:'], example: 'http://127.0.0.1:50051' });
  if (checked.problem !== undefined) throw new UsageError(`${origin} ${checked.problem}`);
  return baseUrlText(checked.url);
}

/**
 * The core's base URL: the --core flag, else CORE_URL, else http://CORE_HOST:CORE_PORT with
 * 127.0.0.1 and 50051 as defaults. A wildcard CORE_HOST (the core listening everywhere) is
 * dialled as 127.0.0.1, since this CLI runs beside the core.
 */
export function resolveCoreUrl(env: Env, flag: string | undefined): string {
  if (flag !== undefined) return checkedUrl(flag, '--core');
  const fromEnv = nonEmpty(env['CORE_URL']);
  if (fromEnv) return checkedUrl(fromEnv, 'CORE_URL');
  const portText = nonEmpty(env['CORE_PORT']) ?? String(DEFAULT_CORE_PORT);
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port < 1 || port > 65_535) {
    throw new CliError(
      'CONFIG_ERROR',
      `CORE_PORT must be a port number from 1 to 65535; got ${JSON.stringify(portText)}.`,
    );
  }
  let host = nonEmpty(env['CORE_HOST']) ?? '127.0.0.1';
  if (WILDCARD_HOSTS.has(host)) host = '127.0.0.1';
  if (host.includes(':') && !host.startsWith('[')) host = `[${host}]`;
  return `http://${host}:${port}`;
}

/** The admin token and, for messages, where it came from (never the token itself). */
export interface AdminToken {
  token: string;
  source: string;
}

/** ADMIN_TOKEN, else DATA_DIR/admin.token as the core created it, else a CliError saying what to do. */
export function resolveAdminToken(env: Env): AdminToken {
  const fromEnv = nonEmpty(env['ADMIN_TOKEN']);
  if (fromEnv) return { token: fromEnv, source: 'ADMIN_TOKEN' };
  const dataDir = path.resolve(nonEmpty(env['DATA_DIR']) ?? DEFAULT_DATA_DIR);
  let token: string | null;
  try {
    token = readTokenFile(dataDir, ADMIN_TOKEN_FILE);
  } catch (error) {
    if (error instanceof TokenFileError)
      throw new CliError('NO_ADMIN_TOKEN', `ADMIN_TOKEN is unset and ${error.message}`);
    throw error;
  }
  const file = path.join(dataDir, ADMIN_TOKEN_FILE);
  if (token) return { token, source: file };
  throw new CliError(
    'NO_ADMIN_TOKEN',
    `no admin token: ADMIN_TOKEN is unset and ${file} does not exist or is empty. ` +
      'Start the core once (npm start) so that it creates the token there, point DATA_DIR at the ' +
      "core's data directory, or set ADMIN_TOKEN to the core's admin token.",
  );
}

/** An open connection to the core's AdminService. */
export interface CoreConnection {
  url: string;
  tokenSource: string;
  admin: AdminClient;
  /** A client of another admin-token service on the same connection (UserAdminService). */
  client: ServiceClients;
  /** Ends the HTTP/2 session so that the process can exit at once. */
  close(): void;
}

/** How the CLI reaches the core over TLS, as the gateway does: CORE_TLS_CA, CORE_ALLOW_PLAINTEXT. */
export interface CoreTls {
  ca?: Buffer;
  allowPlaintext: boolean;
}

/** CORE_TLS_CA (read now) and CORE_ALLOW_PLAINTEXT from the environment; a CliError when unusable. */
export function resolveCoreTls(env: Env): CoreTls {
  const allowText = nonEmpty(env[ALLOW_PLAINTEXT_VARIABLE])?.toLowerCase() ?? 'no';
  if (allowText !== 'yes' && allowText !== 'no') {
    throw new CliError(
      'CONFIG_ERROR',
      `${ALLOW_PLAINTEXT_VARIABLE} must be yes or no; got ${JSON.stringify(allowText)}.`,
    );
  }
  const caFile = nonEmpty(env['CORE_TLS_CA']);
  try {
    return {
      allowPlaintext: allowText === 'yes',
      ...(caFile === undefined ? {} : { ca: readPem('CORE_TLS_CA', caFile) }),
    };
  } catch (error) {
    if (error instanceof ConfigError) throw new CliError('CONFIG_ERROR', error.message);
    throw error;
  }
}

/**
 * Connects lazily (the first call dials) through the same transport as the gateway; every
 * call carries the bearer token and the deadline. An https:// URL means TLS; http:// to
 * another machine is refused unless CORE_ALLOW_PLAINTEXT=yes, since the admin token would
 * travel readable.
 */
export function openCoreConnection(
  url: string,
  token: AdminToken,
  tls: CoreTls = { allowPlaintext: false },
): CoreConnection {
  let transport: ReturnType<typeof createCoreTransport>;
  try {
    transport = createCoreTransport({
      coreUrl: url,
      token: token.token,
      defaultTimeoutMs: CALL_TIMEOUT_MS,
      allowPlaintext: tls.allowPlaintext,
      ...(tls.ca === undefined ? {} : { ca: tls.ca }),
    });
  } catch (error) {
    if (error instanceof ConfigError) throw new CliError('CONFIG_ERROR', error.message);
    throw error;
  }
  return {
    url,
    tokenSource: token.source,
    admin: createClient(AdminService, transport),
    client: (service) => createClient(service, transport),
    // Ends the HTTP/2 session; an idle one would otherwise keep the process alive after the command.
    close: () => transport.close(),
  };
}

/** A failed call as the CLI reports it. */
export interface CallFailure {
  /** The core's ErrorInfo reason (NOT_FOUND, INVALID_PARAMETER, ...) or the CLI's own code. */
  code: string;
  /** The gRPC status, UPPER_SNAKE (NOT_FOUND, UNAVAILABLE, ...). */
  grpcCode: string;
  message: string;
  /** True when the core answered (the message is the core's); false when the call never got an answer. */
  fromCore: boolean;
  violations: FieldViolation[];
  /** Extra lines for a person, for example where the token came from. */
  hints: string[];
}

/** Connect's code names are camelCase ("NotFound"); gRPC and our JSON say NOT_FOUND. */
function grpcCodeName(code: Code): string {
  return (Code[code] ?? 'Unknown').replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase();
}

/**
 * Explains an error thrown by a call. Connection failures and missed deadlines get the
 * CLI's own wording (the operator's next step is to start the core, not to read a transport
 * error); anything the core answered keeps its message and ErrorInfo reason. Returns null
 * for an error that is not a call failure, which main.ts treats as a bug.
 */
export function describeCallError(error: unknown, connection: CoreConnection): CallFailure | null {
  if (!(error instanceof ConnectError)) return null;
  const grpcCode = grpcCodeName(error.code);
  const info = error.findDetails(ErrorInfoSchema)[0];
  if (!info && error.code === Code.Unavailable) {
    return {
      code: 'CORE_UNREACHABLE',
      grpcCode,
      message: `cannot reach the core at ${connection.url}: is it running? (npm start)`,
      fromCore: false,
      violations: [],
      hints: [],
    };
  }
  if (!info && error.code === Code.DeadlineExceeded) {
    return {
      code: 'CORE_TIMEOUT',
      grpcCode,
      message: `the core at ${connection.url} did not answer within ${CALL_TIMEOUT_MS / 1000} s.`,
      fromCore: false,
      violations: [],
      hints: [],
    };
  }
  const violations = error
    .findDetails(BadRequestSchema)
    .flatMap((bad) => bad.fieldViolations.map((v) => ({ field: v.field, description: v.description })));
  const hints =
    error.code === Code.Unauthenticated || error.code === Code.PermissionDenied
      ? [
          `The core at ${connection.url} refused the admin token from ${connection.tokenSource}. ` +
            "Set ADMIN_TOKEN to the core's admin token, or DATA_DIR to the core's data directory.",
        ]
      : [];
  return { code: info?.reason || grpcCode, grpcCode, message: error.rawMessage, fromCore: true, violations, hints };
}
