import cluster, { type Worker } from 'node:cluster';
import { AggregatorRegistry, type Registry } from 'prom-client';

/*
 * `serve --workers N`: the primary serves METRICS_PORT and sums its workers' registries, asked
 * over the cluster's IPC channel at each scrape. prom-client's own AggregatorRegistry protocol
 * answers from registries set process-wide (module state); here each worker answers from its
 * app's registry, and the primary uses AggregatorRegistry only to add the answers up (each
 * metric by its aggregator: sums, but the space's state keeps the largest).
 */

const SCRAPE = 'hackerspace-api:metrics-scrape';
const ANSWER = 'hackerspace-api:metrics-answer';

/** How long the primary waits for a worker's answer before it scrapes without it (a worker stuck or exiting). */
export const WORKER_ANSWER_MS = 3000;

type Metrics = Awaited<ReturnType<Registry['getMetricsAsJSON']>>;

interface ScrapeMessage {
  type: typeof SCRAPE;
  id: number;
}

interface AnswerMessage {
  type: typeof ANSWER;
  id: number;
  metrics?: Metrics;
  error?: string;
}

function isMessage<T extends { type: string; id: number }>(message: unknown, type: T['type']): message is T {
  return typeof message === 'object' && message !== null && (message as T).type === type && typeof (message as T).id === 'number';
}

/** In a worker: answers the primary's scrapes from `registry` until the returned function is called. */
export function answerScrapes(registry: Registry): () => void {
  const onMessage = (message: unknown) => {
    if (!isMessage<ScrapeMessage>(message, SCRAPE)) return;
    const send = (answer: AnswerMessage) => {
      if (process.connected) process.send!(answer);
    };
    registry.getMetricsAsJSON().then(
      (metrics) => send({ type: ANSWER, id: message.id, metrics }),
      (error: Error) => send({ type: ANSWER, id: message.id, error: error.message }),
    );
  };
  process.on('message', onMessage);
  return () => process.off('message', onMessage);
}

export interface ClusterLog {
  warn(object: object, message: string): void;
}

interface Waiting {
  workers: Set<Worker>;
  answers: Metrics[];
  finish(): void;
}

/**
 * In the primary: the workers' metrics, summed. A worker is asked once it listens (its app, and
 * so its answering, is ready); one that exits or does not answer within WORKER_ANSWER_MS is left
 * out of that scrape (logged), so that a scrape never hangs on a dying worker.
 */
export class WorkerScrapes {
  private readonly ready = new Set<Worker>();
  private readonly waiting = new Map<number, Waiting>();
  private next = 0;

  constructor(private readonly log: ClusterLog) {
    cluster.on('listening', (worker) => this.ready.add(worker));
    cluster.on('exit', (worker) => {
      this.ready.delete(worker);
      for (const scrape of this.waiting.values()) if (scrape.workers.delete(worker) && scrape.workers.size === 0) scrape.finish();
    });
    cluster.on('message', (worker, message) => this.onAnswer(worker, message));
  }

  /** One scrape of every ready worker, summed, as Prometheus text. */
  async metrics(): Promise<string> {
    const id = this.next++;
    const workers = new Set([...this.ready].filter((worker) => worker.isConnected()));
    const answers: Metrics[] = [];
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.log.warn({ workers: [...workers].map((w) => w.process.pid) }, `metrics: no answer within ${WORKER_ANSWER_MS} ms from ${workers.size} worker(s); scraped without them`);
        finish();
      }, WORKER_ANSWER_MS);
      const finish = () => {
        clearTimeout(timer);
        this.waiting.delete(id);
        resolve();
      };
      this.waiting.set(id, { workers, answers, finish });
      if (workers.size === 0) return finish();
      for (const worker of workers) worker.send({ type: SCRAPE, id } satisfies ScrapeMessage);
    });
    return AggregatorRegistry.aggregate(answers).metrics();
  }

  private onAnswer(worker: Worker, message: unknown): void {
    if (!isMessage<AnswerMessage>(message, ANSWER)) return;
    const scrape = this.waiting.get(message.id);
    if (scrape === undefined || !scrape.workers.delete(worker)) return;
    if (message.metrics !== undefined) scrape.answers.push(message.metrics);
    else this.log.warn({ worker: worker.process.pid, error: message.error }, 'metrics: a worker could not collect its metrics');
    if (scrape.workers.size === 0) scrape.finish();
  }
}
