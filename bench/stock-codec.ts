/**
 * protobuf-es's own toBinary and fromBinary behind the interface of runtime/proto-codec/,
 * for the side-by-side variant `"codec": "stock"` (bench/side-by-side.ts): the build of that
 * variant runs this file in the codec's place, so the two services differ in the codec alone.
 */
import {
  create,
  type DescMessage,
  fromBinary,
  type MessageInitShape,
  type MessageShape,
  toBinary,
} from '@bufbuild/protobuf';

export function protoEncoder<Desc extends DescMessage>(desc: Desc) {
  return (message: MessageInitShape<Desc> | MessageShape<Desc>): Uint8Array =>
    toBinary(desc, create(desc, message as MessageInitShape<Desc>));
}

export function protoDecoder<Desc extends DescMessage>(desc: Desc) {
  return (bytes: Uint8Array): MessageShape<Desc> => fromBinary(desc, bytes);
}

export function compiled(_desc: DescMessage): boolean {
  return false;
}
