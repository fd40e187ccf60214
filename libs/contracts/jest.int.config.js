// Integration tests: against the real local stack, plus slow ones that need none (test/pack.int.ts: npm pack + install).
module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'contracts:integration',
  rootDir: __dirname,
  testMatch: ['<rootDir>/test/**/*.int.ts'],
  testTimeout: 300000,
};
