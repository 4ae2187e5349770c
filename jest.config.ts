/** @jest-config-loader-options {"transpileOnly": true} */
import type { Config } from 'jest';

const config: Config = {
  testEnvironment: 'node',
  roots: ['<rootDir>/__tests__'],
  testMatch: ['**/*.test.ts'],
  // The fault suite has its own npm script and budget.
  testPathIgnorePatterns: ['/node_modules/', '/__tests__/faults/'],
  transform: { '^.+\\.ts$': 'ts-jest' },
  globalSetup: '<rootDir>/__tests__/support/global-setup.ts',
  globalTeardown: '<rootDir>/__tests__/support/global-teardown.ts',
  testTimeout: 20_000,
};

export default config;
