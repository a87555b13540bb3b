/**
 * Server reflection (so `buf curl --list-methods` and grpcurl work) fed from the
 * protobuf-es file descriptors we already serve with, instead of re-parsing .proto files:
 * @grpc/reflection only needs `fileDescriptorProtos`, and proto-loader mis-names the
 * health service's map entry.
 */
import { type DescFile, toBinary } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema } from '@bufbuild/protobuf/wkt';
import type { Server } from '@grpc/grpc-js';
import { ReflectionService } from '@grpc/reflection';

function withDependencies(files: readonly DescFile[]): DescFile[] {
  const seen = new Map<string, DescFile>();
  const visit = (file: DescFile) => {
    if (seen.has(file.name)) return;
    seen.set(file.name, file);
    file.dependencies.forEach(visit);
  };
  files.forEach(visit);
  return [...seen.values()];
}

export function addReflection(server: Server, files: readonly DescFile[], services: readonly string[]): void {
  const fileDescriptorProtos = withDependencies(files).map((file) =>
    Buffer.from(toBinary(FileDescriptorProtoSchema, file.proto)),
  );
  // ReflectionService reads only `fileDescriptorProtos` from the package definition it is given.
  const definition = { descriptors: { fileDescriptorProtos } } as unknown as ConstructorParameters<
    typeof ReflectionService
  >[0];
  new ReflectionService(definition, { services: [...services] }).addToServer(server);
}
