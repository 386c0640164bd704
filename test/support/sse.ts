import http from 'node:http';

/** One Server-Sent Event as a client sees it. */
export interface SseEvent {
  event: string;
  id: string | undefined;
  data: string;
}

/**
 * A stream client over a real HTTP connection of its own (no agent, no keep-alive pool): its
 * status and headers, the events and comment lines received so far, and waits on them.
 */
export interface SseClient {
  status: number;
  headers: http.IncomingHttpHeaders;
  events: SseEvent[];
  comments: string[];
  /** Everything received, as text. */
  raw(): string;
  /** Resolves with the events once at least `count` arrived in total (fails after `timeoutMs`). */
  waitForEvents(count: number, timeoutMs?: number): Promise<SseEvent[]>;
  waitForComment(text: string, timeoutMs?: number): Promise<void>;
  /** Resolves when the server ended the response (or the connection closed). */
  ended: Promise<void>;
  /** Closes the connection from the client side. */
  close(): void;
}

export function openStream(base: string, path = '/api/space/stream/', headers: Record<string, string> = {}): Promise<SseClient> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, path, method: 'GET', headers, agent: false }, (res) => {
      const events: SseEvent[] = [];
      const comments: string[] = [];
      let text = '';
      let pending = '';
      const waiters = new Set<() => void>();
      const notify = () => {
        for (const waiter of [...waiters]) waiter();
      };
      let endedResolve!: () => void;
      const ended = new Promise<void>((r) => (endedResolve = r));
      let isEnded = false;
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
        pending += chunk;
        let split: number;
        while ((split = pending.indexOf('\n\n')) !== -1) {
          const block = pending.slice(0, split);
          pending = pending.slice(split + 2);
          let event = 'message';
          let id: string | undefined;
          const data: string[] = [];
          let isEvent = false;
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) {
              comments.push(line.slice(1).trim());
              continue;
            }
            const colon = line.indexOf(':');
            const field = colon === -1 ? line : line.slice(0, colon);
            const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
            isEvent = true;
            if (field === 'event') event = value;
            else if (field === 'id') id = value;
            else if (field === 'data') data.push(value);
          }
          // As EventSource does: a block without data (`retry:` alone) dispatches no event.
          if (isEvent && data.length > 0) events.push({ event, id, data: data.join('\n') });
        }
        notify();
      });
      const finish = () => {
        if (isEnded) return;
        isEnded = true;
        endedResolve();
        notify();
      };
      res.on('end', finish);
      res.on('close', finish);
      res.on('error', finish);
      const waitFor = <T>(check: () => T | undefined, what: string, timeoutMs: number) =>
        new Promise<T>((resolveWait, rejectWait) => {
          const test = () => {
            const value = check();
            if (value !== undefined) return done(undefined, value);
            if (isEnded) return done(new Error(`stream ended before ${what}; received:\n${text}`));
          };
          const timer = setTimeout(() => done(new Error(`timed out waiting for ${what}; received:\n${text}`)), timeoutMs);
          const done = (error?: Error, value?: T) => {
            clearTimeout(timer);
            waiters.delete(test);
            if (error) rejectWait(error);
            else resolveWait(value as T);
          };
          waiters.add(test);
          test();
        });
      resolve({
        status: res.statusCode ?? 0,
        headers: res.headers,
        events,
        comments,
        raw: () => text,
        waitForEvents: (count, timeoutMs = 5000) => waitFor(() => (events.length >= count ? events.slice() : undefined), `${count} events`, timeoutMs),
        waitForComment: (comment, timeoutMs = 5000) => waitFor(() => (comments.includes(comment) ? true : undefined), `the comment ${comment}`, timeoutMs).then(() => {}),
        ended,
        close: () => {
          req.destroy();
          res.destroy();
        },
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/** The JSON of an event's data. */
export function dataOf(event: SseEvent): unknown {
  return JSON.parse(event.data);
}
