/** Writes and reads the zod-validated run manifest (manifest.json) that sits beside a ledger. */

import * as fs from 'fs';
import * as path from 'path';
import { RunManifestSchema, type RunManifest } from '@clickstream/contracts';
import type { z } from 'zod';

function describe(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
    .join('; ');
}

/** Validates the manifest and writes it atomically (temp file + rename), so a reader never sees half a file. */
export function writeManifest(file: string, manifest: RunManifest): RunManifest {
  const parsed = RunManifestSchema.safeParse(manifest);
  if (!parsed.success)
    throw new Error(`invalid run manifest for ${file}: ${describe(parsed.error)}`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.tmp-${process.pid}`;
  fs.writeFileSync(tmp, `${JSON.stringify(parsed.data, null, 2)}\n`);
  fs.renameSync(tmp, file);
  return parsed.data;
}

/** Reads and validates a manifest; throws naming the file and the bad fields. */
export function readManifest(file: string): RunManifest {
  let json: unknown;
  try {
    json = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(
      `cannot read run manifest ${file}: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  const parsed = RunManifestSchema.safeParse(json);
  if (!parsed.success) throw new Error(`invalid run manifest ${file}: ${describe(parsed.error)}`);
  return parsed.data;
}
