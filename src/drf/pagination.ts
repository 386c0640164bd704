import type { Config } from '../config.js';
import { invalidPage } from './errors.js';
import { lastValue, type QueryPair } from './query.js';

/** Python's int() on a query value: surrounding spaces, a leading `+`, leading zeros. */
const INTEGER = /^\s*\+?[0-9]+\s*$/;

/** A positive integer in that syntax, or null. Huge values come back as Infinity. */
export function parsePositiveInteger(text: string): number | null {
  if (!INTEGER.test(text)) return null;
  const value = Number(text.trim());
  return value >= 1 ? value : null;
}

/** `page_size`: the last one wins; invalid values are ignored; above the maximum it is clamped. */
export function pageSizeOf(pairs: readonly QueryPair[], config: Pick<Config, 'pageSize' | 'maxPageSize'>): number {
  const raw = lastValue(pairs, 'page_size');
  const size = raw === undefined ? null : parsePositiveInteger(raw);
  return size === null ? config.pageSize : Math.min(size, config.maxPageSize);
}

export function pageCount(count: number, size: number): number {
  return Math.max(1, Math.ceil(count / size));
}

/** The requested page number, validated against the number of pages (404 Invalid page). */
export function pageNumberOf(pairs: readonly QueryPair[], pages: number): number {
  const raw = lastValue(pairs, 'page');
  if (raw === undefined || raw === '') return 1;
  if (raw === 'last') return pages;
  const page = parsePositiveInteger(raw);
  if (page === null || page > pages) throw invalidPage();
  return page;
}
