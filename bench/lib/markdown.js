// Markdown output.

/** A table: columns are [title, align] with align 'l' or 'r'; rows are arrays of cells. */
export function table(columns, rows) {
  const head = `| ${columns.map(([title]) => title).join(' | ')} |`;
  const rule = `|${columns.map(([, align]) => (align === 'r' ? '---:' : '---')).join('|')}|`;
  return [head, rule, ...rows.map((row) => `| ${row.map((cell) => String(cell ?? '—').replaceAll('|', '\\|')).join(' | ')} |`)].join('\n');
}

export const code = (text) => `\`${text}\``;
