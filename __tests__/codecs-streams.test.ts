/**
 * The replies read outside the scripts, decoded without Redis: the events stream's entries
 * (XREAD, XRANGE, XREVRANGE) and entry ids (lib/ops/commands/streams.ts), and a task's record, by name,
 * into what get() reports (lib/domain/task.ts). A reply of another shape is a ReplyError naming the command.
 * (__tests__/commands.test.ts reads the same commands' replies from a real server.)
 */
import { ReplyError } from '../lib/types/errors';
import { get } from '../lib/ops/get';
import { after, entryTime, latestId, rangeEntries, xread } from '../lib/ops/commands/streams';
import { toTaskInfo } from '../lib/domain/task';

/** What a thrown error was, for comparing: its class and the command it names. */
function thrown(call: () => unknown): unknown {
  try {
    call();
  } catch (err) {
    return err;
  }
  return undefined;
}

describe('stream entries', () => {
  const entry = ['1700000000123-4', ['type', 'completed', 'id', 'h1', 'attempt', '2']];

  it('reads an XRANGE reply: each entry with its id, its time and its fields by name', () => {
    expect(rangeEntries([entry, ['1700000000124-0', []]])).toEqual([
      {
        id: '1700000000123-4',
        at: 1700000000123,
        fields: new Map([
          ['type', 'completed'],
          ['id', 'h1'],
          ['attempt', '2'],
        ]),
      },
      { id: '1700000000124-0', at: 1700000000124, fields: new Map() },
    ]);
    expect(rangeEntries([])).toEqual([]);
  });

  it('reads an XREAD reply by stream key, and none when the block timed out', () => {
    const read = xread.decode([
      ['p:{q}:events', [entry]],
      ['p:{r}:events', []],
    ]);
    expect([...read.keys()]).toEqual(['p:{q}:events', 'p:{r}:events']);
    expect(read.get('p:{q}:events')!.map((e) => [e.id, e.fields.get('type')])).toEqual([['1700000000123-4', 'completed']]);
    expect(read.get('p:{r}:events')).toEqual([]);
    expect(xread.decode(null)).toEqual(new Map());
  });

  it('reads the latest id of an XREVRANGE COUNT 1, or null for an empty stream', () => {
    expect(latestId([entry])).toBe('1700000000123-4');
    expect(latestId([])).toBeNull();
  });

  it('throws a ReplyError naming the command for any other shape', () => {
    const cases: Array<[string, () => unknown]> = [
      ['XRANGE', () => rangeEntries(null)],
      ['XRANGE', () => rangeEntries([['1-0']])],
      ['XRANGE', () => rangeEntries([['1-0', ['type']]])],
      ['XRANGE', () => rangeEntries([['1-0', ['type', 7]]])],
      ['XRANGE', () => rangeEntries([['soon', []]])],
      ['XREAD', () => xread.decode('k')],
      ['XREAD', () => xread.decode([['k']])],
      ['XREAD', () => xread.decode([[7, [entry]]])],
      ['XREAD', () => xread.decode([['k', [['1-0', ['type', 'completed', 'id']]]]])],
      ['XREVRANGE', () => latestId([entry, entry])],
      ['XREVRANGE', () => latestId('1-0')],
    ];
    for (const [command, call] of cases) {
      const err = thrown(call);
      expect({ call: String(call), err }).toEqual({ call: String(call), err: expect.any(ReplyError) });
      expect(err).toMatchObject({ code: 'ERR_REPLY', script: command });
    }
  });
});

describe('stream entry ids', () => {
  it('reads the time an entry was added from its id', () => {
    expect(entryTime('1700000000123-0')).toBe(1700000000123);
    expect(entryTime('0-0')).toBe(0);
    expect(() => entryTime('1700000000123')).toThrow(ReplyError);
  });

  it('orders ids by time, then sequence; every id comes after none', () => {
    expect(after('5-1', '5-0')).toBe(true);
    expect(after('6-0', '5-9')).toBe(true);
    expect(after('5-0', '5-0')).toBe(false);
    expect(after('5-0', '5-1')).toBe(false);
    // Numbers, not text: 10 comes after 9.
    expect(after('10-0', '9-0')).toBe(true);
    expect(after('5-10', '5-9')).toBe(true);
    expect(after('0-0', '')).toBe(true);
  });
});

describe("a task's record, by name", () => {
  const META = JSON.stringify({ r: 10, m: 5, n: 1, c: 1, p: 3, g: 'g1', w: 'h:1:ab', l: 99 });

  it('becomes what get() reports, from the get codec reply', () => {
    const record = get.decode(['{"x":1}', META, 'active', '{"pct":5}'], { id: 'a1' });
    expect(record).not.toBeNull();
    expect(toTaskInfo('q', 'a1', record!)).toMatchObject({
      hash: 'a1',
      queue: 'q',
      data: { x: 1 },
      state: 'active',
      runAt: 10,
      attempts: 1,
      level: 3,
      group: 'g1',
      worker: 'h:1:ab',
      leaseUntil: 99,
      progress: { pct: 5 },
    });
  });

  it('reads a record without a payload (damaged) as data null', () => {
    const record = get.decode([null, META, 'dead', null], { id: 'a1' });
    expect(toTaskInfo('q', 'a1', record!)).toMatchObject({ data: null, state: 'dead', progress: null });
  });
});
