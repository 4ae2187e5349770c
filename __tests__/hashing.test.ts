import { createHash128, identityOf } from '../lib/domain/hashing';

describe('createHash128', () => {
  it('gives 128 bits as 32 hex characters, the same for the same input', async () => {
    const hash = await createHash128();
    expect(hash('{"a":1}')).toMatch(/^[0-9a-f]{32}$/);
    expect(hash('{"a":1}')).toBe(hash('{"a":1}'));
    expect(hash('{"a":1}')).not.toBe(hash('{"a":2}'));
  });

  it('joins two differently seeded halves', async () => {
    const h = (await createHash128())('x');
    expect(h.slice(0, 16)).not.toBe(h.slice(16));
  });

  it('has no collisions over 100,000 distinct inputs', async () => {
    const hash = await createHash128();
    const seen = new Set<string>();
    for (let i = 0; i < 100_000; i++) seen.add(hash(`{"n":${i}}`));
    expect(seen.size).toBe(100_000);
  });
});

describe('identityOf', () => {
  it('is the canonical payload, or the marked key', () => {
    expect(identityOf('{"a":1}', undefined)).toBe('{"a":1}');
    expect(identityOf('{"a":1}', 'order-7')).toBe('#key:order-7');
  });

  it('keeps a key apart from any payload: canonical JSON never starts with #', () => {
    expect(identityOf('"x"', 'x')).not.toBe(identityOf('"x"', undefined));
  });
});
