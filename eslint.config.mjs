// Lint: TypeScript rules plus Nx module boundaries. Tags live in each project's package.json
// ("nx": {"tags": [...]}); the constraints below are the architecture's arrows.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import nx from '@nx/eslint-plugin';

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', '.data/**', '.nx/**', 'libs/contracts/src/gen/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    plugins: { '@nx': nx },
    rules: {
      '@nx/enforce-module-boundaries': ['error', {
        enforceBuildableLibDependency: false,
        allow: [],
        depConstraints: [
          // An app may use libs and contracts, never another app.
          { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:lib', 'type:contracts'] },
          // Shared runtime libs never import apps; test helpers stay out of runtime libs.
          { sourceTag: 'type:lib', onlyDependOnLibsWithTags: ['type:lib', 'type:contracts'] },
          { sourceTag: 'type:contracts', onlyDependOnLibsWithTags: [] },
          { sourceTag: 'type:testing', onlyDependOnLibsWithTags: ['type:lib', 'type:contracts', 'type:testing'] },
        ],
      }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      'no-console': 'off',
    },
  },
  {
    files: ['**/*.spec.ts', '**/*.int.spec.ts', '**/*.e2e.spec.ts'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  {
    files: ['**/*.mjs', '**/*.js', '**/*.cjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', require: 'readonly', module: 'writable', __dirname: 'readonly', Buffer: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', URL: 'readonly', fetch: 'readonly', AbortController: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
