import { instantToMs, spanToMs } from '../lib/domain/time';

describe('spanToMs', () => {
  it('takes milliseconds as they are, rounded', () => {
    expect(spanToMs(1500)).toBe(1500);
    expect(spanToMs(2.4)).toBe(2);
  });

  it('turns a Duration into milliseconds', () => {
    expect(spanToMs({ minutes: 5 })).toBe(300_000);
    expect(spanToMs({ hours: 1, seconds: 1.5 })).toBe(3_601_500);
    expect(spanToMs({ days: 1 })).toBe(86_400_000);
  });
});

describe('instantToMs', () => {
  it('takes a Date or epoch ms', () => {
    expect(instantToMs(new Date(1234))).toBe(1234);
    expect(instantToMs(5678)).toBe(5678);
  });
});
