import {
  CATALOGUE,
  describeCatalogue,
  findExperiment,
  kafkaNetMismatch,
  loadSeconds,
  validateCatalogue,
  type FaultExperiment,
} from './catalogue';

describe('the catalogue', () => {
  it('is valid as shipped', () => {
    expect(validateCatalogue(CATALOGUE)).toEqual([]);
  });
  it('holds every experiment of issue 15', () => {
    expect(CATALOGUE.map((e) => e.name).sort()).toEqual(
      [
        'load-ladder',
        'controller-kill',
        'leader-kill',
        'taskmanager-kill',
        'broker-stall',
        'taskmanager-stall',
        'gatekeeper-kill',
        'loader-kill',
        'clickhouse-restart',
        'broker-partition',
        'broker-netns-partition',
        'coordinator-kill',
      ].sort(),
    );
  });
  it('lists every experiment in the help text', () => {
    for (const e of CATALOGUE) expect(describeCatalogue()).toContain(e.name);
  });
  it('has 150 s stalls, as the issue asks', () => {
    const stalls = CATALOGUE.filter(
      (e): e is FaultExperiment => e.kind === 'fault' && e.fault.action === 'sigstop',
    );
    expect(stalls.map((s) => s.fault.holdS)).toEqual([150, 150]);
    expect(loadSeconds(stalls[0] as FaultExperiment)).toBe(45 + 150 + 90);
  });
});

describe('kafkaNetMismatch', () => {
  const netns = findExperiment('broker-netns-partition');
  const loopback = findExperiment('broker-partition');
  const any = findExperiment('controller-kill');
  it('lets an experiment run on the networking it asks for, and one that asks for none on either', () => {
    expect(netns && kafkaNetMismatch(netns, 'netns')).toBeNull();
    expect(loopback && kafkaNetMismatch(loopback, 'loopback')).toBeNull();
    expect(any && kafkaNetMismatch(any, 'netns')).toBeNull();
    expect(any && kafkaNetMismatch(any, 'loopback')).toBeNull();
  });
  it('says what is wrong and how to restart the stack', () => {
    expect(netns && kafkaNetMismatch(netns, 'loopback')).toMatch(
      /broker-netns-partition needs .*'netns'.* runs them as 'loopback'.*KAFKA_NET=netns bash infra\/local\/stack.sh up/,
    );
    expect(loopback && kafkaNetMismatch(loopback, 'netns')).toMatch(/'loopback'.*as 'netns'/);
  });
});

describe('validateCatalogue', () => {
  const fault = {
    kind: 'fault',
    name: 'x',
    summary: 's',
    rate: 100,
    baselineS: 10,
    afterS: 10,
    reconcileS: 10,
    fault: { action: 'sigkill', target: 'loader', holdS: 0 },
  };
  it('accepts the empty catalogue', () => {
    expect(validateCatalogue([])).toEqual([]);
  });
  it('names a bad field', () => {
    expect(validateCatalogue([{ ...fault, rate: 0 }])).toEqual([expect.stringContaining('rate')]);
  });
  it('refuses duplicate names, partitions of non-brokers, zero-second stalls, decreasing rungs', () => {
    const problems = validateCatalogue([
      fault,
      fault,
      { ...fault, name: 'p', fault: { action: 'partition', target: 'loader', holdS: 5 } },
      { ...fault, name: 's', fault: { action: 'sigstop', target: 'broker-2', holdS: 0 } },
      { kind: 'ladder', name: 'l', summary: 's', rungs: [2, 1], rungS: 10, reconcileS: 0 },
    ]);
    expect(problems).toHaveLength(4);
    expect(problems.join('\n')).toMatch(
      /used twice[\s\S]*partitioned[\s\S]*holdS > 0[\s\S]*increase/,
    );
  });
});
