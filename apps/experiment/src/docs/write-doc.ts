/** Reads and writes the generated Markdown file, formatted as the repository's Prettier config says so that lint passes on it. */

import { execFileSync } from 'child_process';
import * as fs from 'fs';

/** The doc as it is, or an empty one with its title. */
export function readDoc(file: string): string {
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '# Measurements\n';
}

/**
 * Prettier runs as its own CLI process: its CommonJS entry loads its ESM parts with a dynamic import, which Jest's
 * module sandbox refuses, and the CLI finds the config (.prettierrc, .prettierignore) by the file's path as lint does.
 */
export function writeDoc(file: string, text: string): void {
  fs.writeFileSync(file, text);
  execFileSync(
    process.execPath,
    [require.resolve('prettier/bin/prettier.cjs'), '--log-level', 'warn', '--write', file],
    {
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
}
