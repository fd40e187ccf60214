// Unit tests: beside the code, no network.
module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'experiment',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
