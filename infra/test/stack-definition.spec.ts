/** The stack's definitions agree with each other: ports.env (the one source of truth), compose, Prometheus, topics. */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { parse } from 'yaml';
import { REPO_ROOT, parsePorts, readPorts } from './support/stack';

const read = (p: string): string => readFileSync(path.join(REPO_ROOT, p), 'utf8');

/** Which compose service publishes each port of ports.env (null: a range bound, not a listening port). */
const PUBLISHER: Record<string, string | null> = {
  KAFKA_1_PORT: 'kafka-1',
  KAFKA_2_PORT: 'kafka-2',
  KAFKA_3_PORT: 'kafka-3',
  KAFKA_1_CONTROLLER_PORT: 'kafka-1',
  KAFKA_2_CONTROLLER_PORT: 'kafka-2',
  KAFKA_3_CONTROLLER_PORT: 'kafka-3',
  KAFKA_1_METRICS_PORT: 'kafka-1',
  KAFKA_2_METRICS_PORT: 'kafka-2',
  KAFKA_3_METRICS_PORT: 'kafka-3',
  CLICKHOUSE_HTTP_PORT: 'clickhouse',
  CLICKHOUSE_TCP_PORT: 'clickhouse',
  CLICKHOUSE_INTERSERVER_PORT: 'clickhouse',
  FLINK_REST_PORT: 'jobmanager',
  FLINK_RPC_PORT: 'jobmanager',
  FLINK_METRICS_PORT_FIRST: 'jobmanager',
  FLINK_METRICS_PORT_LAST: null,
  PROMETHEUS_PORT: 'prometheus',
  ALERTMANAGER_PORT: 'alertmanager',
  GATEKEEPER_METRICS_PORT: 'gatekeeper',
  PROBE_METRICS_PORT: 'probe',
  LOADER_METRICS_PORT: 'loader',
  PAGER_PORT: 'pager',
  COLLECTOR_PORT: 'collector',
  COLLECTOR_METRICS_PORT: 'collector',
};

interface ComposeService {
  ports?: string[];
  image?: string;
}

function composeServices(): Record<string, ComposeService> {
  const doc = parse(read('infra/compose/docker-compose.yml'), { merge: true }) as {
    services?: Record<string, ComposeService>;
  };
  if (doc.services === undefined) throw new Error('docker-compose.yml has no services');
  return doc.services;
}

/** Host side of each "host:container" mapping. */
function hostPorts(service: ComposeService): number[] {
  return (service.ports ?? []).map((m) => Number(m.split(':')[0]));
}

function prometheusTargets(file: string): string[] {
  const doc = parse(read(file)) as {
    scrape_configs: { static_configs: { targets: string[] }[] }[];
  };
  return doc.scrape_configs.flatMap((c) => c.static_configs.flatMap((s) => s.targets));
}

function topics(): string[] {
  return read('infra/local/topics.txt')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'))
    .map((l) => l.split(/\s+/)[0] as string);
}

function topicConfigs(name: string): string[] {
  const line = read('infra/local/topics.txt')
    .split('\n')
    .map((l) => l.trim().split(/\s+/))
    .find((words) => words[0] === name);
  return line === undefined ? [] : line.slice(1);
}

describe('parsePorts', () => {
  it('reads NAME=port lines and skips comments and blanks', () => {
    expect(parsePorts('# c\n\nA_PORT=1\nB_PORT=22\n')).toEqual({ A_PORT: 1, B_PORT: 22 });
  });

  it('rejects a line that is not NAME=port', () => {
    expect(() => parsePorts('A_PORT=abc')).toThrow(/bad line 'A_PORT=abc'/);
  });
});

describe('ports.env', () => {
  it('has no port twice', () => {
    const values = Object.values(readPorts());
    expect(new Set(values).size).toBe(values.length);
  });

  it('has a known publisher for every entry (a new port must be placed in compose too)', () => {
    expect(Object.keys(readPorts()).sort()).toEqual(Object.keys(PUBLISHER).sort());
  });
});

describe('docker-compose.yml', () => {
  const services = composeServices();
  const ports = readPorts();

  it.each(Object.entries(PUBLISHER).filter((e): e is [string, string] => e[1] !== null))(
    '%s is published on the same host port by service %s',
    (key, service) => {
      expect(Object.keys(services)).toContain(service);
      const svc = services[service];
      expect(svc && hostPorts(svc)).toContain(ports[key]);
    },
  );

  it('runs the taskmanager next to the jobmanager', () => {
    expect(Object.keys(services)).toEqual(
      expect.arrayContaining(['jobmanager', 'taskmanager', 'kafka-init']),
    );
  });

  it('pins every image to a version', () => {
    for (const [name, svc] of Object.entries(services)) {
      if (svc.image !== undefined)
        expect({ name, tagged: /:[^:/]+$/.test(svc.image) }).toEqual({ name, tagged: true });
    }
  });

  it('creates the topics of topics.txt in its init container', () => {
    const init = read('infra/compose/docker-compose.yml');
    expect(init).toContain('../local/topics.txt:/topics.txt');
    expect(topics()).toEqual([
      'clickstream.raw',
      'events.valid',
      'events.dlq',
      'events.clean',
      'events.late',
      'agg.windows',
      'agg.sessions',
    ]);
  });

  it('makes the broker stamp clickstream.raw (LogAppendTime), locally and in compose', () => {
    expect(topicConfigs('clickstream.raw')).toEqual(['message.timestamp.type=LogAppendTime']);
    for (const other of ['events.valid', 'events.clean', 'agg.windows'])
      expect({ other, configs: topicConfigs(other) }).toEqual({ other, configs: [] });
    const compose = read('infra/compose/docker-compose.yml');
    expect(compose).toContain('while read -r t cfgs');
    expect(compose).toContain('--add-config');
  });
});

describe('prometheus.yml (local)', () => {
  const targets = prometheusTargets('infra/prometheus/prometheus.yml');
  const ports = readPorts();
  const first = ports.FLINK_METRICS_PORT_FIRST ?? NaN;
  const last = ports.FLINK_METRICS_PORT_LAST ?? NaN;
  const flinkRange = Array.from({ length: last - first + 1 }, (_, i) => first + i);

  it('scrapes only loopback ports that ports.env knows', () => {
    const known = new Set([...Object.values(ports), ...flinkRange]);
    for (const t of targets) {
      const [host, p] = t.split(':');
      expect({ t, host, known: known.has(Number(p)) }).toEqual({
        t,
        host: '127.0.0.1',
        known: true,
      });
    }
  });

  it('scrapes the whole Flink reporter range, the apps and Alertmanager', () => {
    const wanted = [
      'GATEKEEPER_METRICS_PORT',
      'PROBE_METRICS_PORT',
      'LOADER_METRICS_PORT',
      'PAGER_PORT',
      'COLLECTOR_METRICS_PORT',
      'KAFKA_1_METRICS_PORT',
      'KAFKA_2_METRICS_PORT',
      'KAFKA_3_METRICS_PORT',
      'ALERTMANAGER_PORT',
      'PROMETHEUS_PORT',
    ]
      .map((k) => ports[k])
      .concat(flinkRange);
    expect(wanted.length).toBeGreaterThan(5);
    expect(targets).toEqual(expect.arrayContaining(wanted.map((p) => `127.0.0.1:${p}`)));
  });

  it('has the same jobs as the compose variant', () => {
    const jobs = (file: string): string[] =>
      (parse(read(file)) as { scrape_configs: { job_name: string }[] }).scrape_configs.map(
        (c) => c.job_name,
      );
    expect(jobs('infra/compose/prometheus.yml')).toEqual(jobs('infra/prometheus/prometheus.yml'));
  });
});

describe('Kafka node template', () => {
  const props = new Map(
    read('infra/local/kafka/server.properties.tmpl')
      .split('\n')
      .filter((l) => l.includes('=') && !l.startsWith('#'))
      .map((l): [string, string] => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );

  it.each([
    ['default.replication.factor', '3'],
    ['min.insync.replicas', '2'],
    ['unclean.leader.election.enable', 'false'],
    ['offsets.topic.replication.factor', '3'],
    ['transaction.state.log.replication.factor', '3'],
    ['transaction.state.log.min.isr', '2'],
    ['group.initial.rebalance.delay.ms', '0'],
  ])('sets %s=%s (durability and test speed depend on it)', (key, value) => {
    expect(props.get(key)).toBe(value);
  });

  it('lets transactions live an hour (Flink two-phase-commit sinks, CleanJobConfig)', () => {
    expect(Number(props.get('transaction.max.timeout.ms'))).toBe(3_600_000);
  });

  it('forgets a producer id an hour after its last write, not a day (docs/KAFKA.md, "Producer ids")', () => {
    expect(Number(props.get('producer.id.expiration.ms'))).toBe(3_600_000);
    // The compose brokers say the same.
    expect(read('infra/compose/docker-compose.yml')).toMatch(
      /KAFKA_PRODUCER_ID_EXPIRATION_MS: 3600000\n/,
    );
  });

  it('never creates a topic on a client\'s request, here and in compose (docs/KAFKA.md, "Topics are created, never auto-created")', () => {
    expect(props.get('auto.create.topics.enable')).toBe('false');
    expect(read('infra/compose/docker-compose.yml')).toMatch(
      /KAFKA_AUTO_CREATE_TOPICS_ENABLE: 'false'\n/,
    );
  });

  it('gives each partition back to its preferred leader when the stack starts, here and in compose (docs/KAFKA.md, "Leaders")', () => {
    expect(read('infra/local/kafka/EnsureTopics.java')).toMatch(
      /admin\.electLeaders\(ElectionType\.PREFERRED, null\)/,
    );
    expect(read('infra/compose/docker-compose.yml')).toMatch(
      /kafka-leader-election\.sh --bootstrap-server kafka-1:9092 --election-type PREFERRED \\\n\s+--all-topic-partitions/,
    );
  });

  it('keeps at most the newest 256 MiB of a partition, in 64 MiB segments, here and in compose (docs/KAFKA.md)', () => {
    expect(Number(props.get('log.retention.bytes'))).toBe(256 * 2 ** 20);
    expect(Number(props.get('log.segment.bytes'))).toBe(64 * 2 ** 20);
    const compose = read('infra/compose/docker-compose.yml');
    expect(compose).toMatch(/KAFKA_LOG_RETENTION_BYTES: 268435456\n/);
    expect(compose).toMatch(/KAFKA_LOG_SEGMENT_BYTES: 67108864\n/);
  });

  it('fences a dead node within 6 s, with at least five heartbeats per timeout (docs/KAFKA.md)', () => {
    const session = Number(props.get('broker.session.timeout.ms'));
    const beat = Number(props.get('broker.heartbeat.interval.ms'));
    expect(session).toBeLessThanOrEqual(6000);
    expect(session / beat).toBeGreaterThanOrEqual(5);
  });

  it('binds its own host but is dialled at 127.0.0.1, which lib/netns.sh NATs to a node in a namespace', () => {
    expect(props.get('listeners')).toBe('PLAINTEXT://@HOST@:@PORT@,CONTROLLER://@HOST@:@CPORT@');
    expect(props.get('advertised.listeners')).toBe('PLAINTEXT://127.0.0.1:@PORT@');
  });

  it('names all three controllers in the static quorum', () => {
    expect(props.get('controller.quorum.voters')).toBe(
      '1@127.0.0.1:@C1@,2@127.0.0.1:@C2@,3@127.0.0.1:@C3@',
    );
  });
});
