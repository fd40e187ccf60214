/**
 * The compose file is valid Compose, checked by a Compose implementation rather than by reading YAML:
 * `docker compose config` where the v2 plugin exists, else Debian's docker-compose 1.29 (tools/setup
 * installs it; no Docker daemon is needed for `config`). 1.29 predates the top-level `name:` key, so
 * for it that one line is dropped and asserted here instead. Image tags vs the local stack: docs/IMAGES.md.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { parse } from 'yaml';
import { REPO_ROOT } from './support/stack';

const COMPOSE_DIR = path.join(REPO_ROOT, 'infra/compose');
const COMPOSE_FILE = path.join(COMPOSE_DIR, 'docker-compose.yml');

interface Validation {
  status: number | null;
  output: string;
}

const hasComposeV2 = spawnSync('docker', ['compose', 'version'], { encoding: 'utf8' }).status === 0;

/** Validates compose text as if it were infra/compose/docker-compose.yml (relative paths resolve there). */
function validate(text: string): Validation {
  const [cmd, args, input] = hasComposeV2
    ? ['docker', ['compose', '--project-directory', COMPOSE_DIR, '-f', '-', 'config', '-q'], text]
    : [
        'docker-compose',
        ['--project-directory', COMPOSE_DIR, '-f', '-', 'config', '-q'],
        text.replace(/^name: .*\n/m, ''),
      ];
  const r = spawnSync(cmd, args, { input, encoding: 'utf8' });
  if (r.error)
    throw new Error(
      `${cmd} not runnable (${r.error.message}): tools/setup installs docker-compose`,
    );
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

describe('compose file', () => {
  const text = readFileSync(COMPOSE_FILE, 'utf8');

  it('passes `config` of a Compose implementation', () => {
    expect(validate(text)).toEqual({ status: 0, output: '' });
  });

  it('is rejected when broken (the check can fail)', () => {
    const broken = text.replace('condition: service_healthy', 'condition: service_ready');
    expect(validate(broken).status).not.toBe(0);
  });

  it('names its project and builds every app image from the one app Dockerfile, APP picking the app', () => {
    const doc = parse(text) as {
      name?: string;
      services: Record<
        string,
        { build?: { dockerfile?: string; args?: Record<string, string> }; image?: string }
      >;
    };
    expect(doc.name).toBe('clickstream');
    const built = Object.entries(doc.services).filter(([, s]) => s.build);
    expect(built.length).toBeGreaterThan(0);
    for (const [name, s] of built) {
      expect({
        name,
        dockerfile: s.build?.dockerfile,
        app: s.build?.args?.APP,
        image: s.image,
      }).toEqual({
        name,
        dockerfile: 'infra/compose/app.Dockerfile',
        app: name,
        image: `clickstream/${name}:dev`,
      });
    }
  });
  it('lists every engine image tag in docs/IMAGES.md, where each difference from the local stack is written down', () => {
    const doc = parse(text) as { services: Record<string, { build?: unknown; image?: string }> };
    const written = readFileSync(path.join(REPO_ROOT, 'docs/IMAGES.md'), 'utf8');
    const engines = Object.values(doc.services).filter((s) => !s.build && s.image);
    expect(engines.length).toBeGreaterThan(0);
    const unlisted = [...new Set(engines.map((s) => s.image as string))].filter(
      (image) => !written.includes(`\`${image}\``),
    );
    expect(unlisted).toEqual([]);
  });

  it('names, in docs/IMAGES.md, the Kafka and Flink versions the local stack pins, and compose runs the same Flink', () => {
    const written = readFileSync(path.join(REPO_ROOT, 'docs/IMAGES.md'), 'utf8');
    const row = (component: string): string =>
      written.split('\n').find((l) => l.startsWith(`| ${component} `)) ?? '';
    const pom = readFileSync(path.join(REPO_ROOT, 'infra/jvm/kafka/pom.xml'), 'utf8');
    const kafka = /<kafka\.version>([^<]+)</.exec(pom)?.[1];
    const setup = readFileSync(path.join(REPO_ROOT, 'tools/setup'), 'utf8');
    const flink = /^FLINK_VERSION=(\S+)$/m.exec(setup)?.[1];
    expect({ kafka, flink }).toEqual({ kafka: expect.any(String), flink: expect.any(String) });
    expect(row('Kafka')).toContain(` ${kafka} `);
    expect(row('Flink')).toContain(` ${flink} `);
    const flinkImages = Object.values(
      (parse(text) as { services: Record<string, { image?: string }> }).services,
    )
      .map((s) => s.image ?? '')
      .filter((i) => i.startsWith('flink:'));
    expect(flinkImages.length).toBeGreaterThan(0);
    for (const image of flinkImages) expect(image).toMatch(new RegExp(`^flink:${flink}-`));
  });
});
