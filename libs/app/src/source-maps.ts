// Preloaded by every app run from the build (`node -r <build>/libs/app/src/source-maps.js …`):
// stack traces name the .ts file and line of the platform's own code. It is what
// `--enable-source-maps` does, without node_modules: that flag also parses the source maps many
// packages ship (typeorm's, grpc-js's…), ~10 MB more per process for stack frames that would point
// at TypeScript sources those packages do not ship (docs/decisions/platform.md).
import { setSourceMapsSupport } from 'node:module';

setSourceMapsSupport(true, { nodeModules: false, generatedCode: false });
