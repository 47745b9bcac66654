// Lint: TypeScript rules plus Nx module boundaries. Tags live in each project's package.json
// ("nx": {"tags": [...]}); the constraints below are the architecture's arrows.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import nx from '@nx/eslint-plugin';

/** The architecture's arrows; tests may additionally import the testing lib. */
function boundaries(inTests) {
  const extra = inTests ? ['type:testing'] : [];
  return {
    enforceBuildableLibDependency: false,
    allow: [],
    depConstraints: [
      // An app may use libs and contracts, never another app.
      { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:lib', 'type:contracts', ...extra] },
      // Shared runtime libs never import apps.
      { sourceTag: 'type:lib', onlyDependOnLibsWithTags: ['type:lib', 'type:contracts', ...extra] },
      { sourceTag: 'type:contracts', onlyDependOnLibsWithTags: [] },
      { sourceTag: 'type:testing', onlyDependOnLibsWithTags: ['type:lib', 'type:contracts', 'type:testing'] },
      // Generators read the shared declarations (collections, names) to write apps and resources.
      { sourceTag: 'type:tools', onlyDependOnLibsWithTags: ['type:lib', 'type:contracts', ...extra] },
    ],
  };
}

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', '.data/**', '.nx/**', 'libs/contracts/src/gen/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    plugins: { '@nx': nx },
    rules: {
      '@nx/enforce-module-boundaries': ['error', boundaries(false)],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      'no-console': 'off',
    },
  },
  {
    // A lib's index names what it exports (no `export *`), so its public surface is read in one place.
    files: ['libs/*/src/index.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: 'ExportAllDeclaration[exported=null]',
          message: "Name what the lib exports: export { a, type B } from './x' instead of export * from './x'.",
        },
      ],
    },
  },
  {
    // Tests (and only tests) may use the testing lib.
    files: ['**/*.spec.ts', '**/*.int.spec.ts', '**/*.e2e.spec.ts', '**/testing/**/*.ts'],
    rules: {
      '@nx/enforce-module-boundaries': ['error', boundaries(true)],
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  {
    files: ['**/*.mjs', '**/*.js', '**/*.cjs'],
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        require: 'readonly',
        module: 'writable',
        __dirname: 'readonly',
        Buffer: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        URL: 'readonly',
        fetch: 'readonly',
        AbortController: 'readonly',
      },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
