// Unit tests of the image tooling (the runtime staging of infra/compose/stage-app.mjs): no podman, no network.
module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'images',
  rootDir: __dirname,
  testMatch: ['<rootDir>/test/**/*.spec.ts'],
};
