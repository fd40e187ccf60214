import { timeliness } from './lateness';

describe('timeliness', () => {
  it('is on time exactly at the bound and late one millisecond past it', () => {
    expect(timeliness(10_000, 15_000, 5_000)).toBe('on_time');
    expect(timeliness(9_999, 15_000, 5_000)).toBe('late');
  });
  it('treats events from the future as on time', () => {
    expect(timeliness(20_000, 15_000)).toBe('on_time');
  });
});
