// Handlers by task name for __tests__/sandbox.test.ts: plain CommonJS, so the compiled (dist/) and
// the ts-node sandbox thread load it alike. Each returns or records what the test looks at.
const { threadId } = require('node:worker_threads');
const { writeFileSync } = require('node:fs');

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

module.exports = {
  echo: async (task) => ({ data: task.data, name: task.name, attempt: task.attempt, queue: task.queue, token: 'token' in task, threadId }),
  progress: async (task) => {
    const stored = await task.progress({ done: 1, of: 2 });
    await sleep(task.data.wait);
    return { stored };
  },
  log: async (task) => {
    const stored = await task.log('from the thread');
    await task.log('second line');
    await sleep(task.data.wait);
    return { stored };
  },
  'throw-string': async () => {
    throw 'a plain string';
  },
  'throw-object': async () => {
    throw { code: 42 };
  },
  'throw-error': async () => {
    throw new TypeError('a type error in the thread');
  },
  exit: async () => {
    process.exit(3);
  },
  uncaught: () =>
    new Promise(() => {
      setTimeout(() => {
        throw new RangeError('thrown outside the handler');
      }, 10);
    }),
  busy: async (task) => {
    const end = Date.now() + task.data.ms;
    while (Date.now() < end); // blocks this thread's loop
    return { threadId };
  },
  hang: async () => {
    for (;;); // never returns, never looks at its signal
  },
  // Waits for its signal, writes the reason it sees to data.file, and returns.
  aborted: (task, signal) =>
    new Promise((resolve) =>
      signal.addEventListener('abort', () => {
        writeFileSync(task.data.file, `${signal.reason.name}: ${signal.reason.message}`);
        resolve(null);
      }),
    ),
  function: async () => () => 'not JSON',
};
