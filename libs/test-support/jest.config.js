// Unit tests: beside the code, no network.
module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'test-support',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
