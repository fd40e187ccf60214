// Integration tests: against the real local stack (started if it is not running).
const preset = require('../../jest.preset.js');
const esm = require('../../jest.esm.js');

module.exports = {
  ...preset,
  transform: { ...preset.transform, ...esm.transform },
  transformIgnorePatterns: esm.transformIgnorePatterns,
  displayName: 'reconciler:integration',
  rootDir: __dirname,
  testMatch: ['<rootDir>/test/**/*.int.ts'],
  testTimeout: 300000,
};
