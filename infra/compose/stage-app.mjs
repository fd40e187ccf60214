// Stages each app's runtime tree for its image: the app's dist, the workspace libs it imports (found by
// following require("@clickstream/...") through the compiled code), the npm packages those import with
// their production dependencies, and /app/main.js pointing at the app's entry point.
// Runs inside the Dockerfile's build stage, after the build: node infra/compose/stage-app.mjs OUT APP...
import { builtinModules } from 'node:module';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  lstatSync,
} from 'node:fs';
import { dirname, join, relative } from 'node:path';

const root = process.cwd();
const [out, ...apps] = process.argv.slice(2);
if (!out || apps.length === 0) {
  console.error('usage: node infra/compose/stage-app.mjs OUT_DIR APP...');
  process.exit(64);
}
const builtins = new Set(builtinModules);
const SCOPE = '@clickstream/';

/** Workspace package name -> its directory (apps/x, libs/y). */
const workspaces = new Map();
for (const group of ['apps', 'libs']) {
  for (const name of readdirSync(join(root, group))) {
    const pj = join(root, group, name, 'package.json');
    if (existsSync(pj))
      workspaces.set(JSON.parse(readFileSync(pj, 'utf8')).name, join(group, name));
  }
}

const jsFiles = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? jsFiles(join(dir, e.name))
      : e.name.endsWith('.js')
        ? [join(dir, e.name)]
        : [],
  );

/** Bare specifiers a compiled tree requires: "pkg" or "@scope/pkg", without subpaths. */
function requiredPackages(dir) {
  const found = new Set();
  for (const file of jsFiles(dir)) {
    for (const m of readFileSync(file, 'utf8').matchAll(
      /\brequire\(\s*["']([^"'.\/][^"']*)["']\s*\)/g,
    )) {
      const spec = m[1];
      if (spec.startsWith('node:') || builtins.has(spec.split('/')[0])) continue;
      const parts = spec.split('/');
      found.add(spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]);
    }
  }
  return found;
}

/** Where Node would find package `name` when required from package directory `fromDir` (hoisted layout). */
function resolvePackageDir(name, fromDir) {
  for (let d = fromDir; ; d = dirname(d)) {
    const candidate = join(d, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (d === root || d === dirname(d)) return undefined;
  }
}

function stage(app) {
  const appDir = workspaces.get(`${SCOPE}${app}-app`) ?? join('apps', app);
  if (!existsSync(join(root, appDir, 'dist', 'main.js')))
    throw new Error(`${appDir}/dist/main.js missing: build the app first`);
  const dest = join(out, app);
  rmSync(dest, { recursive: true, force: true });
  mkdirSync(dest, { recursive: true });

  // Workspace closure: the app, then every lib reached through @clickstream/ requires.
  const workspaceDirs = new Set([appDir]);
  const external = new Set();
  const queue = [appDir];
  while (queue.length > 0) {
    const dir = queue.pop();
    for (const spec of requiredPackages(join(root, dir, 'dist'))) {
      if (!spec.startsWith(SCOPE)) {
        external.add(spec);
        continue;
      }
      const libDir = workspaces.get(spec);
      if (!libDir) throw new Error(`${dir} requires ${spec}, which is not a workspace package`);
      if (!workspaceDirs.has(libDir)) {
        workspaceDirs.add(libDir);
        queue.push(libDir);
      }
    }
  }
  for (const dir of workspaceDirs) {
    cpSync(join(root, dir, 'package.json'), join(dest, dir, 'package.json'));
    cpSync(join(root, dir, 'dist'), join(dest, dir, 'dist'), { recursive: true });
    const name = JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8')).name;
    const link = join(dest, 'node_modules', name);
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(relative(dirname(link), join(dest, dir)), link);
  }
  // The warehouse applies the DDL from infra/clickhouse/ddl and then the one-off fills of
  // infra/clickhouse/backfill, both found relative to its dist (DDL_DIR, BACKFILL_DIR).
  if (workspaceDirs.has('libs/warehouse'))
    for (const dir of ['infra/clickhouse/ddl', 'infra/clickhouse/backfill'])
      cpSync(join(root, dir), join(dest, dir), { recursive: true });

  // npm closure: each required package and, transitively, its dependencies and optional dependencies
  // that are installed. A nested copy (node_modules/a/node_modules/b) travels with its parent.
  const packageDirs = new Set();
  const pending = [...external].map((name) => [name, root]);
  while (pending.length > 0) {
    const [name, from] = pending.pop();
    const dir = resolvePackageDir(name, from);
    if (!dir) {
      if (from === root) throw new Error(`${name} is required but not installed`);
      continue;
    }
    if (packageDirs.has(dir)) continue;
    packageDirs.add(dir);
    const pj = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    for (const dep of Object.keys({ ...pj.dependencies, ...pj.optionalDependencies }))
      pending.push([dep, dir]);
  }
  let bytes = 0;
  for (const dir of packageDirs) {
    const rel = relative(root, dir);
    // Only top-level copies; nested ones are inside an ancestor that is copied whole.
    if (
      rel.split('node_modules').length > 2 &&
      [...packageDirs].some((p) => p !== dir && dir.startsWith(p + '/'))
    )
      continue;
    cpSync(dir, join(dest, rel), { recursive: true, verbatimSymlinks: true });
    trimBuildLeftovers(
      join(dest, rel),
      JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).name,
    );
    bytes += du(join(dest, rel));
  }
  cpSync(join(root, 'package.json'), join(dest, 'package.json'));
  symlinkSync(join(appDir, 'dist', 'main.js'), join(dest, 'main.js'));
  console.log(
    `${app}: ${workspaceDirs.size} workspace packages, ${packageDirs.size} npm packages (${(bytes / 1e6).toFixed(1)} MB)`,
  );
}

/**
 * @confluentinc/kafka-javascript compiles librdkafka from its bundled sources at install time: the
 * image needs the addon and the two shared libraries, not the 200 MB of sources and objects.
 */
function trimBuildLeftovers(dir, name) {
  if (name !== '@confluentinc/kafka-javascript') return;
  for (const sub of ['deps', 'src', 'build/Release/obj.target', 'build/Release/.deps'])
    rmSync(join(dir, sub), { recursive: true, force: true });
  const libs = join(dir, 'build', 'deps');
  for (const entry of existsSync(libs) ? readdirSync(libs) : []) {
    if (!/\.so(\.\d+)*$/.test(entry)) rmSync(join(libs, entry), { recursive: true, force: true });
  }
}

function du(path) {
  const s = lstatSync(path);
  return s.isDirectory() ? readdirSync(path).reduce((n, e) => n + du(join(path, e)), 0) : s.size;
}

for (const app of apps) stage(app);
