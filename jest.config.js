// Three projects: unit (pure, beside the code), integration (real Postgres + NATS),
// e2e (the platform started as `npm start` does, driven over HTTP only).
const swc = [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
      target: 'es2022',
      keepClassNames: true,
    },
    module: { type: 'commonjs' },
  },
];
// ESM-only packages the apps load (Node 24 requires them natively; jest's CommonJS runtime
// needs them transformed): pg-boss and its ESM dependencies; jose (tests of @pim/secrets' format).
const ESM_PACKAGES = ['pg-boss', 'serialize-error', 'rrule-temporal', 'non-error', 'jose'];
const common = {
  transform: { '^.+\\.ts$': swc, [`/node_modules/(${ESM_PACKAGES.join('|')})/.+\\.js$`]: swc },
  transformIgnorePatterns: [`/node_modules/(?!(${ESM_PACKAGES.join('|')})/)`],
  testEnvironment: 'node',
  moduleFileExtensions: ['ts', 'js', 'json'],
  setupFiles: ['reflect-metadata'],
  // The build's output (npm run build) repeats every workspace's package.json: not for tests.
  modulePathIgnorePatterns: ['<rootDir>/dist/'],
};
module.exports = {
  testTimeout: 60000,
  projects: [
    {
      ...common,
      displayName: 'unit',
      testMatch: ['<rootDir>/{apps,libs,tools,test}/**/*.spec.ts'],
      testPathIgnorePatterns: ['\\.int\\.spec\\.ts$', '\\.e2e\\.spec\\.ts$', '/node_modules/'],
    },
    {
      ...common,
      displayName: 'integration',
      testMatch: ['<rootDir>/{apps,libs,tools,test}/**/*.int.spec.ts'],
      testTimeout: 60000,
    },
    {
      ...common,
      displayName: 'e2e',
      testMatch: ['<rootDir>/{apps,libs,tools,test}/**/*.e2e.spec.ts'],
      testTimeout: 120000,
    },
  ],
};
