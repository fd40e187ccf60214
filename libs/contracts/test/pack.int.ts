/**
 * Packs the library the way it is published and installs the tarball into a throwaway project,
 * then uses it as another team would: require() from JavaScript and the .d.ts from TypeScript.
 * Builds into a temp dir (not dist/) so it never races other builds; npm runs from its cache.
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

const LIB = path.resolve(__dirname, '..');
const TSC = require.resolve('typescript/bin/tsc');

/** npm and nx leave npm_* variables behind that would point the child npm at the workspace. */
function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.toLowerCase().startsWith('npm_')),
  );
}

function run(cmd: string, args: string[], cwd: string): string {
  try {
    return execFileSync(cmd, args, {
      cwd,
      env: cleanEnv(),
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (err) {
    const { stdout, stderr } = err as { stdout?: string; stderr?: string };
    throw new Error(`${cmd} ${args.join(' ')} failed in ${cwd}:\n${stdout ?? ''}\n${stderr ?? ''}`);
  }
}

const CONSUMER_JS = `
const c = require('@clickstream/contracts');
const { randomUUID } = require('crypto');
const now = Date.now();
const event = { event_id: randomUUID(), seq: 1, run_id: 'pack', event_type: 'add_to_cart', event_time: now,
  session_id: 's', user_id: null, page: '/p', product_id: 'p-1', quantity: 2, amount_cents: null, currency: null,
  device: 'desktop', ingest_time: null };
const out = {};
for (const v of c.SCHEMA_VERSIONS) {
  const r = c.decodeEvent(c.encodeEvent(event, v), { ingestTime: now });
  out['v' + v] = { ok: r.ok, version: r.version, event: r.event, fingerprint: c.fingerprintOf(v).toString('hex') };
}
out.poison = c.decodeEvent(Buffer.from('nope'));
out.manifestKeys = Object.keys(c.RunManifestSchema.shape).length;
process.stdout.write(JSON.stringify(out));
`;

const CONSUMER_TS = `
import { decodeEvent, encodeEvent, type ClickEvent, type DecodeResult, type RejectReason } from '@clickstream/contracts';
declare const event: ClickEvent;
const result: DecodeResult = decodeEvent(encodeEvent(event, 1));
export const reason: RejectReason | null = result.ok ? null : result.reason;
`;

describe('the published package', () => {
  let work: string;
  beforeAll(() => {
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'contracts-pack-'));
  });
  afterAll(() => {
    fs.rmSync(work, { recursive: true, force: true });
  });

  it('installs from its tarball and round-trips events for another project', () => {
    const pkg = path.join(work, 'pkg');
    fs.mkdirSync(path.join(pkg, 'dist', 'event', 'schemas'), { recursive: true });
    run(
      process.execPath,
      [TSC, '-p', path.join(LIB, 'tsconfig.build.json'), '--outDir', path.join(pkg, 'dist')],
      LIB,
    );
    // As the build target does: the .avsc files beside the compiled modules that load them.
    for (const dir of ['event', 'aggregate']) {
      fs.mkdirSync(path.join(pkg, 'dist', dir, 'schemas'), { recursive: true });
      for (const f of fs.readdirSync(path.join(LIB, 'src', dir, 'schemas'))) {
        fs.copyFileSync(
          path.join(LIB, 'src', dir, 'schemas', f),
          path.join(pkg, 'dist', dir, 'schemas', f),
        );
      }
    }
    for (const f of ['package.json', 'README.md'])
      fs.copyFileSync(path.join(LIB, f), path.join(pkg, f));

    const packed = JSON.parse(
      run('npm', ['pack', '--json', '--pack-destination', work], pkg),
    ) as Array<{
      filename: string;
      files: Array<{ path: string }>;
    }>;
    const files = packed[0]?.files.map((f) => f.path) ?? [];
    expect(files).toEqual(
      expect.arrayContaining([
        'dist/index.js',
        'dist/index.d.ts',
        'dist/event/wire.js',
        'README.md',
      ]),
    );
    expect(files).toEqual(
      expect.arrayContaining([
        'dist/event/schemas/clickstream-event-v1.avsc',
        'dist/event/schemas/clickstream-event-v2.avsc',
        'dist/aggregate/schemas/window-aggregate-v1.avsc',
        'dist/aggregate/schemas/session-aggregate-v1.avsc',
      ]),
    );
    expect(files.filter((f) => /\.spec\.|\.map$|^src\//.test(f))).toEqual([]);

    const app = path.join(work, 'app');
    fs.mkdirSync(app);
    fs.writeFileSync(
      path.join(app, 'package.json'),
      JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }),
    );
    run(
      'npm',
      [
        'install',
        path.join(work, packed[0]?.filename ?? 'missing.tgz'),
        '--prefer-offline',
        '--no-audit',
        '--no-fund',
      ],
      app,
    );

    const out = JSON.parse(run(process.execPath, ['-e', CONSUMER_JS], app)) as Record<
      string,
      unknown
    >;
    expect(out.v1).toMatchObject({
      ok: true,
      version: 1,
      fingerprint: 'b8239467cb1ffca8',
      event: { device: null, quantity: 2 },
    });
    expect(out.v2).toMatchObject({
      ok: true,
      version: 2,
      fingerprint: '97001d50aa5a0a5a',
      event: { device: 'desktop' },
    });
    expect(out.poison).toMatchObject({ ok: false, reason: 'bad_magic' });
    expect(out.manifestKeys).toBeGreaterThan(0);

    fs.writeFileSync(path.join(app, 'consumer.ts'), CONSUMER_TS);
    run(
      process.execPath,
      [
        TSC,
        '--noEmit',
        '--strict',
        '--esModuleInterop',
        '--module',
        'commonjs',
        '--moduleResolution',
        'node',
        '--target',
        'es2022',
        '--types',
        'node',
        '--typeRoots',
        path.join(LIB, '../../node_modules/@types'),
        'consumer.ts',
      ],
      app,
    );
  }, 120_000);
});
