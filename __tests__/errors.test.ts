import { ClientClosedError, ClientOfflineError, ErrorReply, SocketClosedUnexpectedlyError } from 'redis';
import {
  ClosedError,
  DocketError,
  LeaseLostError,
  OutOfMemoryError,
  PayloadTooLargeError,
  RedisError,
  ValidationError,
  fromRedisError,
  BusyError,
  TryAgainError,
  ConnectionError,
  LoadingError,
  PermissionError,
  ReadOnlyError,
  IndeterminateError,
  isTransient,
  TimeoutError,
  HashFunctionError,
  UnreadableRecordError,
} from '../lib/types/errors';
import { guardHash } from '../lib/domain/hashing';
import { parseRecord } from '../lib/domain/payload';

describe('errors', () => {
  it('set name and a stable code on every class', () => {
    const cases: Array<[DocketError, string, string]> = [
      [new ValidationError('delay', 'bad'), 'ValidationError', 'ERR_VALIDATION'],
      [new PayloadTooLargeError('data', 10, 5), 'PayloadTooLargeError', 'ERR_PAYLOAD_TOO_LARGE'],
      [new ClosedError('scheduler'), 'ClosedError', 'ERR_CLOSED'],
      [new LeaseLostError('abc'), 'LeaseLostError', 'ERR_LEASE_LOST'],
      [new OutOfMemoryError(new Error('OOM')), 'OutOfMemoryError', 'ERR_OUT_OF_MEMORY'],
      [new RedisError(new Error('x')), 'RedisError', 'ERR_REDIS'],
      [new IndeterminateError('put'), 'IndeterminateError', 'ERR_INDETERMINATE'],
      [new TimeoutError('put', 5), 'TimeoutError', 'ERR_TIMEOUT'],
      [new ConnectionError(new Error('x')), 'ConnectionError', 'ERR_CONNECTION'],
      [new LoadingError(new Error('x')), 'LoadingError', 'ERR_LOADING'],
      [new BusyError(new Error('x')), 'BusyError', 'ERR_BUSY'],
      [new TryAgainError(new Error('x')), 'TryAgainError', 'ERR_TRYAGAIN'],
      [new ReadOnlyError(new Error('x')), 'ReadOnlyError', 'ERR_READONLY'],
      [new PermissionError(new Error('x')), 'PermissionError', 'ERR_NOPERM'],
      [new HashFunctionError('threw'), 'HashFunctionError', 'ERR_HASH_FUNCTION'],
      [new UnreadableRecordError('the payload of task a', new SyntaxError('x')), 'UnreadableRecordError', 'ERR_UNREADABLE_RECORD'],
    ];
    for (const [err, name, code] of cases) {
      expect(err).toBeInstanceOf(DocketError);
      expect(err).toBeInstanceOf(Error);
      expect(err.name).toBe(name);
      expect(err.code).toBe(code);
    }
  });

  it('wrap what the hash option throws, or a return that is no hash, in a HashFunctionError', () => {
    const boom = new TypeError('boom');
    const thrown = (() => {
      try {
        guardHash(() => {
          throw boom;
        })('x');
      } catch (err) {
        return err;
      }
    })();
    expect(thrown).toBeInstanceOf(HashFunctionError);
    expect(thrown).toMatchObject({ message: 'options.hash threw: it must return a non-empty string for every identity', cause: boom });
    expect(() => guardHash(() => undefined as never)('x')).toThrow('options.hash returned undefined');
    expect(() => guardHash(() => '')('x')).toThrow('options.hash returned an empty string');
    expect(guardHash((identity) => `h${identity}`)('x')).toBe('hx');
  });

  it('turn a stored record that is not JSON into an UnreadableRecordError that names it', () => {
    expect(parseRecord('{"a":1}', 'the payload of task a')).toEqual({ a: 1 });
    const err = (() => {
      try {
        parseRecord('{"a":', 'the payload of task a');
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(UnreadableRecordError);
    expect(err).toMatchObject({ what: 'the payload of task a', message: expect.stringMatching(/^the payload of task a in Redis is unreadable: /), cause: expect.any(SyntaxError) });
  });

  it('name the field in the message', () => {
    const err = new ValidationError('options.delay', 'must be a number');
    expect(err.field).toBe('options.delay');
    expect(err.message).toBe('options.delay: must be a number');
  });

  it('make a too-large payload a kind of validation error', () => {
    expect(new PayloadTooLargeError('data', 10, 5)).toBeInstanceOf(ValidationError);
  });

  it('map each server error code, and connection failures, to its own class', () => {
    const cases: Array<[Error, string]> = [
      [new ErrorReply('LOADING Redis is loading the dataset in memory'), 'ERR_LOADING'],
      [new ErrorReply('BUSY Redis is busy running a script.'), 'ERR_BUSY'],
      [new ErrorReply('TRYAGAIN Multiple keys request during rehashing of slot'), 'ERR_TRYAGAIN'],
      [new ErrorReply('CLUSTERDOWN The cluster is down'), 'ERR_TRYAGAIN'],
      [new ErrorReply("READONLY You can't write against a read only replica."), 'ERR_READONLY'],
      [new ErrorReply("NOPERM this user has no permissions to run the 'evalsha' command"), 'ERR_NOPERM'],
      [new ErrorReply('ERR Error running script (call to f_x): @user_script:1: NOPERM No permissions to access a key'), 'ERR_NOPERM'],
      [new SocketClosedUnexpectedlyError(), 'ERR_INDETERMINATE'],
      [Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }), 'ERR_INDETERMINATE'],
      [Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }), 'ERR_CONNECTION'],
      [new ErrorReply("ERR The user executing the script can't run this command or subcommand script: x"), 'ERR_NOPERM'],
      [new ClientClosedError(), 'ERR_CONNECTION'],
      [new ClientOfflineError(), 'ERR_CONNECTION'],
      [new ErrorReply('WRONGTYPE Operation against a key holding the wrong kind of value'), 'ERR_REDIS'],
    ];
    for (const [raw, code] of cases) {
      const err = fromRedisError(raw, 'put');
      expect(err.code).toBe(code);
      expect(err.cause).toBe(raw);
    }
    expect(fromRedisError(new SocketClosedUnexpectedlyError(), 'ack').message).toMatch(/^ack: .*outcome is unknown/);
  });

  it('make a timeout a kind of indeterminate outcome', () => {
    const err = new TimeoutError('put', 300);
    expect(err).toBeInstanceOf(IndeterminateError);
    expect(err.code).toBe('ERR_TIMEOUT');
    expect(err.timeoutMs).toBe(300);
  });

  it('call only LOADING, BUSY and TRYAGAIN (or CLUSTERDOWN) transient', () => {
    expect(isTransient(fromRedisError(new ErrorReply('LOADING x')))).toBe(true);
    expect(isTransient(fromRedisError(new ErrorReply('BUSY x')))).toBe(true);
    expect(isTransient(fromRedisError(new ErrorReply('TRYAGAIN x')))).toBe(true);
    expect(isTransient(fromRedisError(new ErrorReply('OOM x')))).toBe(false);
    expect(isTransient(new TimeoutError('x', 1))).toBe(false);
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
