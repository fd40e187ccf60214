// End-to-end: the main job's flow, shorter, against the real stack and pipeline.
module.exports = {
  ...require('../jest.preset.js'),
  displayName: 'e2e',
  rootDir: __dirname,
  testMatch: ['<rootDir>/test/**/*.int.ts'],
  testTimeout: 900000,
};
