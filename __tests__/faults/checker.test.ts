/**
 * The checker checked: a scenario that passes must mean docket passed, so each figure and each
 * invariant is shown here to catch the fault it names, on made-up histories and on queue keys
 * corrupted by hand.
 */
import { analyse, checkInvariants, classify, History, layout } from './support/checker';
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

describe('checkInvariants', () => {
  it('passes an empty queue and reports every kind of broken state', async () => {
    expect(await checkInvariants(lab.raw, lab.prefix, lab.queue)).toEqual([]);
    const k = layout(lab.prefix, lab.queue);
    await lab.raw.hSet(k.meta, { nowhere: '{}', twice: '{}', leased: '{"w":"w1"}', bare: '{}' });
    await lab.raw.hSet(k.data, { nowhere: '1', twice: '1', leased: '1', orphan: '1' });
    await lab.raw.rPush(k.ready, ['twice', 'bare', 'ghost']);
    await lab.raw.zAdd(k.delayed, { score: 1, value: 'twice' });
    await lab.raw.zAdd(k.active, { score: 1, value: 'leased' });
    await lab.raw.zAdd(k.held, { score: 0, value: 'w2|stale' });
    await lab.raw.hSet(k.meta, 'limited', '{"g":"a"}');
    await lab.raw.hSet(k.data, 'limited', '1');
    await lab.raw.zAdd(k.parked, { score: 0, value: 'b|100000000000000001|limited' });
    await lab.raw.hSet(k.gactive, 'a', '2');
    await lab.raw.set(`${lab.prefix}:{${lab.queue}}:stray`, '1');
    const rules = (await checkInvariants(lab.raw, lab.prefix, lab.queue)).map((line) => line.split(':')[0]);
    expect(rules.sort()).toEqual([
      'active task missing from the held index',
      'group whose active count is off',
      'held index entry without its active lease',
      'key outside the fixed key set',
      'meta record without a payload (identity without a task)',
      'parked task not under its own group',
      'payload without a meta record',
      'state member without a meta record',
      'state member without a payload',
      'task in more than one state structure (or twice in ready)',
      'task in no state structure',
    ]);
  });
});
