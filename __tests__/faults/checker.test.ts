/**
 * The checker checked: a scenario that passes must mean docket passed, so each figure and each
 * invariant is shown here to catch the fault it names, on made-up histories and on queue keys
 * corrupted by hand.
 */
import { analyse, checkInvariants, classify, History, layout, parseTask } from './support/checker';
import { useLab } from './support/lab';
import type { Execution } from './support/oracle';

const lab = useLab();

const run = (label: string, hash: string, pid = 1): Execution => ({ label, hash, pid, attempt: 1, runAt: 0 });

describe('classify', () => {
  it('tells definite failures from unknown outcomes', () => {
    expect(classify(Object.assign(new Error('x'), { code: 'ERR_TIMEOUT' }), false)).toBe('indeterminate');
    expect(classify(Object.assign(new Error('x'), { code: 'ERR_INDETERMINATE', docket: true }), false)).toBe('indeterminate');
    expect(classify(Object.assign(new Error('x'), { code: 'ERR_OUT_OF_MEMORY', docket: true }), false)).toBe('failed');
    expect(classify(new Error('socket hang up'), true)).toBe('indeterminate');
    expect(classify(new Error('socket hang up'), false)).toBe('untyped');
  });
});

describe('analyse', () => {
  it('counts lost, unexpected, duplicated, recovered and dead', () => {
    const h = new History();
    h.ok('ran-twice', 'h1');
    h.ok('never-ran', 'h2');
    h.ok('went-dead', 'h3');
    h.error('unsure', Object.assign(new Error('x'), { code: 'ERR_INDETERMINATE' }));
    h.error('refused', Object.assign(new Error('x'), { code: 'ERR_OUT_OF_MEMORY', docket: true }));
    const execs = [run('ran-twice', 'h1'), run('ran-twice', 'h1', 2), run('unsure', 'h4'), run('refused', 'h5'), run('ghost', 'h6')];
    const f = analyse(h, execs, { dead: new Set(['h3']), expired: 0 });
    expect(f).toMatchObject({ puts: 5, ok: 3, failed: 1, indeterminate: 1, lost: 1, unexpected: 2, duplicated: 1, recovered: 1, dead: 1 });
  });

  it('flags a payload answered with two hashes, and a run under a hash no put returned', () => {
    const h = new History();
    h.ok('a', 'h1');
    h.ok('a', 'h2');
    h.ok('b', 'h3');
    const f = analyse(h, [run('a', 'h1'), run('b', 'h9')], { dead: new Set(), expired: 0 });
    expect(f).toMatchObject({ hashConflicts: 1, unexpected: 1, lost: 0 });
  });
});

describe('parseTask', () => {
  it('splits a field at its first newline and puts back what the record leaves out', () => {
    expect(parseTask('{"c":7,"w":"a\\nb"}\n{"x":"1\\n2"}\nmore')).toEqual({ record: { c: 7, w: 'a\nb', n: 0, r: 7, m: 5 }, payload: '{"x":"1\\n2"}\nmore' });
    expect(parseTask('{"c":7,"r":9,"m":1,"n":2}\n1')!.record).toMatchObject({ n: 2, r: 9, m: 1 });
    expect(parseTask('{"c":7}\n')).toMatchObject({ payload: '' });
    expect(parseTask('7\n{"x":1}')).toEqual({ record: { c: 7, n: 0, r: 7, m: 5 }, payload: '{"x":1}' });
    for (const damaged of ['no-newline', '{"c":7}', 'nope\n1', '7.5\n1', '[1]\n1', 'null\n1', '"text"\n1', '\n{"c":7}']) expect(parseTask(damaged)).toBeNull();
  });
});

describe('checkInvariants', () => {
  it('passes an empty queue and reports every kind of broken state', async () => {
    expect(await checkInvariants(lab.raw, lab.prefix, lab.queue)).toEqual([]);
    const k = layout(lab.prefix, lab.queue);
    // One field a task, `<record>\n<payload>`; `bare` has no newline, `garbled` and `listed` no JSON object before it.
    await lab.raw.hSet(k.tasks, { nowhere: '{}\n1', twice: '{}\n1', leased: '{"w":"w1"}\n1', bare: 'no-newline', garbled: 'nope\n1', listed: '[]\n1' });
    await lab.raw.rPush(k.ready, ['twice', 'bare', 'ghost']);
    await lab.raw.zAdd(k.delayed, [
      { score: 1, value: 'twice' },
      { score: 1, value: 'garbled' },
      { score: 1, value: 'listed' },
    ]);
    await lab.raw.zAdd(k.active, { score: 1, value: 'leased' });
    await lab.raw.zAdd(k.held, { score: 0, value: 'w2|stale' });
    await lab.raw.hSet(k.tasks, 'limited', '{"g":"a"}\n1');
    await lab.raw.zAdd(k.parked, { score: 0, value: 'b|100000000000000001|limited' });
    await lab.raw.hSet(k.gactive, 'a', '2');
    await lab.raw.set(`${lab.prefix}:{${lab.queue}}:stray`, '1');
    // The layout before compact storage: nothing may write it any more.
    await lab.raw.hSet(`${lab.prefix}:{${lab.queue}}:meta`, 'nowhere', '{}');
    const lines = await checkInvariants(lab.raw, lab.prefix, lab.queue);
    const rules = lines.map((line) => line.split(':')[0]);
    expect(rules.sort()).toEqual([
      'active task missing from the held index',
      'damaged task field (not a JSON record, a newline and its payload)',
      'group whose active count is off',
      'held index entry without its active lease',
      'key outside the fixed key set',
      'parked task not under its own group',
      'state member without its task',
      'task in more than one state structure (or twice in ready)',
      'task in no state structure',
    ]);
    expect(lines.find((line) => line.startsWith('damaged'))).toMatch(/: 3 \(e\.g\. (bare|garbled|listed), (bare|garbled|listed), (bare|garbled|listed)\)$/);
    expect(lines.find((line) => line.startsWith('key outside'))).toMatch(/^[^:]+: 2 /);
  });

  it('reads each invariant that looks inside a record from the record part of its field', async () => {
    await lab.raw.flushDb(); // the broken state of the test before
    const k = layout(lab.prefix, lab.queue);
    // `logged` has log lines but no lg flag; `marked` waits on dependencies outside `blocked`;
    // `high` is of level 3 in the normal ready list, `grouped` has a group there.
    await lab.raw.hSet(k.tasks, { logged: '{"c":1}\n1', marked: '{"c":1,"a":1}\n1', high: '{"c":1,"p":3}\n1', grouped: '{"c":1,"g":"a"}\n1' });
    await lab.raw.zAdd(k.delayed, [
      { score: 1, value: 'logged' },
      { score: 1, value: 'marked' },
    ]);
    await lab.raw.rPush(k.ready, ['high', 'grouped']);
    await lab.raw.hSet(k.logs, 'logged', '[]');
    const rules = (await checkInvariants(lab.raw, lab.prefix, lab.queue)).map((line) => line.split(':')[0]);
    expect(rules.sort()).toEqual([
      'log of a task not flagged lg (its deletion would leave it)',
      'task in the ready list of level 0 but of another level',
      'task marked waiting but not in blocked',
      'task with a group in a ready list',
    ]);
  });
});
