/** tools/lib/image-inputs.sh: the hash that decides whether tools/images rebuilds an image, on a scratch repository. */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

const LIB = path.resolve(__dirname, '../../../tools/lib/image-inputs.sh');

describe('build_inputs', () => {
  let root = '';
  const write = (rel: string, text: string): void => {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), text);
  };
  const inputs = (baseId = 'sha256:base1'): string =>
    execFileSync('bash', ['-c', 'source "$0" && build_inputs "$1" "$2"', LIB, root, baseId], {
      encoding: 'utf8',
    }).trim();

  beforeEach(() => {
    root = mkdtempSync(path.join(tmpdir(), 'image-inputs-'));
    execFileSync('git', ['init', '-q', root]);
    write('.gitignore', 'node_modules/\ndist/\n');
    write('apps/shop/src/main.ts', 'export {};\n');
    write('package-lock.json', '{}\n');
    write('docs/NOTES.md', 'notes\n');
    write('README.md', 'readme\n');
    execFileSync('git', ['-C', root, 'add', '-A']);
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('is a 16-hex hash, the same when nothing changed', () => {
    const first = inputs();
    expect(first).toMatch(/^[0-9a-f]{16}$/);
    expect(inputs()).toBe(first);
  });

  it('changes with a source edit, a new untracked source, a lock change or another base image', () => {
    const first = inputs();
    expect(inputs('sha256:base2')).not.toBe(first);
    write('apps/shop/src/main.ts', 'export const x = 1;\n');
    const edited = inputs();
    expect(edited).not.toBe(first);
    write('apps/shop/src/new.ts', 'export {};\n');
    const added = inputs();
    expect(added).not.toBe(edited);
    write('package-lock.json', '{"lockfileVersion":3}\n');
    expect(inputs()).not.toBe(added);
  });

  it('ignores what the build context leaves out: docs, Markdown, git-ignored installs and builds, results', () => {
    const first = inputs();
    write('docs/NOTES.md', 'other notes\n');
    write('README.md', 'other readme\n');
    write('node_modules/x/index.js', 'x\n');
    write('apps/shop/dist/main.js', 'built\n');
    write('results/run.json', '{}\n');
    expect(inputs()).toBe(first);
  });

  it('counts a deleted tracked file as a change and does not fail on it', () => {
    const first = inputs();
    rmSync(path.join(root, 'apps/shop/src/main.ts'));
    expect(inputs()).not.toBe(first);
  });
});
