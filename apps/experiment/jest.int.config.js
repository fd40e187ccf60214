// Integration test: one short experiment against the real local stack and the shared pipeline.
module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'experiment:integration',
  rootDir: __dirname,
  testMatch: ['<rootDir>/test/**/*.int.ts'],
  testTimeout: 420000,
};
