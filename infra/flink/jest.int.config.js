// Integration tests of the Flink jobs: against the real local stack (Kafka, Flink session cluster), one job per test.
const preset = require('../../jest.preset.js');
// The compaction test reads Parquet with hyparquet (ES modules only).
const esm = require('../../jest.esm.js');

module.exports = {
  ...preset,
  transform: { ...preset.transform, ...esm.transform },
  transformIgnorePatterns: esm.transformIgnorePatterns,
  displayName: 'flink-jobs:integration',
  rootDir: __dirname,
  testMatch: ['<rootDir>/test/**/*.int.ts'],
  testTimeout: 600000,
};
