import { SUFFIXES, queueKeys } from '../lib/domain/keys';
import { slotOf } from '../lib/redis/connection';

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
