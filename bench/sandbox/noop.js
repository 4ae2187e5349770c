// The sandboxed drain's handler (bench/scenarios.ts drainSandboxed), one file for both libraries:
// docket's thread calls it with (task, signal), BullMQ's child process with (job). It does nothing,
// so the row measures what running a handler in a sandbox costs per task.
module.exports = async () => {};
