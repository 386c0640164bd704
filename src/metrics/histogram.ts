import { Histogram, type Registry } from 'prom-client';
import { DURATION_BUCKETS, REQUEST_DURATION, REQUEST_DURATION_HELP, type LabelName, type RequestDurations } from './request-durations.js';

/**
 * prom-client's Histogram, answering its scrapes from RequestDurations: the registry formats it,
 * and the cluster's primary aggregates it, like any other histogram (the values have the shape of
 * Histogram.get()'s).
 */
export class RequestHistogram extends Histogram<LabelName> {
  constructor(
    registry: Registry,
    private readonly durations: RequestDurations,
  ) {
    super({
      name: REQUEST_DURATION,
      help: REQUEST_DURATION_HELP,
      labelNames: ['method', 'route', 'status_code'],
      buckets: [...DURATION_BUCKETS],
      registers: [registry],
    });
  }

  override async get(): ReturnType<Histogram<LabelName>['get']> {
    const metric = { name: REQUEST_DURATION, help: REQUEST_DURATION_HELP, type: 'histogram', aggregator: 'sum', values: this.durations.samples() };
    return metric as unknown as Awaited<ReturnType<Histogram<LabelName>['get']>>;
  }

  /** What Registry.metrics() reads instead of get() when a metric has it (Histogram does). */
  async getForPromString(): ReturnType<Histogram<LabelName>['get']> {
    return this.get();
  }
}
