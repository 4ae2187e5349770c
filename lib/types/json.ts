/**
 * Payloads and results: JSON, and the compile-time check that a caller's own type is JSON.
 */
/** Any value that survives a JSON round trip unchanged. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/**
 * `T` itself where it is JSON, and `never` at each place where it cannot be: a function (a method
 * included), `undefined` (a required field typed `string | undefined`), a bigint, a symbol.
 * `put<T>(data: T & JsonCompatible<T>)` takes data typed by an `interface`, which `Json` does not:
 * an interface has no implicit index signature, so `Mail` is not assignable to
 * `{ [key: string]: Json }` though every Mail is JSON. An optional field passes (leaving it out is
 * JSON). `any` passes, `unknown` does not, as with `Json`.
 *
 * A check of the type only: NaN is a number, and a class instance whose fields are all data
 * passes. put still checks the value itself (canonicalJson) and refuses what JSON cannot carry.
 */
// `0 extends 1 & T` holds only for `any`: data typed `any` is let through, as Json lets it.
export type JsonCompatible<T> = 0 extends 1 & T
  ? T
  : unknown extends T
    ? never
    : T extends Json
      ? T
      : T extends (...args: never[]) => unknown
        ? never
        : T extends object
          ? { [K in keyof T]: JsonCompatible<T[K]> }
          : never;
