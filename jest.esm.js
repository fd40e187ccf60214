// hyparquet and its companions ship ES modules only: jest (CommonJS) gets them transpiled by ts-jest
// with allowJs, while node itself loads them with require(esm) (Node >= 20.19).
const ESM_PACKAGES = ['hyparquet', 'hyparquet-compressors', 'hyparquet-writer', 'hysnappy'];

module.exports = {
  transform: {
    [`node_modules/(${ESM_PACKAGES.join('|')})/.+\\.js$`]: [
      'ts-jest',
      {
        tsconfig: {
          allowJs: true,
          module: 'commonjs',
          target: 'ES2022',
          isolatedModules: true,
          esModuleInterop: true,
        },
      },
    ],
  },
  transformIgnorePatterns: [`/node_modules/(?!(${ESM_PACKAGES.join('|')})/)`],
};
