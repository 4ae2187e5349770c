import { ErrorReply } from 'redis';
import {
  ClosedError,
  DocketError,
  LeaseLostError,
  OutOfMemoryError,
  PayloadTooLargeError,
  RedisError,
  ValidationError,
  fromRedisError,
} from '../lib/errors';

describe('errors', () => {
  it('set name and a stable code on every class', () => {
    const cases: Array<[DocketError, string, string]> = [
      [new ValidationError('delay', 'bad'), 'ValidationError', 'ERR_VALIDATION'],
      [new PayloadTooLargeError('data', 10, 5), 'PayloadTooLargeError', 'ERR_PAYLOAD_TOO_LARGE'],
      [new ClosedError('scheduler'), 'ClosedError', 'ERR_CLOSED'],
      [new LeaseLostError('abc'), 'LeaseLostError', 'ERR_LEASE_LOST'],
      [new OutOfMemoryError(new Error('OOM')), 'OutOfMemoryError', 'ERR_OUT_OF_MEMORY'],
      [new RedisError(new Error('x')), 'RedisError', 'ERR_REDIS'],
    ];
    for (const [err, name, code] of cases) {
      expect(err).toBeInstanceOf(DocketError);
      expect(err).toBeInstanceOf(Error);
      expect(err.name).toBe(name);
      expect(err.code).toBe(code);
    }
  });

  it('name the field in the message', () => {
    const err = new ValidationError('options.delay', 'must be a number');
    expect(err.field).toBe('options.delay');
    expect(err.message).toBe('options.delay: must be a number');
  });

  it('make a too-large payload a kind of validation error', () => {
    expect(new PayloadTooLargeError('data', 10, 5)).toBeInstanceOf(ValidationError);
  });

  it('map Redis replies to typed errors in one place', () => {
    const oom = fromRedisError(new ErrorReply("OOM command not allowed when used memory > 'maxmemory'."));
    expect(oom).toBeInstanceOf(OutOfMemoryError);
    const other = fromRedisError(new ErrorReply('ERR something'));
    expect(other).toBeInstanceOf(RedisError);
    expect(other.cause).toBeInstanceOf(ErrorReply);
    const mine = new ClosedError('x');
    expect(fromRedisError(mine)).toBe(mine);
  });
});
