// ESLint's flat config, run from the repository root as `eslint -c .ci/eslint.config.mjs .`
// (`npm run lint`, part of `npm test`). It lives in .ci/ because the repository's top-level entries
// are fixed. Every pattern below is resolved against the repository root (`basePath`), not
// against .ci/ nor the directory eslint is started from.
//
// typescript-eslint's `recommended` set, without type information (the type-checked sets need a
// program per run and make the lint several times slower; `tsc --noEmit` already runs first).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export default defineConfig([
  { name: 'docket/ignores', basePath: root, ignores: ['dist/', 'node_modules/', 'coverage/', '.tmp/'] },
  {
    name: 'docket/typescript',
    basePath: root,
    files: ['**/*.ts'],
    extends: [tseslint.configs.recommended],
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // Unused names are already refused by tsc (noUnusedLocals, noUnusedParameters), which also
      // honours the `_` prefix for a parameter kept for its position; two reports of one mistake
      // help no one.
      '@typescript-eslint/no-unused-vars': 'off',
      // Optional peers (prom-client, @opentelemetry/api), node-redis's client (only docket's own
      // clients need it), cron-parser (only cron schedules), the dashboard (lib/surfaces/facade/dashboard.ts), TypeScript (a sandbox run from source),
      // crypto in one bench adapter and each benchmarked library are loaded with require() inside
      // the call that needs them, so that a missing or unneeded one costs nothing until then. Any
      // other require() is refused: add a module here only when it must be loaded that lazily.
      '@typescript-eslint/no-require-imports': ['error', { allow: ['^prom-client$', '^@redis/client$', '^cron-parser$', '^\\.\\./dashboard$', '^@opentelemetry/api$', '^typescript$', '^node:crypto$', '^\\./(docket|bullmq|bee-queue|minimal)$'] }],
      // Small additions that catch real mistakes and that the code already follows.
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      'no-var': 'error',
      'prefer-const': 'error',
      'no-sparse-arrays': 'error',
      // `import type` for what is only a type (isolatedModules relies on it). `typeof import('x')`
      // stays allowed: it names the type of a lazy require('x') where the require is (see above).
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports', disallowTypeAnnotations: false }],
    },
  },
]);
