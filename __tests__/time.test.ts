import { instantToMs, spanToMs, type Span } from '../lib/types/time';

describe('spanToMs', () => {
  it('takes milliseconds as they are, rounded', () => {
    expect(spanToMs(1500)).toBe(1500);
    expect(spanToMs(2.4)).toBe(2);
  });

  it('turns a Duration into milliseconds', () => {
    expect(spanToMs({ minutes: 5 })).toBe(300_000);
    expect(spanToMs({ hours: 1, seconds: 1.5 })).toBe(3_601_500);
    expect(spanToMs({ days: 1 })).toBe(86_400_000);
    expect(spanToMs({ weeks: 2, days: 1 })).toBe(15 * 86_400_000);
  });

  it("counts months and years with date-fns' averages, as its milliseconds() did", () => {
    // The figures of date-fns' own documentation of milliseconds(): a year is 365.2425 days.
    expect(spanToMs({ years: 1 })).toBe(31_556_952_000);
    expect(spanToMs({ months: 3 })).toBe(7_889_238_000);
    expect(spanToMs({ months: 1 })).toBe(30.436875 * 86_400_000);
  });

  it('cuts a Duration to a whole millisecond, as date-fns did, where a number is rounded', () => {
    expect(spanToMs({ seconds: 0.0019 })).toBe(1);
    expect(spanToMs(1.9)).toBe(2);
  });

  it('takes a date-fns Duration as it is', () => {
    const fromDateFns: { years?: number; months?: number; weeks?: number; days?: number; hours?: number; minutes?: number; seconds?: number } = { hours: 2 };
    const span: Span = fromDateFns;
    expect(spanToMs(span)).toBe(7_200_000);
  });
});

describe('instantToMs', () => {
  it('takes a Date or epoch ms', () => {
    expect(instantToMs(new Date(1234))).toBe(1234);
    expect(instantToMs(5678)).toBe(5678);
  });
});
