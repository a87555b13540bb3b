/**
 * grpc-js serving protobuf-es messages: service definitions built from the generated
 * descriptors, bearer-token checks, and the unary handler wrapper that always answers
 * through the callback (a thrown error would become UNKNOWN and a rejected async handler
 * would leave the client waiting for its deadline).
 */
import type { DescMessage, DescService, MessageInitShape, MessageShape } from '@bufbuild/protobuf';
import type { GenService, GenServiceMethods } from '@bufbuild/protobuf/codegenv2';
import type {
  Metadata,
  ServerUnaryCall,
  ServiceDefinition,
  sendUnaryData,
  UntypedServiceImplementation,
} from '@grpc/grpc-js';
import { protoDecoder, protoEncoder } from '../../runtime/proto-codec/codec.js';
import { hashSecret, sameHash } from '../accounts/keys.js';
import { DomainError } from '../domain/errors.js';
import { type ErrorLogger, toServiceError } from './errors.js';

export function serviceDefinition(service: DescService): ServiceDefinition {
  const definition: Record<string, ServiceDefinition[string]> = {};
  for (const method of service.methods) {
    if (method.methodKind !== 'unary')
      throw new Error(`${service.typeName}.${method.name}: only unary methods are served`);
    const encodeInput = protoEncoder(method.input);
    const encodeOutput = protoEncoder(method.output);
    definition[method.localName] = {
      path: `/${service.typeName}/${method.name}`,
      requestStream: false,
      responseStream: false,
      // The compiled codec (runtime/proto-codec/): protobuf-es's bytes and messages, cheaper.
      // A response may be an init shape: it is written as create() would make it.
      requestSerialize: (message: MessageShape<DescMessage>) => asBuffer(encodeInput(message)),
      requestDeserialize: protoDecoder(method.input),
      responseSerialize: (message: MessageInitShape<DescMessage>) => asBuffer(encodeOutput(message)),
      responseDeserialize: protoDecoder(method.output),
      originalName: method.name,
    };
  }
  return definition as ServiceDefinition;
}

/** The encoded bytes as the Buffer grpc-js wants, without copying them. */
function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** The handlers of a service: one async function per method, returning the response's init shape. */
export type Handlers<S extends GenServiceMethods> = {
  [K in keyof S]: (
    request: MessageShape<S[K]['input']>,
    call: ServerUnaryCall<unknown, unknown>,
  ) => Promise<MessageInitShape<S[K]['output']>>;
};

/** Whether a presented token, given as its SHA-256 hex, is one of a set; compared in constant time. */
export type TokenCheck = (presentedHash: string) => boolean;

/** Who may call a service: `allowed` tokens; `known` tells a wrong token from a right one on the wrong service. */
export interface Access {
  allowed: TokenCheck;
  known: TokenCheck;
}

/**
 * The configured tokens are hashed once here and the presented one once per call (not once
 * per configured token per check, which the hot path paid before). Every configured hash is
 * compared, without stopping at a match, so timing does not tell which one matched.
 */
export function tokenCheck(...tokens: string[]): TokenCheck {
  const hashes = tokens.filter((token) => token !== '').map(hashSecret);
  return (presentedHash) => hashes.reduce((matched, hash) => sameHash(presentedHash, hash) || matched, false);
}

function bearer(metadata: Metadata): string {
  const value = metadata.get('authorization')[0];
  if (typeof value !== 'string') return '';
  const match = /^Bearer\s+(\S+)$/i.exec(value);
  return match ? match[1]! : '';
}

/**
 * What every answer waits for besides its handler: `settled` (Store.settled), so that no
 * answer, an error included, shows a write the disk does not hold yet. The embedded store
 * commits its money operations before their fsync (core/store/sqlite/group-commit.ts); an
 * answer built on a read of such a commit goes out once the sync covers it.
 */
interface Answering {
  log: ErrorLogger;
  settled: () => Promise<void>;
}

export function implement<S extends GenServiceMethods>(
  service: GenService<S>,
  handlers: Handlers<S>,
  access: Access,
  answering: Answering,
): UntypedServiceImplementation {
  const { log, settled } = answering;
  const implementation: UntypedServiceImplementation = {};
  for (const method of service.methods) {
    const handler = handlers[method.localName as keyof S];
    const rpc = `${service.typeName}/${method.name}`;
    /** Sends once the store has settled; a store that cannot settle sends its error instead. */
    const whenSettled = (callback: sendUnaryData<unknown>, send: () => void) =>
      settled().then(send, (failed: unknown) => callback(toServiceError(failed, log, rpc)));
    implementation[method.localName] = (call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>) => {
      Promise.resolve()
        .then(() => {
          const token = bearer(call.metadata);
          if (token === '')
            throw new DomainError('UNAUTHENTICATED', 'A bearer token is required in the authorization metadata.');
          const presented = hashSecret(token);
          if (!access.known(presented)) throw new DomainError('UNAUTHENTICATED', 'The bearer token is not valid.');
          if (!access.allowed(presented))
            throw new DomainError('PERMISSION_DENIED', `This token may not call ${service.typeName}.`);
          return handler(call.request as never, call);
        })
        .then(
          // The init shape as it is: responseSerialize writes it as create() would make it,
          // without building the message first (for a 100-row history page, a third of its cost).
          (response) => whenSettled(callback, () => callback(null, response)),
          (error: unknown) => whenSettled(callback, () => callback(toServiceError(error, log, rpc))),
        );
    };
  }
  return implementation;
}
