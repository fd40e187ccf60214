/** infra/compose/stage-app.mjs stages exactly an app's runtime closure: its libs, their npm packages, nothing else. */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

const SCRIPT = path.resolve(__dirname, '../../compose/stage-app.mjs');

function write(root: string, rel: string, text: string): void {
  mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  writeFileSync(path.join(root, rel), text);
}
const pkg = (
  name: string,
  deps: Record<string, string> = {},
  optional: Record<string, string> = {},
): string =>
  JSON.stringify({
    name,
    version: '1.0.0',
    main: 'index.js',
    dependencies: deps,
    optionalDependencies: optional,
  });

/**
 * A tiny workspace: app "shop" imports lib "a" and npm "left"; lib "a" imports lib "b" and npm "right";
 * "left" depends on "shared", and "right" on a nested "shared" 2.0 of its own; "unused", lib "c"
 * and the app "other" are installed but imported by nobody the shop reaches.
 */
function workspace(): string {
  const root = mkdtempSync(path.join(tmpdir(), 'stage-app-'));
  write(root, 'package.json', JSON.stringify({ name: 'ws', workspaces: ['apps/*', 'libs/*'] }));
  write(root, 'apps/shop/package.json', pkg('@clickstream/shop-app'));
  write(
    root,
    'apps/shop/dist/main.js',
    'require("@clickstream/a"); require("left/sub/path"); require("node:fs"); require("path"); require("./local");',
  );
  write(root, 'apps/shop/dist/local.js', '');
  write(root, 'apps/shop/src/main.ts', 'source, not staged');
  write(root, 'apps/other/package.json', pkg('@clickstream/other-app'));
  write(root, 'apps/other/dist/main.js', 'require("unused");');
  write(root, 'libs/a/package.json', pkg('@clickstream/a'));
  write(root, 'libs/a/dist/index.js', "require('@clickstream/b');");
  write(root, 'libs/b/package.json', pkg('@clickstream/b'));
  write(root, 'libs/b/dist/index.js', 'require("right")');
  write(root, 'libs/c/package.json', pkg('@clickstream/c'));
  write(root, 'libs/c/dist/index.js', '');
  write(
    root,
    'node_modules/left/package.json',
    pkg('left', { shared: '^1' }, { 'not-installed': '1' }),
  );
  write(root, 'node_modules/right/package.json', pkg('right', { shared: '^2' }));
  write(root, 'node_modules/right/node_modules/shared/package.json', pkg('shared'));
  write(root, 'node_modules/shared/package.json', pkg('shared'));
  write(root, 'node_modules/unused/package.json', pkg('unused'));
  return root;
}

describe('stage-app', () => {
  let root: string;
  beforeEach(() => {
    root = workspace();
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('stages the app, the libs it reaches and their npm closure, and links main.js', () => {
    const out = path.join(root, 'out');
    const log = execFileSync('node', [SCRIPT, out, 'shop'], { cwd: root, encoding: 'utf8' });
    expect(log).toContain('shop: 3 workspace packages, 4 npm packages');
    const staged = (rel: string): boolean => existsSync(path.join(out, 'shop', rel));
    for (const rel of [
      'apps/shop/dist/main.js',
      'apps/shop/dist/local.js',
      'libs/a/dist/index.js',
      'libs/b/dist/index.js',
      'node_modules/left/package.json',
      'node_modules/right/node_modules/shared/package.json',
      'node_modules/shared/package.json',
      'package.json',
    ]) {
      expect({ rel, staged: staged(rel) }).toEqual({ rel, staged: true });
    }
    for (const rel of [
      'apps/shop/src',
      'apps/other',
      'libs/c',
      'node_modules/unused',
      'node_modules/@clickstream/c',
    ]) {
      expect({ rel, staged: staged(rel) }).toEqual({ rel, staged: false });
    }
    expect(readlinkSync(path.join(out, 'shop/main.js'))).toBe('apps/shop/dist/main.js');
    expect(readlinkSync(path.join(out, 'shop/node_modules/@clickstream/a'))).toBe('../../libs/a');
  });

  it('fails, naming the package, when an app requires one that is not installed', () => {
    write(root, 'apps/shop/dist/extra.js', 'require("missing-pkg")');
    const r = spawnSync('node', [SCRIPT, path.join(root, 'out'), 'shop'], {
      cwd: root,
      encoding: 'utf8',
    });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('missing-pkg is required but not installed');
  });

  it('refuses to run without an output directory and an app', () => {
    const r = spawnSync('node', [SCRIPT], { cwd: root, encoding: 'utf8' });
    expect(r.status).toBe(64);
  });
});
