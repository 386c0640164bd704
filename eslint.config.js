// ESLint (flat config): `npm run lint`. The service's TypeScript gets typescript-eslint's
// type-checked recommended rules, and so does the client's (client/src/); the plain JavaScript
// around them (bin/, scripts/, client/scripts/, config files) gets ESLint's recommended rules.
// test/ gets the service's rules, with what tests need (below); client/src/schema.d.ts is
// openapi-typescript's output.
import js from '@eslint/js';
import { defineConfig, globalIgnores } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default defineConfig(
  globalIgnores(['dist/', 'client/dist/', 'client/src/schema.d.ts', 'coverage/', 'data/', 'scratch/', 'bench/out/', 'test/fixtures/']),
  {
    files: ['**/*.{js,mjs,cjs}'],
    extends: [js.configs.recommended],
    languageOptions: { globals: globals.node },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
  },
  {
    files: ['src/**/*.ts', 'client/src/**/*.ts'],
    extends: [js.configs.recommended, tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // `async` on a method of a Promise-returning interface turns a synchronous throw into a rejection (sqlite.ts ping, versions).
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    files: ['test/**/*.ts'],
    extends: [js.configs.recommended, tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // node:test's describe() and it() return promises that the runner itself awaits.
      '@typescript-eslint/no-floating-promises': ['error', { allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['describe', 'it', 'test', 'suite'] }] }],
      // Tests read JSON answers as `any` on purpose: assert checks their shape at run time, not the compiler.
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      // `_name`: a value a signature or a destructuring must take but the test does not use.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
    },
  },
  {
    // Kysely's own pattern: a migration sees the schema as it was then, so it takes Kysely<any>, not today's Database type.
    files: ['src/db/migrations.ts', 'src/apps/*/migrations.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
