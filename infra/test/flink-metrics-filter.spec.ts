/**
 * Flink's Prometheus reporter exports only what Prometheus keeps: every series that the `flink` scrape job's keep
 * regex (infra/prometheus/prometheus.yml) can match must pass the reporter's `filter.includes`
 * (infra/local/flink/config.yaml), and the bulk of the others must not (rendering them cost TaskManager CPU, issue #16).
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { parse } from 'yaml';
import { REPO_ROOT } from './support/stack';

const read = (p: string): string => readFileSync(path.join(REPO_ROOT, p), 'utf8');

/** Every string a regex of literals, groups and `|` alone can match (the keep regex has no quantifiers). */
export function expand(regex: string): string[] {
  let i = 0;
  const alternatives = (): string[] => {
    let out: string[] = [];
    let current = [''];
    while (i < regex.length) {
      const c = regex[i];
      if (c === ')') break;
      i++;
      if (c === '|') {
        out = out.concat(current);
        current = [''];
      } else if (c === '(') {
        const inner = alternatives();
        i++; // the ')'
        current = current.flatMap((prefix) => inner.map((s) => prefix + s));
      } else if (c === '\\') {
        const escaped = regex[i++] ?? '';
        current = current.map((s) => s + escaped);
      } else if (c !== undefined && /[A-Za-z0-9_:]/.test(c)) {
        current = current.map((s) => s + c);
      } else {
        throw new Error(`unsupported regex character '${String(c)}' at ${i - 1} in ${regex}`);
      }
    }
    return out.concat(current);
  };
  return alternatives();
}

/**
 * One `<scope>[:<names>[:<types>]]` filter of Flink's DefaultMetricFilter, as the Prometheus name it lets through:
 * `*` matches anything, a comma separates alternatives, the reporter joins scope and name with `_` and turns every
 * character outside [A-Za-z0-9_:] into `_`.
 */
export function includeAsPrometheusRegex(include: string): RegExp {
  const [scope = '*', names = '*'] = include.split(':');
  const part = (pattern: string): string =>
    pattern
      .split(',')
      .map((p) => p.replace(/[^A-Za-z0-9_:*]/g, '_').replace(/\*/g, '[A-Za-z0-9_:]*'))
      .join('|');
  return new RegExp(`^flink_(${part(scope)})_(${part(names)})$`);
}

function reporterIncludes(): string[] {
  // The template's @PLACEHOLDERS@ are not YAML; any scalar does for this check.
  const config = parse(read('infra/local/flink/config.yaml').replace(/@[A-Z_]+@/g, '0')) as {
    metrics: { reporter: { prom: { filter?: { includes?: string[] } } } };
  };
  return config.metrics.reporter.prom.filter?.includes ?? [];
}

function prometheusKeepRegex(): string {
  const config = parse(read('infra/prometheus/prometheus.yml')) as {
    scrape_configs: {
      job_name: string;
      metric_relabel_configs?: { regex: string; action: string }[];
    }[];
  };
  const flink = config.scrape_configs.find((s) => s.job_name === 'flink');
  const keep = flink?.metric_relabel_configs?.find((r) => r.action === 'keep');
  if (keep === undefined) throw new Error('no keep rule in the flink scrape job');
  return keep.regex;
}

describe('Flink reporter filter vs Prometheus keep rule', () => {
  const includes = reporterIncludes().map(includeAsPrometheusRegex);
  const kept = expand(prometheusKeepRegex());
  const passes = (name: string): boolean => includes.some((r) => r.test(name));

  it('the keep rule expands to the series the stack watches', () => {
    expect(kept).toContain('flink_taskmanager_job_task_busyTimeMsPerSecond');
    expect(kept).toContain(
      'flink_taskmanager_job_task_operator_KafkaSourceReader_KafkaConsumer_records_lag_max',
    );
    expect(kept.length).toBeGreaterThan(15);
  });

  it('the reporter exports every series Prometheus keeps', () => {
    expect(kept.filter((name) => !passes(name))).toEqual([]);
  });

  it('the reporter drops the bulk it used to render', () => {
    const dropped = [
      'flink_taskmanager_job_task_operator_numRecordsIn',
      'flink_taskmanager_job_task_numBytesInPerSecond',
      'flink_taskmanager_Status_JVM_GarbageCollector_G1_Young_Generation_Count',
      'flink_taskmanager_job_task_operator_KafkaSourceReader_KafkaConsumer_fetch_rate',
      'flink_taskmanager_job_task_Shuffle_Netty_Input_Buffers_inputQueueLength',
    ];
    expect(dropped.filter(passes)).toEqual([]);
  });

  it('the expansion and the filter translation behave as Flink and Prometheus do', () => {
    expect(expand('a_(b|c(d|e))|f')).toEqual(['a_b', 'a_cd', 'a_ce', 'f']);
    const r = includeAsPrometheusRegex('taskmanager.job.task.operator.K:records-lag-max,x*');
    expect(r.test('flink_taskmanager_job_task_operator_K_records_lag_max')).toBe(true);
    expect(r.test('flink_taskmanager_job_task_operator_K_xyz')).toBe(true);
    expect(r.test('flink_taskmanager_job_task_operator_records_lag_max')).toBe(false);
  });
});
