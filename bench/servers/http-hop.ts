/**
 * Baseline: the one-hop ceiling. A bare node:http server that makes one unary gRPC call to
 * the echo server per request, through a Connect gRPC-transport client or a grpc-js client
 * (argv[2]: "connect" for Connect's stock gRPC transport, "connect-lean" for the gateway's
 * lean unary transport, or "grpc-js"), then answers a fixed JSON body. What the gateway-to-core
 * architecture allows at best, with no business logic on either side.
 */
import http from 'node:http';
import { createClient } from '@connectrpc/connect';
import { createGrpcTransport, Http2SessionManager } from '@connectrpc/connect-node';
import { AuthService } from '../../gen/prepaid/v1/auth_pb.js';
import { createUnaryGrpcTransport } from '../../runtime/grpc-transport.js';
import { grpcJsCaller } from '../grpc-js-client.js';
import { announce } from './announce.js';

const kind = process.argv[2];
const target = process.env['ECHO_URL']!;
const request = { publicKey: 'pk_bench', secretKey: 'sk_bench', clientIp: '127.0.0.1' };

let call: () => Promise<unknown>;
if (kind === 'connect') {
  const client = createClient(
    AuthService,
    createGrpcTransport({ baseUrl: target, sessionManager: new Http2SessionManager(target) }),
  );
  call = () => client.verifyKeyPair(request);
} else if (kind === 'connect-lean') {
  const client = createClient(AuthService, createUnaryGrpcTransport({ baseUrl: target }));
  call = () => client.verifyKeyPair(request);
} else if (kind === 'grpc-js') {
  const verify = grpcJsCaller(target, AuthService, 'verifyKeyPair');
  call = () => verify(request);
} else {
  throw new Error(`usage: http-hop.ts connect|connect-lean|grpc-js (got ${kind})`);
}

const body = JSON.stringify({ status: 'success', balance: 10000, tier: 'API Client' });
const server = http.createServer((_req, res) => {
  call().then(
    () => {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
      res.end(body);
    },
    () => {
      res.writeHead(502).end();
    },
  );
});
server.listen(0, '127.0.0.1', () => announce(server));
