import { SUFFIXES, queueKeys } from '../lib/keys';
import { slotOf } from '../lib/connection';

describe('queueKeys', () => {
  it('names every key <prefix>:{<queue>}:<suffix>', () => {
    const keys = queueKeys('docket', 'emails');
    expect(Object.keys(keys).sort()).toEqual([...SUFFIXES].sort());
    for (const suffix of SUFFIXES) expect(keys[suffix]).toBe(`docket:{emails}:${suffix}`);
  });

  it('puts all keys of one queue in one cluster slot, and queues apart', () => {
    const keys = Object.values(queueKeys('p', 'emails'));
    expect(new Set(keys.map(slotOf)).size).toBe(1);
    expect(slotOf(queueKeys('p', 'sms').ready)).not.toBe(slotOf(keys[0]));
  });
});

describe('slotOf', () => {
  it('matches Redis Cluster (CRC16 XMODEM mod 16384)', () => {
    // Values from the Redis Cluster specification and CLUSTER KEYSLOT.
    expect(slotOf('123456789')).toBe(0x31c3 % 16384);
    expect(slotOf('foo')).toBe(12182);
    expect(slotOf('{user1000}.following')).toBe(slotOf('{user1000}.followers'));
    // An empty tag does not count: the whole key is hashed.
    expect(slotOf('{}x')).not.toBe(slotOf('x'));
  });
});
