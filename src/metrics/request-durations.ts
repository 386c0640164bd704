export const REQUEST_DURATION = 'http_request_duration_seconds';
export const REQUEST_DURATION_HELP =
  'Duration of HTTP requests on the API port, from the server handler to the response, by method, route template and status (fast path included)';

/** The `route` of a request that matched no route: never the path it asked for. */
export const UNKNOWN_ROUTE = 'unknown';

/**
 * Upper bounds, in seconds. The fast path answers in tens of microseconds and a page of the
 * openings built cold in milliseconds: the default buckets (5 ms and up) would put both in one.
 */
export const DURATION_BUCKETS: readonly number[] = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Methods counted by name; any other one a client sends is counted as `other`. */
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
const OTHER = METHODS.length;

export type LabelName = 'method' | 'route' | 'status_code';

/** One series of the histogram: a method, a route template and a status. */
class Series {
  /** Observations per bucket (not cumulative); the last one is above every bound (+Inf). */
  readonly counts = new Float64Array(DURATION_BUCKETS.length + 1);
  sum = 0;

  constructor(readonly labels: Readonly<Record<LabelName, string>>) {}

  add(seconds: number): void {
    let i = 0;
    while (i < DURATION_BUCKETS.length && seconds > DURATION_BUCKETS[i]) i++;
    this.counts[i]++;
    this.sum += seconds;
  }
}

/**
 * The `http_request_duration_seconds` histogram's counts, kept here rather than in prom-client's
 * Histogram: prom-client hashes the labels of every observation into a string (about 500 ns a
 * request, measured), which the fast path cannot afford. Here each series is made on its first
 * request and found again by route, method and status through maps (no allocation per request);
 * the histogram is formatted from these counts when scraped (metrics/histogram.ts). This file
 * does not load prom-client: the fast path imports it whether metrics are on or not.
 */
export class RequestDurations {
  /** Route template → one map per method (METHODS, then `other`) → status → series. */
  private readonly routes = new Map<string, Map<number, Series>[]>();

  /** One request: its method as sent, its route template (or UNKNOWN_ROUTE), its status, and how long it took in milliseconds. */
  observe(method: string | undefined, route: string, status: number, ms: number): void {
    let methods = this.routes.get(route);
    if (methods === undefined) {
      methods = Array.from({ length: OTHER + 1 }, () => new Map<number, Series>());
      this.routes.set(route, methods);
    }
    let index = METHODS.indexOf(method as (typeof METHODS)[number]);
    if (index === -1) index = OTHER;
    const byStatus = methods[index];
    let series = byStatus.get(status);
    if (series === undefined) {
      series = new Series({ method: index === OTHER ? 'other' : METHODS[index], route, status_code: String(status) });
      byStatus.set(status, series);
    }
    series.add(ms / 1000);
  }

  /** The histogram's samples in prom-client's form: cumulative buckets, then the sum and the count, per series. */
  samples(): HistogramSample[] {
    const samples: HistogramSample[] = [];
    for (const methods of this.routes.values()) {
      for (const byStatus of methods) {
        for (const { labels, counts, sum } of byStatus.values()) {
          let cumulative = 0;
          for (let i = 0; i < counts.length; i++) {
            cumulative += counts[i];
            const le = i < DURATION_BUCKETS.length ? DURATION_BUCKETS[i] : '+Inf';
            samples.push({ metricName: `${REQUEST_DURATION}_bucket`, labels: { ...labels, le }, value: cumulative });
          }
          samples.push({ metricName: `${REQUEST_DURATION}_sum`, labels, value: sum });
          samples.push({ metricName: `${REQUEST_DURATION}_count`, labels, value: cumulative });
        }
      }
    }
    return samples;
  }
}

export interface HistogramSample {
  metricName: string;
  labels: Readonly<Record<string, string | number>>;
  value: number;
}
