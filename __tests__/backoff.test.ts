import { BACKOFF_BASE_MS, BACKOFF_CAP_MS, defaultBackoff } from '../lib/domain/backoff';

describe('defaultBackoff', () => {
  it('doubles per attempt, with jitter between half and all of the ceiling', () => {
    for (let attempt = 1; attempt <= 6; attempt++) {
      const ceiling = BACKOFF_BASE_MS * 2 ** (attempt - 1);
      for (let i = 0; i < 200; i++) {
        const ms = defaultBackoff(attempt);
        expect(ms).toBeGreaterThanOrEqual(ceiling / 2);
        expect(ms).toBeLessThanOrEqual(ceiling);
      }
    }
  });

  it('jitters: failures at the same time do not all retry at the same time', () => {
    const values = new Set(Array.from({ length: 50 }, () => defaultBackoff(4)));
    expect(values.size).toBeGreaterThan(10);
  });

  it('is capped', () => {
    expect(defaultBackoff(50)).toBeLessThanOrEqual(BACKOFF_CAP_MS);
    expect(defaultBackoff(50)).toBeGreaterThanOrEqual(BACKOFF_CAP_MS / 2);
  });
});
