// Integration tests: against the real local stack (started if it is not running).
module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'collector:integration',
  rootDir: __dirname,
  testMatch: ['<rootDir>/test/**/*.int.ts'],
  testTimeout: 600000,
};
