/** @jest-config-loader-options {"transpileOnly": true} */
import type { Config } from 'jest';

// `npm run test:faults`, `test:cluster`, `test:browser` and `test:clients` set DOCKET_SUITE: the slow suites have
// their own scripts and budgets, and `npm test` runs none of them.
const suite = process.env.DOCKET_SUITE;
const slow = suite === 'faults' || suite === 'cluster' || suite === 'browser';
// `npm run test:clients` runs the contract suite through a caller's node-redis 5 and 6 client and an ioredis client
// (DOCKET_TEST_CLIENT, see __tests__/support/harness.ts): these files, each run once per client.
const CONTRACT = [
  'put',
  'lease',
  'priority',
  'dead',
  'scheduler',
  'worker',
  'deps',
  'groups',
  'recurring',
  'events',
  'outcome',
  'progress',
  'idle',
  'modes',
  'rates',
  'clean',
  'refusals',
  'queue',
  'logs',
  'timeout',
];

const config: Config = {
  // jest's node environment, which also deletes a file's keys after it under REDIS_URL.
  testEnvironment: '<rootDir>/__tests__/support/environment.ts',
  roots: [slow ? `<rootDir>/__tests__/${suite}` : '<rootDir>/__tests__'],
  testMatch: suite === 'clients' ? CONTRACT.map((name) => `**/__tests__/${name}.test.ts`) : ['**/*.test.ts'],
  testPathIgnorePatterns: slow ? ['/node_modules/'] : ['/node_modules/', '/__tests__/faults/', '/__tests__/cluster/', '/__tests__/browser/'],
  transform: { '^.+\\.ts$': 'ts-jest' },
  globalSetup: '<rootDir>/__tests__/support/global-setup.ts',
  globalTeardown: '<rootDir>/__tests__/support/global-teardown.ts',
  testTimeout: 20_000,
  // Fault scenarios share one machine's two cores: run them one at a time, with room to heal.
  ...(slow ? { maxWorkers: 1, testTimeout: 120_000 } : {}),
};

export default config;
