// An ES module handler (default export) for __tests__/sandbox.test.ts, given to work() as a file URL.
export default async (task) => ({ doubled: task.data.n * 2 });
