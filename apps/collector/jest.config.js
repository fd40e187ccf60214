// Unit tests: beside the code, no network.
module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'collector',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
