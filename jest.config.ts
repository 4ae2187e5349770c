/** @jest-config-loader-options {"transpileOnly": true} */
import type { Config } from 'jest';

// `npm run test:faults` sets DOCKET_SUITE=faults: the fault suite has its own script and budget.
const faults = process.env.DOCKET_SUITE === 'faults';

const config: Config = {
  testEnvironment: 'node',
  roots: [faults ? '<rootDir>/__tests__/faults' : '<rootDir>/__tests__'],
  testMatch: ['**/*.test.ts'],
  testPathIgnorePatterns: faults ? ['/node_modules/'] : ['/node_modules/', '/__tests__/faults/'],
  transform: { '^.+\\.ts$': 'ts-jest' },
  globalSetup: '<rootDir>/__tests__/support/global-setup.ts',
  globalTeardown: '<rootDir>/__tests__/support/global-teardown.ts',
  testTimeout: 20_000,
  // Fault scenarios share one machine's two cores: run them one at a time, with room to heal.
  ...(faults ? { maxWorkers: 1, testTimeout: 120_000 } : {}),
};

export default config;
