// Command-line options of the drivers, through node:util parseArgs.
import { parseArgs } from 'node:util';
import { usageError } from './log.js';

/**
 * Parses argv with the spec { name: { type, default, short, help, integer: [min, max] } } and
 * checks whole-number options. --help prints `usage` and the options' help and exits 0.
 */
export function parseOptions(argv, spec, usage) {
  const options = { help: { type: 'boolean', short: 'h' } };
  for (const [name, { type, short, multiple, default: fallback }] of Object.entries(spec)) {
    options[name] = { type, ...(short ? { short } : {}), ...(multiple ? { multiple } : {}), ...(fallback !== undefined ? { default: String(fallback) } : {}) };
    if (type === 'boolean' && fallback !== undefined) options[name].default = fallback;
  }
  let values;
  try {
    ({ values } = parseArgs({ args: argv, options, allowPositionals: false, strict: true }));
  } catch (error) {
    usageError(`${error.message} (see --help)`);
  }
  if (values.help) {
    process.stdout.write(`${usage.trim()}\n\nOptions:\n${helpLines(spec)}\n`);
    process.exit(0);
  }
  for (const [name, { integer, choices }] of Object.entries(spec)) {
    if (values[name] === undefined) continue;
    if (integer) {
      const [min, max = Number.MAX_SAFE_INTEGER] = integer;
      const n = Number(values[name]);
      if (!/^\d+$/.test(values[name]) || n < min || n > max)
        usageError(`--${name} expects a whole number from ${min}${max < Number.MAX_SAFE_INTEGER ? ` to ${max}` : ''}, got '${values[name]}'`);
      values[name] = n;
    }
    if (choices && !choices.includes(values[name])) usageError(`--${name} expects one of ${choices.join(', ')}, got '${values[name]}'`);
  }
  return values;
}

function helpLines(spec) {
  return Object.entries(spec)
    .map(([name, { type, help, default: fallback }]) => {
      const flag = `  --${name}${type === 'string' ? ' V' : ''}`;
      const suffix = fallback !== undefined && type !== 'boolean' ? ` (default ${fallback})` : '';
      return `${flag.padEnd(22)} ${help}${suffix}`;
    })
    .join('\n');
}

/** A whole number from the environment (the dataset sizes), or the default. */
export function envInteger(name, fallback, min = 0) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min) usageError(`${name} must be a whole number ≥ ${min}, got '${raw}'`);
  return Number(raw);
}

/** --db: one engine, or both where the driver allows it. */
export function engines(value, allowBoth) {
  const v = { postgresql: 'postgres', pg: 'postgres' }[value] ?? value;
  if (v === 'sqlite' || v === 'postgres') return [v];
  if (allowBoth && v === 'both') return ['sqlite', 'postgres'];
  return usageError(`--db expects sqlite${allowBoth ? ', postgres or both' : ' or postgres'}, got '${value}'`);
}

export const engineName = (engine) => (engine === 'sqlite' ? 'SQLite' : 'PostgreSQL');
