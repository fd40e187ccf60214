// Lint rules for every project: strict typed rules, no floating promises, and Nx module boundaries
// that encode the layering of STYLE.md (contracts <- kafka-tx <- apps; apps never import apps).
import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

export default tseslint.config(
  {
    ignores: [
      '**/dist/**',
      '**/node_modules/**',
      '**/.cache/**',
      '**/.run/**',
      '**/jest*.config.js',
      'jest.preset.js',
    ],
  },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    plugins: { '@nx': nx },
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector: "MemberExpression[object.name='process'][property.name='env']",
          message:
            'Read configuration once, in the app config module (config.ts), never elsewhere.',
        },
      ],
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: true,
          allow: [],
          depConstraints: [
            { sourceTag: 'layer:contracts', onlyDependOnLibsWithTags: [] },
            {
              sourceTag: 'layer:kafka',
              onlyDependOnLibsWithTags: ['layer:contracts', 'layer:test'],
            }, // its integration specs use test-support
            { sourceTag: 'layer:warehouse', onlyDependOnLibsWithTags: ['layer:contracts'] },
            { sourceTag: 'layer:ledger', onlyDependOnLibsWithTags: ['layer:contracts'] },
            { sourceTag: 'layer:status', onlyDependOnLibsWithTags: [] },
            { sourceTag: 'layer:test', onlyDependOnLibsWithTags: [] },
            { sourceTag: 'layer:config', onlyDependOnLibsWithTags: [] },
            { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:lib'] },
            { sourceTag: 'type:lib', onlyDependOnLibsWithTags: ['type:lib'] },
            { sourceTag: 'type:infra', onlyDependOnLibsWithTags: ['type:lib'] },
            { sourceTag: 'type:e2e', onlyDependOnLibsWithTags: ['type:lib'] },
          ],
          banTransitiveDependencies: false,
        },
      ],
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: '@confluentinc/kafka-javascript',
              message: 'Only libs/kafka-tx talks to Kafka; import from @clickstream/kafka-tx.',
            },
            {
              name: '@clickhouse/client',
              message: 'Only the ClickHouse layer (libs/warehouse) imports the ClickHouse client.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['libs/kafka-tx/**/*.ts'],
    rules: { 'no-restricted-imports': 'off' },
  },
  {
    files: ['libs/warehouse/**/*.ts'],
    rules: { 'no-restricted-imports': 'off' },
  },
  {
    // The infra tests check the brokers themselves (kills, transactions), below any library.
    files: ['infra/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: '@clickhouse/client',
              message: 'Only the ClickHouse layer (libs/warehouse) imports the ClickHouse client.',
            },
          ],
        },
      ],
    },
  },
  {
    // Test support is for tests and benches: no production module may depend on it.
    files: ['**/*.ts'],
    ignores: ['**/*.spec.ts', '**/*.int.ts', '**/test/**', '**/bench/**', 'libs/test-support/**'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: '@clickstream/test-support',
              message: 'Only tests and benches import @clickstream/test-support.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/config.ts', '**/*.spec.ts', '**/*.int.ts', '**/test/**/*.ts', '**/bench/**/*.ts'],
    rules: { 'no-restricted-syntax': 'off' },
  },
  prettier,
);
