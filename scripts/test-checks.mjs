// The static checks, run by scripts/test.mjs before the suites: type-check, the import layering
// (no cycles, no upward imports), lint, formatting, the catalogues (scripts/check-catalogues.mjs), and the client's types. Every check runs, so
// that one run reports every kind of failure; any failure exits 1, before the (long) suites.
//
//   node scripts/test-checks.mjs
import { spawnSync } from 'node:child_process';

/** Runs a command with its output on stdout/stderr; true when it exits 0. */
function run(command, args) {
  return spawnSync(command, args, { stdio: 'inherit' }).status === 0;
}

const checks = ['typecheck', 'lint:deps', 'lint', 'format:check', 'lint:catalogues'].map((script) => ({
  name: script,
  pass: () => run('npm', ['run', '--silent', script]),
}));

// client/src/schema.d.ts is generated from the OpenAPI document and committed: it must be what the
// document gives now. Only a git checkout can tell (an unpacked copy has no history to compare with).
if (spawnSync('git', ['rev-parse', '--is-inside-work-tree'], { stdio: 'ignore' }).status === 0) {
  checks.push({
    name: 'client-types',
    pass: () => run('npm', ['run', '--silent', '-w', 'client', 'generate']) && run('git', ['diff', '--exit-code', '--', 'client/src/schema.d.ts']),
  });
}

const failed = [];
for (const check of checks) {
  process.stdout.write(`\n# ---- check: ${check.name} ----\n`);
  if (!check.pass()) failed.push(check.name);
}
if (failed.length > 0) {
  process.stderr.write(`\nfailed checks: ${failed.join(', ')}\n`);
  process.exit(1);
}
process.stdout.write(`\n# checks passed: ${checks.map((check) => check.name).join(', ')}\n`);
