/** Writes a generated Markdown file formatted as the repository's Prettier config says, so that lint passes on it. */

import { execFileSync } from 'child_process';
import * as fs from 'fs';

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
