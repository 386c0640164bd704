import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SpaceFeed, Subscriber } from '../live/space-feed.js';
import { lastValue } from '../../../drf/query.js';
import type { Resolved } from '../../../drf/resolve.js';

/**
 * `GET /api/space/stream/`: the space's state as Server-Sent Events. On connect, the current
 * state (`event: state`, `id: <opening id>`, `data: <the status JSON>`); then one such event per
 * change, the moment this process learns of it (apps/space/live/space-feed.ts). A client that comes back
 * with `Last-Event-ID` (EventSource does it by itself; or `?lastEventId=`) gets the changes it
 * missed instead, then the live ones. A comment line every STREAM_HEARTBEAT_MS keeps proxies from
 * closing an idle stream. The route's checks are the API's (drf/resolve.ts: 301 without the
 * slash, 401/403/405 for writes, Allow and Vary), except that it negotiates its own media type
 * (drf/negotiation.ts); it never goes through the response cache.
 */
export const STREAM_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
  // nginx buffers responses by default: this turns it off for the stream.
  'x-accel-buffering': 'no',
} as const;

/** A client that reads nothing while this much waits in its socket's buffer is cut off. */
const MAX_BUFFERED_BYTES = 256 * 1024;

/**
 * At shutdown every stream ends with `retry: <ms>`: EventSource reconnects after that long (to
 * another worker, or to the restarted service). Spread over a second, so that a thousand clients
 * do not all come back in the same instant.
 */
export const RECONNECT_MIN_MS = 500;
export const RECONNECT_SPREAD_MS = 1000;

function retryHint(): string {
  return `retry: ${RECONNECT_MIN_MS + Math.floor(Math.random() * RECONNECT_SPREAD_MS)}\n\n`;
}

/** Last-Event-ID (header, else `?lastEventId=`) as an event id; anything else counts as absent. */
export function lastEventIdOf(header: string | string[] | undefined, resolved: Pick<Resolved, 'query'>): number | null {
  const text = (Array.isArray(header) ? header.at(-1) : header) ?? lastValue(resolved.query, 'lastEventId');
  if (text === undefined || !/^\s*[0-9]{1,15}\s*$/.test(text)) return null;
  return Number(text.trim());
}

export async function stream(request: FastifyRequest, reply: FastifyReply, resolved: Resolved, feed: SpaceFeed): Promise<FastifyReply> {
  if (request.method === 'HEAD') return reply.code(200).headers(STREAM_HEADERS).send();

  const res = reply.raw;
  let gone = false;
  const subscriber: Subscriber = {
    open(frames) {
      reply.hijack();
      res.writeHead(200, { ...reply.getHeaders(), ...STREAM_HEADERS } as Record<string, string>);
      if (frames.length > 0) res.write(frames.length === 1 ? frames[0] : Buffer.concat(frames));
      else res.flushHeaders();
    },
    send(frame) {
      if (res.destroyed) {
        feed.leave(subscriber);
        return;
      }
      if (res.writableLength > MAX_BUFFERED_BYTES) {
        res.destroy();
        return;
      }
      res.write(frame);
    },
    end() {
      res.end(retryHint());
      // The connection closes with the stream: nothing else is coming on it while shutting down.
      res.socket?.end();
    },
  };
  const onClose = () => {
    gone = true;
    feed.leave(subscriber);
  };
  res.on('close', onClose);
  // The client may have gone while we authenticated: its 'close' was then emitted already.
  if (res.destroyed || request.raw.socket?.destroyed) {
    res.off('close', onClose);
    reply.hijack();
    return reply;
  }
  try {
    await feed.join(subscriber, lastEventIdOf(request.headers['last-event-id'], resolved));
  } catch (error) {
    res.off('close', onClose);
    // Shutting down: come back shortly (to this process's successor, or another one). A 503
    // would make EventSource give up for good; an ended stream makes it reconnect.
    if (feed.isClosed) {
      reply.hijack();
      if (!res.destroyed) {
        res.writeHead(200, { ...reply.getHeaders(), ...STREAM_HEADERS, connection: 'close' } as Record<string, string>);
        res.end(retryHint());
      }
      return reply;
    }
    throw error;
  }
  // The client left while joining: there is nobody to answer.
  if (gone && !reply.sent) reply.hijack();
  return reply;
}
