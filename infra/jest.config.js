// Unit tests of the stack definition (config files, compose file): no network.
module.exports = {
  ...require('../jest.preset.js'),
  displayName: 'infra',
  rootDir: __dirname,
  testMatch: ['<rootDir>/test/**/*.spec.ts'],
};
