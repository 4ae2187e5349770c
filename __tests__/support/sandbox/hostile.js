// Handlers by task name that return, report or throw values a sandbox must still settle
// (__tests__/sandbox-hostile.test.ts and the fault scenario T19). Plain CommonJS, so the same module
// runs in a thread and, for comparison, in one thread (work() with the map of handlers).
// `data.workMs` makes a handler take that long first.

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** An array `levels` deep: [[[...]]]. */
function deep(levels) {
  let value = [];
  for (let i = 0; i < levels; i++) value = [value];
  return value;
}

/** A linked list of `nodes` objects: { next: { next: ... } }. */
function list(nodes) {
  let value = null;
  for (let i = 0; i < nodes; i++) value = { i, next: value };
  return value;
}

/** An array sharing one child at each of 40 levels: 2^40 leaves once written out. */
function bomb() {
  let value = ['x'];
  for (let i = 0; i < 40; i++) value = [value, value];
  return value;
}

class Point {
  constructor() {
    this.x = 1;
  }
}

/** Each kind of hostile value, made anew per call. */
const values = {
  deep: () => deep(4000),
  list: () => list(5000),
  cyclic: () => {
    const value = { a: 1 };
    value.self = value;
    return value;
  },
  huge: () => ({ text: 'x'.repeat(200 * 1024) }),
  bomb,
  proto: () => JSON.parse('{"__proto__":{"a":1},"b":2}'),
  getter: () => ({
    get boom() {
      throw new RangeError('a getter that throws');
    },
  }),
  instance: () => new Point(),
  date: () => ({ at: new Date(0) }),
  function: () => ({ f: () => 1 }),
  nan: () => ({ n: NaN }),
};

const handlers = {
  normal: async (task) => {
    await sleep(task.data.workMs ?? 0);
    return { label: task.data.label };
  },
};
for (const [kind, make] of Object.entries(values)) {
  // Returns the value as its result.
  handlers[kind] = async (task) => {
    await sleep(task.data.workMs ?? 0);
    return make();
  };
  // Reports it as progress (awaited), then returns normally.
  handlers[`progress-${kind}`] = async (task) => {
    await sleep(task.data.workMs ?? 0);
    await task.progress(make());
    return { label: task.data.label };
  };
}
// Throws a value nested too deep (its text is the last error), or logs one.
handlers['throw-deep'] = async (task) => {
  await sleep(task.data.workMs ?? 0);
  throw deep(4000);
};
// Throws a value none of which can be read: a Proxy whose every trap throws.
handlers['throw-unreadable'] = async (task) => {
  await sleep(task.data.workMs ?? 0);
  const refuse = () => {
    throw new Error('no reading me');
  };
  const traps = ['get', 'has', 'ownKeys', 'getPrototypeOf', 'getOwnPropertyDescriptor', 'defineProperty', 'set', 'deleteProperty', 'isExtensible', 'preventExtensions'];
  throw new Proxy({}, Object.fromEntries(traps.map((t) => [t, refuse])));
};
handlers['log-deep'] = async (task) => {
  await sleep(task.data.workMs ?? 0);
  await task.log(deep(4000));
  return { label: task.data.label };
};

module.exports = handlers;
