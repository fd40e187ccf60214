// Unit tests: beside the code, no network.
const preset = require('../../jest.preset.js');
const esm = require('../../jest.esm.js');

module.exports = {
  ...preset,
  transform: { ...preset.transform, ...esm.transform },
  transformIgnorePatterns: esm.transformIgnorePatterns,
  displayName: 'reconciler',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
