import { canonicalJson } from '../lib/payload';
import { ValidationError } from '../lib/errors';

describe('canonicalJson', () => {
  it('sorts object keys at every depth, so key order does not make a different task', () => {
    const a = canonicalJson({ b: 1, a: { d: [1, { z: 1, y: 2 }], c: null } });
    const b = canonicalJson({ a: { c: null, d: [1, { y: 2, z: 1 }] }, b: 1 });
    expect(a).toBe(b);
    expect(a).toBe('{"a":{"c":null,"d":[1,{"y":2,"z":1}]},"b":1}');
  });

  it('keeps array order', () => {
    expect(canonicalJson([1, 2])).not.toBe(canonicalJson([2, 1]));
  });

  it('round-trips through JSON.parse unchanged', () => {
    const value = { s: 'é\u2028"\\', n: -0.5, big: 1e21, t: true, f: false, nil: null, list: [[], {}] };
    expect(JSON.parse(canonicalJson(value))).toEqual(value);
  });

  it('accepts objects without a prototype', () => {
    const o = Object.create(null) as Record<string, number>;
    o.x = 1;
    expect(canonicalJson(o)).toBe('{"x":1}');
  });

  const refused: Array<[string, unknown, string]> = [
    ['BigInt', { n: 1n }, 'data.n'],
    ['a function', { f: () => 1 }, 'data.f'],
    ['a symbol', [Symbol('s')], 'data[0]'],
    ['top-level undefined', undefined, 'data'],
    ['undefined in an object', { a: { b: undefined } }, 'data.a.b'],
    ['NaN', { x: NaN }, 'data.x'],
    ['Infinity', [1, -Infinity], 'data[1]'],
    ['a Date', { when: new Date(0) }, 'data.when'],
    ['a Map', new Map([[1, 2]]), 'data'],
    ['a sparse array', [1, , 3], 'data[1]'], // eslint-disable-line no-sparse-arrays
    ['symbol keys', { [Symbol('k')]: 1 }, 'data'],
  ];
  it.each(refused)('refuses %s, naming where it sits', (_what, value, field) => {
    let error: unknown;
    try {
      canonicalJson(value);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).field).toBe(field);
    expect((error as ValidationError).message).toContain(field);
  });

  it('refuses cycles', () => {
    const a: Record<string, unknown> = { x: 1 };
    a.self = { back: a };
    expect(() => canonicalJson(a)).toThrow(/data\.self\.back.*cycle/);
  });

  it('allows the same object twice when it is not a cycle', () => {
    const shared = { k: 1 };
    expect(canonicalJson({ a: shared, b: shared })).toBe('{"a":{"k":1},"b":{"k":1}}');
  });
});

describe('canonicalJson fast and careful paths', () => {
  it('gives the same text for values within and beyond the fast path depth', () => {
    const shallow = { b: [1, { d: 'x', c: null }], a: true };
    expect(canonicalJson(shallow)).toBe('{"a":true,"b":[1,{"c":null,"d":"x"}]}');
    // 100 levels: past the fast path's bound, so the careful writer (cycle-safe) produces it.
    let deep: unknown = { z: 1, y: 2 };
    for (let i = 0; i < 100; i++) deep = { next: deep, at: i };
    const text = canonicalJson(deep);
    expect(JSON.parse(text)).toEqual(deep);
    expect(text.startsWith('{"at":99,"next":{"at":98,')).toBe(true);
    expect(text).toContain('{"y":2,"z":1}');
  });

  it('still names the bad field when the fast path gives up', () => {
    expect(() => canonicalJson({ a: [1, { b: Number.NaN }] })).toThrow(/data\.a\[1\]\.b/);
  });
});
