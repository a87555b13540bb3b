/**
 * A plain grpc-js client for one unary method of a protobuf-es service, built from the
 * same descriptors the core serves with. Used by the benchmark's baselines and its direct
 * gRPC scenario; the gateway itself uses Connect.
 */
import {
  create,
  type DescMessage,
  fromBinary,
  type MessageInitShape,
  type MessageShape,
  toBinary,
} from '@bufbuild/protobuf';
import type { GenService, GenServiceMethods } from '@bufbuild/protobuf/codegenv2';
import { Client, credentials, Metadata } from '@grpc/grpc-js';

export function grpcJsCaller<S extends GenServiceMethods, K extends keyof S & string>(
  url: string,
  service: GenService<S>,
  method: K,
  token = '',
): (request: MessageInitShape<S[K]['input']>) => Promise<MessageShape<S[K]['output']>> {
  const desc = service.method[method]!;
  const client = new Client(url.replace(/^https?:\/\//, ''), credentials.createInsecure());
  const path = `/${service.typeName}/${desc.name}`;
  const metadata = new Metadata();
  if (token) metadata.set('authorization', `Bearer ${token}`);
  const serialize = (message: MessageShape<DescMessage>) => Buffer.from(toBinary(desc.input, message));
  const deserialize = (bytes: Buffer) => fromBinary(desc.output, bytes);
  return (request) =>
    new Promise((resolve, reject) => {
      client.makeUnaryRequest(path, serialize, deserialize, create(desc.input, request), metadata, (error, response) =>
        error ? reject(error) : resolve(response as MessageShape<S[K]['output']>),
      );
    });
}
