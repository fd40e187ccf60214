// Integration tests of the Flink jobs: against the real local stack (Kafka, Flink session cluster), one job per test.
module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'flink-jobs:integration',
  rootDir: __dirname,
  testMatch: ['<rootDir>/test/**/*.int.ts'],
  testTimeout: 600000,
};
