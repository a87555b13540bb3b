/**
 * Baseline: a bare grpc-js server with one unary method that answers a fixed message at
 * once (AuthService.VerifyKeyPair, the gateway's hottest call), served the same way as the
 * core: definitions from the protobuf-es descriptors, no auth, no store.
 */
import { create } from '@bufbuild/protobuf';
import { Server, ServerCredentials, type ServerUnaryCall, type sendUnaryData } from '@grpc/grpc-js';
import { serviceDefinition } from '../../core/rpc/grpc.js';
import { AuthService, VerifyKeyPairResponseSchema } from '../../gen/prepaid/v1/auth_pb.js';
import { announcePort } from './announce.js';

const answer = create(VerifyKeyPairResponseSchema, { accountId: 'acc_bench', tierId: 'api' });
/** ECHO_DELAY_MS: answer after this long, as a slow upstream would (the slow-upstream ceiling). */
const delayMs = Number(process.env['ECHO_DELAY_MS'] ?? 0);
const server = new Server();
server.addService(serviceDefinition(AuthService), {
  verifyKeyPair: (_call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>) =>
    delayMs > 0 ? setTimeout(() => callback(null, answer), delayMs) : callback(null, answer),
});
server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (error, port) => {
  if (error) throw error;
  announcePort(port);
});
