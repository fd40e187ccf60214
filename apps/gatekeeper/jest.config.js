// Unit tests: beside the code (and the integration checker's own spec under test/), no network.
module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'gatekeeper',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/**/*.spec.ts'],
};
