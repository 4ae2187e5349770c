import { canonicalJson, MAX_DEPTH } from '../lib/domain/payload';
import { PayloadTooLargeError, ValidationError } from '../lib/types/errors';

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
  it('writes every valid value on the fast path, a child shared by two fields included', () => {
    const shallow = { b: [1, { d: 'x', c: null }], a: true };
    expect(canonicalJson(shallow)).toBe('{"a":true,"b":[1,{"c":null,"d":"x"}]}');
    const child = { y: 2, z: 1 };
    const text = canonicalJson({ next: child, at: [child] });
    expect(text).toBe('{"at":[{"y":2,"z":1}],"next":{"y":2,"z":1}}');
  });

  it('still names the bad field when the fast path gives up', () => {
    expect(() => canonicalJson({ a: [1, { b: Number.NaN }] })).toThrow(/data\.a\[1\]\.b/);
  });
});

describe('canonicalJson limits', () => {
  /** `levels` objects, one inside the other. */
  const nested = (levels: number): unknown => {
    let value: unknown = { y: 2, z: 1 };
    for (let i = 1; i < levels; i++) value = { next: value, at: i };
    return value;
  };

  it(`writes values nested up to ${MAX_DEPTH} levels, in the same text as JSON.parse reads back`, () => {
    const deep = nested(MAX_DEPTH);
    const text = canonicalJson(deep);
    expect(JSON.parse(text)).toEqual(deep);
    expect(text.startsWith(`{"at":${MAX_DEPTH - 1},"next":{"at":${MAX_DEPTH - 2},`)).toBe(true);
  });

  it('refuses a value nested deeper, naming where the limit is crossed and the limit', () => {
    const err = errorOf(() => canonicalJson(nested(MAX_DEPTH + 1), 'result'));
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.field).toBe(`result${'.next'.repeat(MAX_DEPTH)}`);
    expect(err.message).toContain(`nested deeper than the limit of ${MAX_DEPTH} levels`);
  });

  it('refuses a value nested past any stack without overflowing it', () => {
    let deep: unknown = [];
    for (let i = 0; i < 1_000_000; i++) deep = [deep];
    expect(errorOf(() => canonicalJson(deep))).toBeInstanceOf(ValidationError);
  });

  it('stops writing once the text is surely over the size limit', () => {
    let bomb: unknown = 'x';
    for (let i = 0; i < 60; i++) bomb = [bomb, bomb];
    const err = errorOf(() => canonicalJson(bomb, 'data', { bytes: 1000 })) as PayloadTooLargeError;
    expect(err).toBeInstanceOf(PayloadTooLargeError);
    expect(err.limit).toBe(1000);
    expect(err.bytes).toBeGreaterThan(1000);
    expect(err.message).toMatch(/^data: payload is more than \d+ bytes, over the limit of 1000 bytes$/);
  });

  it('measures the whole text against the limit in UTF-8 bytes', () => {
    expect(canonicalJson('é'.repeat(10), 'progress', { bytes: 22 })).toBe(`"${'é'.repeat(10)}"`);
    const err = errorOf(() => canonicalJson('é'.repeat(10), 'progress', { bytes: 21, what: 'progress' })) as PayloadTooLargeError;
    expect(err).toMatchObject({ field: 'progress', bytes: 22, limit: 21 });
    expect(err.message).toBe('progress: progress is 22 bytes, over the limit of 21 bytes');
  });

  it('refuses a value whose getter or proxy trap throws, with what it threw as the cause', () => {
    const boom = new Error('boom');
    const err = errorOf(() =>
      canonicalJson({
        a: {
          get b(): never {
            throw boom;
          },
        },
      }),
    );
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.field).toBe('data');
    expect(err.message).toBe('data: could not be read: reading it threw Error: boom');
    expect(err.cause).toBe(boom);
    const trap = new Proxy(
      {},
      {
        ownKeys: () => {
          throw new TypeError('trap');
        },
      },
    );
    expect(errorOf(() => canonicalJson([trap]))).toBeInstanceOf(ValidationError);
  });
});

function errorOf(call: () => unknown): ValidationError {
  try {
    call();
  } catch (err) {
    return err as ValidationError;
  }
  throw new Error('expected a throw');
}
