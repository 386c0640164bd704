// ESLint (flat config): `npm run lint`. The service's TypeScript gets typescript-eslint's
// type-checked recommended rules, and so does the client's (client/src/); the plain JavaScript
// around them (bin/, scripts/, client/scripts/, config files) gets ESLint's recommended rules.
// test/ is not linted yet; client/src/schema.d.ts is openapi-typescript's output.
import js from '@eslint/js';
import { defineConfig, globalIgnores } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default defineConfig(
  globalIgnores(['dist/', 'client/dist/', 'client/src/schema.d.ts', 'coverage/', 'data/', 'scratch/', 'bench/out/', 'test/']),
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
    // Kysely's own pattern: a migration sees the schema as it was then, so it takes Kysely<any>, not today's Database type.
    files: ['src/db/migrations.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
