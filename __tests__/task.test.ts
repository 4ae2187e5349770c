import { toTaskInfo } from '../lib/domain/task';

describe('toTaskInfo', () => {
  it('reports null for fields a task does not have', () => {
    const info = toTaskInfo('q', 'abc', { payload: '"x"', meta: JSON.stringify({ r: 10, m: 5, n: 0, c: 1 }), state: 'delayed', progress: null });
    expect(info).toEqual({
      hash: 'abc',
      queue: 'q',
      data: 'x',
      state: 'delayed',
      runAt: 10,
      expireAt: null,
      attempts: 0,
      maxAttempts: 5,
      priority: false,
      level: 0,
      group: null,
      key: null,
      lastError: null,
      ending: null,
      leaseUntil: null,
      worker: null,
      progress: null,
      keepResult: null,
      timeout: null,
      name: null,
      schedule: null,
    });
  });

  it('reads priority, key, last error and the holder', () => {
    const meta = { r: 1, m: 3, n: 1, c: 1, p: 1, k: 'order-1', err: 'boom', l: 9, w: 'h:1:ab', kr: 60000, pg: 1 };
    expect(toTaskInfo('q', 'h', { payload: '1', meta: JSON.stringify(meta), state: 'active', progress: '{"done":3}' })).toMatchObject({
      progress: { done: 3 },
      keepResult: 60000,
      priority: true,
      key: 'order-1',
      lastError: 'boom',
      leaseUntil: 9,
      worker: 'h:1:ab',
    });
  });
});
