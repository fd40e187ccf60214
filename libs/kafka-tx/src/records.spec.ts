import { toInRecord, toProduceArgs } from './records';

describe('records', () => {
  it('converts a consumed message, flattening header lists and normalising keys', () => {
    const r = toInRecord({
      topic: 't',
      partition: 2,
      offset: 9,
      key: 'k',
      value: Buffer.from('v'),
      timestamp: 123,
      headers: [{ a: Buffer.from('1') }, { b: '2' }],
    });
    expect(r).toEqual({
      topic: 't',
      partition: 2,
      offset: 9,
      key: Buffer.from('k'),
      value: Buffer.from('v'),
      headers: { a: Buffer.from('1'), b: Buffer.from('2') },
      timestamp: 123,
    });
    expect(toInRecord({ topic: 't', partition: 0, offset: 0, value: null })).toMatchObject({
      key: null,
      headers: {},
      timestamp: 0,
    });
  });

  it('builds produce arguments, leaving the partition to the partitioner when absent', () => {
    expect(toProduceArgs({ topic: 't', key: 'k', value: null })).toEqual({
      topic: 't',
      partition: -1,
      value: null,
      key: 'k',
      timestamp: null,
      headers: undefined,
    });
    expect(
      toProduceArgs({
        topic: 't',
        partition: 3,
        key: null,
        value: null,
        headers: { h: 'x' },
        timestamp: 5,
      }),
    ).toMatchObject({
      partition: 3,
      headers: [{ h: 'x' }],
      timestamp: 5,
    });
  });
});
