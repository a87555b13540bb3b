/**
 * A generic gRPC client that knows nothing of our contract can still read our errors: it
 * gets the error's grpc-status-details-bin, asks the core's reflection service for the files
 * that define google.rpc.Status, ErrorInfo and BadRequest, builds their descriptors from what
 * reflection answered, and decodes the details with them. Nothing here uses our generated
 * code for the details.
 */

import { create, createFileRegistry, type DescMessage, fromBinary } from '@bufbuild/protobuf';
import { BinaryReader, BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import {
  anyUnpack,
  type FileDescriptorProto,
  FileDescriptorProtoSchema,
  FileDescriptorSetSchema,
} from '@bufbuild/protobuf/wkt';
import * as grpc from '@grpc/grpc-js';
import * as assert from 'uvu/assert';
import { startCore, type TestCore } from '../../helpers/core.js';
import { suite } from '../../helpers/suite.js';

const test = suite('reflection serves the error details');
let core: TestCore;

test.before(async () => {
  core = await startCore();
});
test.after(async () => {
  await core.close();
});

const identity = (bytes: Buffer) => bytes;

/**
 * grpc.reflection.v1 by hand: a ServerReflectionRequest with file_by_filename (field 3) or
 * file_containing_symbol (field 4) in, the FileDescriptorResponse's file_descriptor_proto out.
 */
async function reflect(field: 3 | 4, value: string): Promise<FileDescriptorProto[]> {
  const client = new grpc.Client(core.url.replace('http://', ''), grpc.credentials.createInsecure());
  try {
    const call = client.makeBidiStreamRequest<Buffer, Buffer>(
      '/grpc.reflection.v1.ServerReflection/ServerReflectionInfo',
      identity,
      identity,
    );
    const answer = new Promise<Buffer>((resolve, reject) => {
      call.once('data', resolve);
      call.once('error', reject);
    });
    call.write(Buffer.from(new BinaryWriter().tag(field, WireType.LengthDelimited).string(value).finish()));
    call.end();
    const reader = new BinaryReader(await answer);
    const files: FileDescriptorProto[] = [];
    while (reader.pos < reader.len) {
      const [field, wireType] = reader.tag();
      if (field !== 4) {
        reader.skip(wireType);
        continue;
      }
      // FileDescriptorResponse: repeated bytes file_descriptor_proto = 1.
      const inner = new BinaryReader(reader.bytes());
      while (inner.pos < inner.len) {
        const [innerField, innerWire] = inner.tag();
        if (innerField === 1) files.push(fromBinary(FileDescriptorProtoSchema, inner.bytes()));
        else inner.skip(innerWire);
      }
    }
    return files;
  } finally {
    client.close();
  }
}

/** A failing unary call with a raw grpc-js client; resolves with its status details bytes. */
async function failingCallDetails(): Promise<Buffer> {
  const client = new grpc.Client(core.url.replace('http://', ''), grpc.credentials.createInsecure());
  const metadata = new grpc.Metadata();
  metadata.set('authorization', `Bearer ${core.serviceToken}`);
  try {
    return await new Promise<Buffer>((resolve, reject) => {
      // prepaid.v1.PurchaseService/BuyAirtime with an empty request: every field is missing.
      client.makeUnaryRequest(
        '/prepaid.v1.PurchaseService/BuyAirtime',
        identity,
        identity,
        Buffer.alloc(0),
        metadata,
        (error) => {
          const details = error?.metadata?.get('grpc-status-details-bin')[0];
          if (Buffer.isBuffer(details)) resolve(details);
          else reject(new Error(`expected an error with details, got ${String(error)}`));
        },
      );
    });
  } finally {
    client.close();
  }
}

test('a reflection-only client decodes Status, ErrorInfo and BadRequest from a real error', async () => {
  const files = new Map<string, FileDescriptorProto>();
  for (const symbol of ['google.rpc.Status', 'google.rpc.ErrorInfo', 'google.rpc.BadRequest']) {
    const found = await reflect(4, symbol);
    assert.ok(found.length > 0, `reflection knows ${symbol}`);
    for (const file of found) files.set(file.name, file);
  }
  // Then every file they import, by name, as a generic client resolves dependencies.
  for (
    let missing = [...files.values()].flatMap((f) => f.dependency).filter((d) => !files.has(d));
    missing.length > 0;
  ) {
    for (const name of missing) for (const file of await reflect(3, name)) files.set(file.name, file);
    missing = [...files.values()].flatMap((f) => f.dependency).filter((d) => !files.has(d));
  }
  // A descriptor set lists every file after the files it imports.
  const ordered: FileDescriptorProto[] = [];
  const place = (name: string) => {
    const file = files.get(name)!;
    if (ordered.includes(file)) return;
    file.dependency.forEach(place);
    ordered.push(file);
  };
  [...files.keys()].forEach(place);
  const registry = createFileRegistry(create(FileDescriptorSetSchema, { file: ordered }));
  const message = (name: string) => registry.getMessage(name) as DescMessage;

  const status = fromBinary(message('google.rpc.Status'), await failingCallDetails()) as unknown as {
    code: number;
    message: string;
    details: never[];
  };
  assert.is(status.code, grpc.status.INVALID_ARGUMENT);
  const unpacked = status.details.map(
    (any) =>
      anyUnpack(any, registry) as unknown as {
        $typeName: string;
        reason?: string;
        fieldViolations?: { field: string }[];
      },
  );
  const info = unpacked.find((d) => d.$typeName === 'google.rpc.ErrorInfo');
  const bad = unpacked.find((d) => d.$typeName === 'google.rpc.BadRequest');
  assert.is(info?.reason, 'INVALID_PARAMETER');
  const fields = (bad?.fieldViolations ?? []).map((v) => v.field);
  assert.ok(
    fields.length > 0 && fields.every((field) => field !== ''),
    `the field violations name the fields: ${fields.join(', ')}`,
  );
});

test.run();
