// Shared jest settings: ts-jest on CommonJS, workspace libraries resolved to their sources.
const path = require('path');

module.exports = {
  testEnvironment: 'node',
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: path.join(__dirname, 'tsconfig.spec.json') }],
  },
  moduleFileExtensions: ['ts', 'js', 'json'],
  moduleNameMapper: {
    '^@clickstream/([a-z-]+)$': path.join(__dirname, 'libs/$1/src/index.ts'),
  },
};
