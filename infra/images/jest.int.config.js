// Integration: the apps' images built with podman (tools/images) and run against the real local stack.
module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'images:integration',
  rootDir: __dirname,
  testMatch: ['<rootDir>/test/**/*.int.ts'],
  testTimeout: 1_700_000,
};
