import { loadSync } from '@grpc/proto-loader';
import { ReflectionV1Implementation } from '@grpc/reflection/build/src/implementations/reflection-v1';
import { PROTO_FILES, PROTO_ROOT } from '@pim/contracts';
import { reflectedFiles } from './server';

describe('reflectedFiles', () => {
  // The catalog's protos: four files and their imports, hundreds of messages (proto-loader joins
  // the files of one package into one).
  const pkg = loadSync([PROTO_FILES.taxonomy, PROTO_FILES.attributes, PROTO_FILES.products, PROTO_FILES.relations], {
    includeDirs: [PROTO_ROOT],
    keepCase: true,
    longs: String,
    enums: String,
    defaults: true,
    oneofs: true,
  });
  const full = new ReflectionV1Implementation(pkg);
  const trimmed = new ReflectionV1Implementation(reflectedFiles(pkg));

  it('keeps each encoded file once', () => {
    const files = Object.values(reflectedFiles(pkg))[0] as { fileDescriptorProtos: Buffer[] };
    expect(files.fileDescriptorProtos.length).toBeGreaterThan(1);
    expect(new Set(files.fileDescriptorProtos).size).toBe(files.fileDescriptorProtos.length);
  });

  it('gives reflection the same answers as the whole package definition', () => {
    const services = full.listServices('*');
    expect(trimmed.listServices('*')).toEqual(services);
    expect(services.service.length).toBeGreaterThanOrEqual(4);
    for (const { name } of services.service)
      expect({ name, files: trimmed.fileContainingSymbol(name) }).toEqual({
        name,
        files: full.fileContainingSymbol(name),
      });
  });
});
