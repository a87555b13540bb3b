/**
 * The gateway's lean unary gRPC transport, against a real core: answers and error details
 * arrive as Connect's own transport delivers them, deadlines and cancellation end a call
 * with the right code, interceptors run in Connect's order, and one connection carries many
 * calls at once.
 */

import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fromBinary, toBinary } from '@bufbuild/protobuf';
import { Code, ConnectError, createClient, type Interceptor } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import * as assert from 'uvu/assert';
import { BadRequestSchema, ErrorInfoSchema } from '../../gen/google/rpc/error_details_pb.js';
import { GetBalanceResponseSchema, PurchaseService } from '../../gen/prepaid/v1/purchase_pb.js';
import { createUnaryGrpcTransport, replyBytes } from '../../runtime/grpc-transport.js';
import { bearer, startCore, type TestCore } from '../helpers/core.js';
import { suite } from '../helpers/suite.js';

const test = suite('runtime: gRPC transport');
let core: TestCore;

test.before(async () => {
  // A provider slower than any deadline used below, so calls can be caught in flight.
  core = await startCore({ providerDelayMs: 3_000, providerTimeoutMs: 10_000 });
});
test.after(async () => {
  await core.close();
});

function client(interceptors: Interceptor[] = [bearer(core.serviceToken)]) {
  const transport = createUnaryGrpcTransport({ baseUrl: core.url, interceptors });
  return { transport, purchase: createClient(PurchaseService, transport) };
}

async function failure(call: Promise<unknown>): Promise<ConnectError> {
  try {
    await call;
  } catch (error) {
    return ConnectError.from(error);
  }
  throw new Error('the call succeeded');
}

test('answers arrive as messages, and errors keep their status, message and details', async () => {
  const { transport, purchase } = client();
  const { accountId } = await core.createApiAccount({ balanceKobo: 100_000 });
  const balance = await purchase.getBalance({ accountId });
  assert.is(balance.balanceKobo, 100_000n);
  assert.is(balance.tierId, 'api');

  const error = await failure(purchase.buyAirtime({ accountId, network: 'xx', phone: '1', amountKobo: 1n }));
  assert.is(error.code, Code.InvalidArgument);
  assert.match(error.rawMessage, /parameters are invalid/);
  assert.is(error.findDetails(ErrorInfoSchema)[0]?.reason, 'INVALID_PARAMETER');
  const fields = error.findDetails(BadRequestSchema)[0]?.fieldViolations.map((v) => v.field);
  assert.equal(fields, ['network', 'phone', 'amount']);
  transport.close();
});

test('a call past its deadline ends DeadlineExceeded; an aborted one ends Canceled', async () => {
  const { transport, purchase } = client();
  const { accountId } = await core.createApiAccount({ balanceKobo: 100_000 });
  const slow = () =>
    purchase.buyAirtime({ accountId, network: 'mtn', phone: '08031234567', amountKobo: 10_000n }, { timeoutMs: 100 });
  assert.is((await failure(slow())).code, Code.DeadlineExceeded);

  const controller = new AbortController();
  const call = purchase.buyAirtime(
    { accountId, network: 'mtn', phone: '08031234567', amountKobo: 10_000n },
    { signal: controller.signal },
  );
  setTimeout(() => controller.abort(), 50);
  assert.is((await failure(call)).code, Code.Canceled);
  transport.close();
});

test('a server that is not there is Unavailable, and so is every call after close()', async () => {
  const nowhere = createUnaryGrpcTransport({ baseUrl: 'http://127.0.0.1:1' });
  assert.is(
    (await failure(createClient(PurchaseService, nowhere).getBalance({ accountId: 'a' }))).code,
    Code.Unavailable,
  );

  const { transport, purchase } = client();
  transport.close();
  assert.is((await failure(purchase.getBalance({ accountId: 'a' }))).code, Code.Unavailable);
});

test('interceptors run in the order given, the first outermost, and can set headers', async () => {
  const seen: string[] = [];
  const trace =
    (name: string): Interceptor =>
    (next) =>
    async (req) => {
      seen.push(`${name} in`);
      const res = await next(req);
      seen.push(`${name} out`);
      return res;
    };
  const { transport, purchase } = client([trace('first'), bearer(core.serviceToken), trace('second')]);
  const { accountId } = await core.createApiAccount();
  await purchase.getBalance({ accountId });
  assert.equal(seen, ['first in', 'second in', 'second out', 'first out']);
  // Without the bearer interceptor the core refuses the call: the header really travels.
  const bare = client([]);
  assert.is((await failure(bare.purchase.getBalance({ accountId }))).code, Code.Unauthenticated);
  transport.close();
  bare.transport.close();
});

test("a reply's headers and trailers are there for interceptors and callbacks that read them", async () => {
  const seen: Record<string, string | null> = {};
  const peek: Interceptor = (next) => async (req) => {
    const res = await next(req);
    seen['interceptor content-type'] = res.header.get('content-type');
    return res;
  };
  const { transport, purchase } = client([bearer(core.serviceToken), peek]);
  const { accountId } = await core.createApiAccount();
  await purchase.getBalance(
    { accountId },
    {
      onHeader: (header) => (seen['callback content-type'] = header.get('content-type')),
      onTrailer: (trailer) => (seen['callback grpc-status'] = trailer.get('grpc-status')),
    },
  );
  assert.equal(seen, {
    'interceptor content-type': 'application/grpc+proto',
    'callback content-type': 'application/grpc+proto',
    'callback grpc-status': '0',
  });
  transport.close();
});

test('one connection carries many calls at once', async () => {
  const { transport, purchase } = client();
  const { accountId } = await core.createApiAccount({ balanceKobo: 5_000 });
  const answers = await Promise.all(Array.from({ length: 300 }, () => purchase.getBalance({ accountId })));
  assert.ok(answers.every((a) => a.balanceKobo === 5_000n));
  transport.close();
});

test('replyBytes: the reply undecoded, through interceptors, errors as ever; only this transport has it', async () => {
  const { transport, purchase } = client();
  const { accountId } = await core.createApiAccount({ balanceKobo: 70_000 });
  const bytes = await replyBytes((options) => purchase.getBalance({ accountId }, options));
  const decoded = fromBinary(GetBalanceResponseSchema, bytes);
  assert.is(decoded.balanceKobo, 70_000n);
  assert.ok(
    Buffer.from(bytes).equals(toBinary(GetBalanceResponseSchema, decoded)),
    "the bytes are the reply's own message",
  );
  // The bearer interceptor ran: without it the core refuses the call, with the usual error.
  const { purchase: anonymous, transport: bare } = client([]);
  assert.is(
    (await failure(replyBytes((options) => anonymous.getBalance({ accountId }, options)))).code,
    Code.Unauthenticated,
  );
  // Connect's own transport decodes every reply, so asking it for the bytes fails loudly.
  const stock = createClient(
    PurchaseService,
    createGrpcTransport({ baseUrl: core.url, interceptors: [bearer(core.serviceToken)] }),
  );
  assert.match(
    (await failure(replyBytes((options) => stock.getBalance({ accountId }, options)))).message,
    /did not keep the reply undecoded/,
  );
  transport.close();
  bare.close();
});

/**
 * A script that makes one call with no deadline and nothing else to do, as a CLI does, and
 * prints the balance; it leaves the transport open, so it ends only if an idle connection
 * does not hold the process.
 */
const CALLER = `
import { createClient } from '@connectrpc/connect';
import { PurchaseService } from './gen/prepaid/v1/purchase_pb.ts';
import { createUnaryGrpcTransport } from './runtime/grpc-transport.ts';
const [url, token, accountId] = process.argv.slice(-3);
const auth = (next) => (req) => { req.header.set('authorization', 'Bearer ' + token); return next(req); };
const transport = createUnaryGrpcTransport({ baseUrl: url, interceptors: [auth] });
const balance = await createClient(PurchaseService, transport).getBalance({ accountId });
process.stdout.write(String(balance.balanceKobo));
`;

test('a call in flight keeps the process alive; an idle connection does not', async () => {
  const { accountId } = await core.createApiAccount({ balanceKobo: 12_345 });
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--input-type=module', '--eval', CALLER, '--', core.url, core.serviceToken, accountId],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const [code] = await once(child, 'exit');
  // Exit 13 is Node's "unsettled top-level await": the loop emptied before the answer came.
  assert.is(code, 0, stderr);
  assert.is(stdout, '12345');
});

test.run();
